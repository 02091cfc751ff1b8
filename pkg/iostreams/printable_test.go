package iostreams

import "testing"

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":                     "plain text",
		"clear\x1b[2Jscreen":             "clear [2Jscreen",
		"osc52\x1b]52;c;aGVsbG8=\x07end": "osc52 ]52;c;aGVsbG8= end",
		"two\nlines\r\n":                 "two lines  ",
		"c1\u009b31mred":                 "c1 31mred",
		"bad utf8 \xff\xfe":              "bad utf8 ?",
		"ünïcödé ✓":                      "ünïcödé ✓",
		"del\x7f":                        "del ",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzPrintable(f *testing.F) {
	f.Add("\x1b]52;c;x\x07")
	f.Add("a\u009bb")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Printable(s) {
			if isControl(r) {
				t.Fatalf("Printable(%q) keeps control character %U", s, r)
			}
		}
	})
}

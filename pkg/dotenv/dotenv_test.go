package dotenv

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/botkit-dev/botkit/pkg/resources"
)

func parse(t *testing.T, src string) []Pair {
	t.Helper()
	pairs, err := ParseBytes(".env", []byte(src))
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return pairs
}

// values returns "KEY=value" lines with the value %q-quoted, for comparison.
func values(pairs []Pair) string {
	var b strings.Builder
	for _, p := range pairs {
		fmt.Fprintf(&b, "%s=%q@%d\n", p.Key, p.Value, p.Line)
	}
	return b.String()
}

func TestParse(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"plain", "A=1\nB=two\n", "A=\"1\"@1\nB=\"two\"@2\n"},
		{"no final newline", "A=1", "A=\"1\"@1\n"},
		{"blank lines and comments", "\n  \n# a comment\n\t# indented comment\nA=1\n\n", "A=\"1\"@5\n"},
		{"export prefix", "export A=1\nexport\tB=2\n  export   C=3\n", "A=\"1\"@1\nB=\"2\"@2\nC=\"3\"@3\n"},
		{"a key named export", "export=1\nexportX=2\n", "export=\"1\"@1\nexportX=\"2\"@2\n"},
		{"blanks around =", "A = 1\nB\t=\t2  \n", "A=\"1\"@1\nB=\"2\"@2\n"},
		{"empty values", "A=\nB=\"\"\nC=''\nD= # only a comment\nE=\t\n", "A=\"\"@1\nB=\"\"@2\nC=\"\"@3\nD=\"\"@4\nE=\"\"@5\n"},
		{"inline comment after unquoted", "A=value # comment\nB=value\t# tab comment\n", "A=\"value\"@1\nB=\"value\"@2\n"},
		{"# without a blank before it is data", "A=a#b\nB=#x\nC=x#\n", "A=\"a#b\"@1\nB=\"#x\"@2\nC=\"x#\"@3\n"},
		{"unquoted keeps quotes, backslashes and =", `A=a"b'c\nd=e`, "A=\"a\\\"b'c\\\\nd=e\"@1\n"},
		{"unquoted with inner blanks", "A=hello   world  \n", "A=\"hello   world\"@1\n"},
		{"single quotes are literal", `A='a \n "b" $C # not a comment'`, "A=\"a \\\\n \\\"b\\\" $C # not a comment\"@1\n"},
		{"single quotes span lines", "A='line1\nline2'\nB=2\n", "A=\"line1\\nline2\"@1\nB=\"2\"@3\n"},
		{"double quote escapes", `A="a\nb\tc\rd\"e\\f\$g"`, "A=\"a\\nb\\tc\\rd\\\"e\\\\f$g\"@1\n"},
		{"unknown escapes stay", `A="\x\q\'"`, "A=\"\\\\x\\\\q\\\\'\"@1\n"},
		{"double quotes span lines", "A=\"-----BEGIN KEY-----\nMIIE\n-----END KEY-----\"\nB=2\n", "A=\"-----BEGIN KEY-----\\nMIIE\\n-----END KEY-----\"@1\nB=\"2\"@4\n"},
		{"backslash before a newline in double quotes stays", "A=\"a\\\nb\"", "A=\"a\\\\\\nb\"@1\n"},
		{"comment after a quoted value", "A=\"x\" # c\nB='y'\t#c\nC=\"z\"   \n", "A=\"x\"@1\nB=\"y\"@2\nC=\"z\"@3\n"},
		{"# inside quotes is data", `A="a # b"`, "A=\"a # b\"@1\n"},
		{"nothing is expanded", "A=1\nB=$A\nC=\"${A}\"\n", "A=\"1\"@1\nB=\"$A\"@2\nC=\"${A}\"@3\n"},
		{"duplicate keys: last wins at the first position", "A=1\nB=2\nA=3\n", "A=\"3\"@3\nB=\"2\"@2\n"},
		{"CRLF", "A=1\r\nB=\"x\r\ny\"\r\n", "A=\"1\"@1\nB=\"x\\ny\"@2\n"},
		{"BOM", "\ufeffA=1\n", "A=\"1\"@1\n"},
		{"UTF-8 values", "A=héllo ✓\n", "A=\"héllo ✓\"@1\n"},
		{"lowercase and underscore keys", "_a1=x\nlog_level=y\n", "_a1=\"x\"@1\nlog_level=\"y\"@2\n"},
		{"empty file", "", ""},
		{"only comments", "# x\n#y", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := values(parse(t, c.src)); got != c.want {
				t.Errorf("parse %q:\n got %s\nwant %s", c.src, got, c.want)
			}
		})
	}
}

// secret is planted in the values of every bad input below; no error may
// contain it or any part of the offending line but a valid key.
const secret = "s3cr3tPAYLOAD"

func TestErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"no =", "A=1\n" + secret + "\n", `.env:2: expected KEY=value`},
		{"export without =", "export " + secret, `.env:1: expected KEY=value`},
		{"missing key", "=" + secret, `.env:1: missing key before "="`},
		{"key starts with a digit", "1" + secret + "=x", `.env:1: invalid key: use letters, digits and _, not starting with a digit, at most 128 characters`},
		{"key with a dash", "A-" + secret + "=x", `.env:1: invalid key: use letters, digits and _, not starting with a digit, at most 128 characters`},
		{"base64 padding", "A=\"x\"\n" + secret + "+/a==\n", `.env:2: invalid key: use letters, digits and _, not starting with a digit, at most 128 characters`},
		{"key too long", strings.Repeat("K", 129) + "=x", `.env:1: invalid key: use letters, digits and _, not starting with a digit, at most 128 characters`},
		{"unterminated double quote", "A=1\n\nKEY=\"" + secret + "\nmore " + secret + "\n", `.env:3: the double-quoted value of KEY has no closing "`},
		{"escaped final quote", `KEY="` + secret + `\"`, `.env:1: the double-quoted value of KEY has no closing "`},
		{"backslash at the end", `KEY="` + secret + `\`, `.env:1: the double-quoted value of KEY has no closing "`},
		{"unterminated single quote", "KEY='" + secret, `.env:1: the single-quoted value of KEY has no closing '`},
		{"text after the closing quote", "KEY=\"a\"" + secret, `.env:1: unexpected text after the closing quote of KEY (only a # comment may follow)`},
		{"text after a multi-line value", "KEY='a\nb' " + secret, `.env:2: unexpected text after the closing quote of KEY (only a # comment may follow)`},
		{"text after an empty quoted value", "KEY=\"\"" + secret, `.env:1: unexpected text after the closing quote of KEY (only a # comment may follow)`},
		{"invalid UTF-8", "A=1\nKEY=" + secret + "\xff\xfeX\n", `.env:2: key KEY: value is not valid UTF-8`},
		{"invalid UTF-8 quoted", "KEY='" + secret + "\xff'\n", `.env:1: key KEY: value is not valid UTF-8`},
		{"NUL byte", "A=1\n\nKEY=\"" + secret + "\x00\"\n", `.env:3: key KEY: value holds a NUL byte, which an environment variable cannot hold`},
		{"NUL in a multi-line value", "KEY=\"" + secret + "\n\x00\"\n", `.env:1: key KEY: value holds a NUL byte, which an environment variable cannot hold`},
		{"value too large", "KEY=" + secret + strings.Repeat("x", 64<<10) + "\n", `.env:1: key KEY: value is 65549 bytes; the limit is 65536 bytes (64 KiB)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			pairs, err := ParseBytes(".env", []byte(c.src))
			if err == nil {
				t.Fatalf("parse %q: no error; pairs %s", c.src, values(pairs))
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v, want *ParseError", err, err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %s\nwant %s", err, c.want)
			}
			for i := 0; i+4 <= len(secret); i++ {
				if strings.Contains(err.Error(), secret[i:i+4]) {
					t.Fatalf("error %q holds part of the value", err)
				}
			}
		})
	}
}

func TestParseReader(t *testing.T) {
	pairs, err := Parse("stdin", strings.NewReader("A=1\n"))
	if err != nil || len(pairs) != 1 || pairs[0].Value != "1" {
		t.Fatalf("%v %v", pairs, err)
	}
	_, err = Parse("x.env", iotest.ErrReader(io.ErrUnexpectedEOF))
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(err.Error(), "x.env: ") {
		t.Errorf("read error: %v", err)
	}
	_, err = Parse("big.env", io.LimitReader(zeros{}, MaxFileBytes+1))
	var pe *ParseError
	if !errors.As(err, &pe) || err.Error() != "big.env: file is larger than 16 MiB" {
		t.Errorf("too large: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = '#'
	}
	return len(b), nil
}

func TestPairNeverPrintsTheValue(t *testing.T) {
	p := Pair{Key: "K", Value: secret, Line: 3}
	for _, format := range []string{"%v", "%+v", "%s", "%#v"} {
		if s := fmt.Sprintf(format, p); strings.Contains(s, secret) || !strings.Contains(s, "K") {
			t.Errorf("%s: %s", format, s)
		}
	}
	if s := fmt.Sprintf("%v", []Pair{p}); strings.Contains(s, secret) {
		t.Errorf("slice: %s", s)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	pairs := []Pair{
		{Key: "A", Value: ""},
		{Key: "B", Value: "multi\nline\r\nwith \"quotes\", 'single', \\back\\slashes\\, $VAR, # hash, \ttab"},
		{Key: "C", Value: "trailing blanks  "},
		{Key: "D", Value: "\\"},
		{Key: "E", Value: "ünïcode ✓"},
	}
	got, err := ParseBytes("m", Marshal(pairs))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(pairs) {
		t.Fatalf("got %d pairs", len(got))
	}
	for i := range pairs {
		if got[i].Key != pairs[i].Key || got[i].Value != pairs[i].Value {
			t.Errorf("pair %d: %q=%q, want %q=%q", i, got[i].Key, got[i].Value, pairs[i].Key, pairs[i].Value)
		}
	}
}

// checkError verifies what FuzzParse requires of any error: a *ParseError
// whose message is one of the fixed messages, naming a key only when that key
// is valid.
func checkError(t *testing.T, name string, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %T %v, want *ParseError", err, err)
	}
	if pe.File != name || pe.Line < 1 {
		t.Fatalf("error %v: file %q line %d", err, pe.File, pe.Line)
	}
	if pe.Key != "" && resources.ValidateKey(pe.Key) != nil {
		t.Fatalf("error names an invalid key %q", pe.Key)
	}
	known := false
	for _, m := range []string{msgNoEquals, msgNoKey, msgBadKey, msgUnterminatedDQ, msgUnterminatedSQ, msgAfterQuote} {
		if strings.Contains(m, "%s") {
			m = fmt.Sprintf(m, pe.Key)
		}
		known = known || pe.Msg == m
	}
	// Or the value check's: it names the key, which is then valid.
	known = known || pe.Key != "" && strings.HasPrefix(pe.Msg, "key "+pe.Key+": value ")
	if !known {
		t.Fatalf("error message %q is not one of the fixed messages", pe.Msg)
	}
	if want := fmt.Sprintf("%s:%d: %s", name, pe.Line, pe.Msg); err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err.Error(), want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"A=1\n", "export A=1", "A='x'", `A="a\nb"`, "A=\"x\ny\"", "A=v # c", "# c\n\nA=", `A=""`,
		"A=\"x", "A='x", "1A=x", "=x", "A", "A=\"x\"y", "\ufeffA=1\r\n", `A="\`, "A= #x", "export  B = 'q' # c",
		"A=\xff\xfeX", "A='\xff'", "A=\"a\x00b\"", "A=\x00", "A=1\nB=\"\n\xc3\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		pairs, err := ParseBytes("f.env", src)
		if err != nil {
			checkError(t, "f.env", err)
			return
		}
		seen := map[string]bool{}
		for _, p := range pairs {
			if err := resources.ValidateValue(p.Key, p.Value); err != nil {
				t.Fatalf("pair %s: a value the platform refuses was accepted: %v", p.Key, err)
			}
			if resources.ValidateKey(p.Key) != nil || seen[p.Key] || p.Line < 1 {
				t.Fatalf("bad pair %q line %d (duplicate %v)", p.Key, p.Line, seen[p.Key])
			}
			seen[p.Key] = true
		}
		again, err := ParseBytes("m", Marshal(pairs))
		if err != nil {
			t.Fatalf("marshalled pairs do not parse: %v", err)
		}
		if len(again) != len(pairs) {
			t.Fatalf("round trip: %d pairs, want %d", len(again), len(pairs))
		}
		for i := range pairs {
			if again[i].Key != pairs[i].Key || again[i].Value != pairs[i].Value {
				t.Fatalf("round trip of pair %d (%s) changed it", i, pairs[i].Key)
			}
		}
	})
}

// FuzzMarshal checks that any value survives Marshal and Parse unchanged.
func FuzzMarshal(f *testing.F) {
	for _, s := range []string{"", "x", "a\nb", `"\$'`, "#", " x ", "\r", "\\", "\xff", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		got, err := ParseBytes("m", Marshal([]Pair{{Key: "K", Value: value}, {Key: "L", Value: "after"}}))
		if verr := resources.ValidateValue("K", value); verr != nil {
			// Refused on the way back, at its line, naming the key.
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Key != "K" || pe.Line != 1 || pe.Msg != verr.Error() {
				t.Fatalf("a value ValidateValue refuses: got %v, want %v at m:1", err, verr)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Value != value || got[1].Value != "after" {
			t.Fatalf("value changed in a round trip")
		}
	})
}

// A key given twice: the last value wins, and the duplicate is reported at
// its line with the first one's, naming the key and never a value.
func TestParseBytesDuplicates(t *testing.T) {
	pairs, dups, err := ParseBytesDuplicates("server/.env", []byte("A=1\nB=secret-one\n# note\nB=secret-two\nA=3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || pairs[1].Key != "B" || pairs[1].Value != "secret-two" {
		t.Errorf("pairs %#v", pairs)
	}
	want := []string{
		"server/.env:4: B is assigned again (first at line 2); the last value is used",
		"server/.env:5: A is assigned again (first at line 1); the last value is used",
	}
	if len(dups) != len(want) {
		t.Fatalf("duplicates %v, want %v", dups, want)
	}
	for i, d := range dups {
		if s := d.String(); s != want[i] || strings.Contains(s, "secret") {
			t.Errorf("duplicate %d: %q, want %q", i, s, want[i])
		}
	}
}

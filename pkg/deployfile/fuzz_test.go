package deployfile

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: any input either parses (and Check runs) or is an *Error with
// at least one problem; nothing panics. Seeds in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte("agent_name = \"a\"\nimage = \"acme/a:1\"\n[scaling]\nmin_agents = 0\n"))
	f.Add([]byte("[build.exclude]\npatterns = [\"*\"]\n"))
	f.Add([]byte("enable_krisp = true\n[krisp_viva]\naudio_filter = \"pro\"\n"))
	f.Add([]byte("a = [\n"))
	f.Add([]byte("agent_name = 3\n[scaling]\nmin_agents = \"x\"\n[build.exclude]\npatterns = [1]\n"))
	f.Add([]byte("scaling = 3\n[agent_name]\nx = 1979-05-27\n"))
	f.Add([]byte("krisp_viva = {audio_filter = 1}\ndocker.auto_latest = \"no\"\n"))
	f.Add([]byte("a = " + strings.Repeat("[", 100) + "\n"))
	f.Add([]byte("[scaling]\nx = " + strings.Repeat("{a = ", 20) + "1" + strings.Repeat("}", 20) + "\n"))
	f.Add([]byte("[" + strings.Repeat("a.", 20) + "b]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		df, err := Parse("f.toml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || len(e.Problems) == 0 {
				t.Fatalf("Parse: %v", err)
			}
			return
		}
		for _, fd := range df.Check() {
			if fd.Check == "" || fd.Message == "" {
				t.Fatalf("a finding without check or message: %+v", fd)
			}
		}
	})
}

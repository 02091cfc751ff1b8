package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/resources"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDirs(t *testing.T) {
	cases := []struct {
		env       map[string]string
		dir, data string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.config/botkit", "/h/.local/share/botkit"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x", "XDG_DATA_HOME": "/d"}, "/x/botkit", "/d/botkit"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x", EnvConfigDir: "/c"}, "/c", "/h/.local/share/botkit"},
		// A relative XDG directory is ignored, as the spec says.
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "rel", "XDG_DATA_HOME": "rel"}, "/h/.config/botkit", "/h/.local/share/botkit"},
	}
	for _, c := range cases {
		d, err := Dir(env(c.env))
		dd, err2 := DataDir(env(c.env))
		if err != nil || err2 != nil || d != c.dir || dd != c.data {
			t.Errorf("%v: %s %s (%v %v)", c.env, d, dd, err, err2)
		}
	}
	if _, err := Dir(env(nil)); err == nil {
		t.Error("no HOME: no error")
	}
}

func TestLoadSaveAndEnvOverrides(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	e := map[string]string{EnvConfigDir: dir, "HOME": t.TempDir()}
	c, err := Load(env(e))
	if err != nil || !c.Embedded() || c.Path != filepath.Join(dir, FileName) {
		t.Fatalf("missing file: %+v %v", c, err)
	}
	if err := Save(c.Path, File{APIURL: "https://api.example.com", Organization: "acme", Region: "eu-central"}); err != nil {
		t.Fatal(err)
	}
	for path, mode := range map[string]os.FileMode{dir: 0o700, c.Path: 0o600} {
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v (%v)", path, st.Mode().Perm(), mode, err)
		}
	}
	b, err := os.ReadFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "token") {
		t.Errorf("a file without a token mentions one:\n%s", b)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	c, err = Load(env(e))
	if err != nil || c.APIURL != "https://api.example.com" || c.Organization != "acme" || c.Region != "eu-central" || c.Embedded() {
		t.Fatalf("reload: %+v %v", c, err)
	}
	e[EnvAPIURL], e[EnvOrg], e[EnvToken] = "http://127.0.0.1:1", "other", " bkp_x\n"
	c, err = Load(env(e))
	if err != nil || c.APIURL != "http://127.0.0.1:1" || c.Organization != "other" || c.EnvToken != "bkp_x" {
		t.Fatalf("env: %+v %v", c, err)
	}
	// The file is what Save writes back: the environment is not baked in.
	if c.File.APIURL != "https://api.example.com" || c.File.Organization != "acme" {
		t.Fatalf("file: %+v", c.File)
	}
}

func TestStrictDecoding(t *testing.T) {
	const canary = "CANARY-config-value"
	cases := []struct {
		body string
		line int
		msg  string
	}{
		{"apiUrl: https://x\nfoo: " + canary + "\n", 2, `unknown key "foo"`},
		{"organization: a\norganization: b\n", 2, "key organization given twice (first at line 1)"},
		{"region:\n  - us-west\n", 2, "region: expected a string"},
		{"token: 12\n", 1, "token: expected a string"},
		{"- a\n- b\n", 1, "expected a mapping"},
		{"apiUrl: [" + canary + "\n", 0, "invalid YAML"},
	}
	for _, c := range cases {
		_, err := parse("cfg.yaml", []byte(c.body))
		var fe *FileError
		if !errors.As(err, &fe) || (c.line > 0 && fe.Line != c.line) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v", c.body, err)
			continue
		}
		if c.line > 0 && !strings.HasPrefix(err.Error(), "cfg.yaml:") {
			t.Errorf("%q: no file:line in %v", c.body, err)
		}
		if strings.Contains(err.Error(), canary) {
			t.Errorf("%q: the error quotes a value: %v", c.body, err)
		}
		if fe.ErrorCode() != resources.CodeInvalid {
			t.Errorf("code %s", fe.ErrorCode())
		}
	}
	for _, ok := range []string{"", "# only a comment\n", "apiUrl: ''\n", "region: ~\n", "apiUrl: \"https://x\"\norganization: acme\nregion: us-west\ntoken: bkp_abc\n"} {
		if _, err := parse("cfg.yaml", []byte(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestSaveRoundTripsAnyString(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	for _, v := range []string{"plain", "with: colon", "#hash", "multi\nline", "'quote\"", "  spaces  ", "yes", "123"} {
		want := File{APIURL: v, Organization: v, Region: v, Token: v}
		if err := Save(path, want); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v", v, got, err)
		}
	}
}

// FuzzParse: any input parses or fails with a FileError, and a saved File
// reads back equal.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"apiUrl: https://x\n", "organization: a\norganization: b\n", "region: [\n", "- a\n", "token: 'x'\n", "a: &x 1\nb: *x\n", "apiUrl: !!binary aGk=\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := parse("f.yaml", b)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		path := filepath.Join(t.TempDir(), FileName)
		if err := Save(path, file); err != nil {
			t.Fatal(err)
		}
		back, err := ReadFile(path)
		if err != nil || back != file {
			t.Fatalf("round trip: %+v -> %+v (%v)", file, back, err)
		}
	})
}

// A config file holding a token that others can read or write is refused,
// as ssh refuses such a private key: exit 2 naming the file, its mode and
// the chmod that repairs it, never the token. Without a token, or at 0600,
// it is read.
func TestTokenFileMustBePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix mode bits")
	}
	const canary = "bkp_CANARY_perm_token"
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	getenv := env(map[string]string{EnvConfigDir: dir, "HOME": dir})
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o620, 0o666} {
		if err := os.WriteFile(path, []byte("apiUrl: https://x\ntoken: "+canary+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := Load(getenv)
		var fe *FileError
		if !errors.As(err, &fe) || fe.ErrorCode() != resources.CodeInvalid {
			t.Fatalf("mode %04o: %v", mode, err)
		}
		msg := err.Error()
		for _, want := range []string{path, fmt.Sprintf("mode %04o", mode), "chmod 600 " + path} {
			if !strings.Contains(msg, want) {
				t.Errorf("mode %04o: message lacks %q: %s", mode, want, msg)
			}
		}
		if strings.Contains(msg, canary) {
			t.Errorf("the message shows the token: %s", msg)
		}
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(getenv); err != nil || c.File.Token != canary {
		t.Fatalf("0600: %v", err)
	}
	if err := os.WriteFile(path, []byte("apiUrl: https://x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(getenv); err != nil {
		t.Fatalf("no token, 0644: %v", err)
	}
}

package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/resources"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDirs(t *testing.T) {
	cases := []struct {
		env map[string]string
		dir string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.config/botkit"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x"}, "/x/botkit"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x", EnvConfigDir: "/c"}, "/c"},
		// A relative XDG directory is ignored, as the spec says.
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "rel"}, "/h/.config/botkit"},
	}
	for _, c := range cases {
		if d, err := Dir(env(c.env)); err != nil || d != c.dir {
			t.Errorf("%v: %s (%v)", c.env, d, err)
		}
	}
	if _, err := Dir(env(nil)); err == nil {
		t.Error("no HOME: no error")
	}
}

func TestLoadSaveAndEnvOverrides(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	e := map[string]string{EnvConfigDir: dir, "HOME": t.TempDir()}
	c, err := Load(env(e), "")
	// A machine without a config file: the one context "local", current.
	if err != nil || !c.Embedded() || c.Path != filepath.Join(dir, FileName) || c.Context != LocalContext || c.ContextSource != "currentContext" || c.File.Names()[0] != LocalContext {
		t.Fatalf("missing file: %+v %v", c, err)
	}
	file := File{CurrentContext: "staging", Contexts: []Context{
		{Name: "staging", APIURL: "https://staging.example.com", Organization: "acme", Region: "eu-central"},
		{Name: "prod", APIURL: "https://api.example.com", Organization: "acme", Protected: true},
		{Name: "local"},
	}}
	if err := Save(c.Path, file); err != nil {
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
	if strings.Contains(string(b), "token") || !strings.Contains(string(b), "apiVersion: botkit.dev/v1\nkind: Config\n") {
		t.Errorf("the file:\n%s", b)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// The current context, then BOTKIT_CONTEXT, then --context.
	c, err = Load(env(e), "")
	if err != nil || c.Context != "staging" || c.ContextSource != "currentContext" || c.APIURL != "https://staging.example.com" || c.Organization != "acme" || c.Region != "eu-central" || c.Protected {
		t.Fatalf("current: %+v %v", c, err)
	}
	e[EnvContext] = "prod"
	c, err = Load(env(e), "")
	if err != nil || c.Context != "prod" || c.ContextSource != EnvContext || !c.Protected || c.Region != "" {
		t.Fatalf("env: %+v %v", c, err)
	}
	c, err = Load(env(e), "local")
	if err != nil || c.Context != "local" || c.ContextSource != "--context" || !c.Embedded() {
		t.Fatalf("flag: %+v %v", c, err)
	}
	// Unknown: exit 2 naming the ones there are.
	_, err = Load(env(e), "nope")
	var ce *ContextError
	if !errors.As(err, &ce) || ce.ErrorCode() != resources.CodeInvalid || err.Error() != `--context: context "nope" does not exist (contexts: staging, prod, local)` {
		t.Errorf("unknown context: %v", err)
	}
	e[EnvContext] = "gone"
	if _, err := Load(env(e), ""); err == nil || !strings.HasPrefix(err.Error(), EnvContext+": ") {
		t.Errorf("unknown BOTKIT_CONTEXT: %v", err)
	}
	delete(e, EnvContext)
	// BOTKIT_API_URL and BOTKIT_ORG on top of the context.
	e[EnvAPIURL], e[EnvOrg], e[EnvToken] = "http://127.0.0.1:1", "other", " bkp_x\n"
	c, err = Load(env(e), "")
	if err != nil || c.APIURL != "http://127.0.0.1:1" || !c.APIURLFromEnv || c.Organization != "other" || c.EnvToken != "bkp_x" || c.Context != "staging" {
		t.Fatalf("env: %+v %v", c, err)
	}
	// The file is what Save writes back: the environment is not baked in.
	if !reflect.DeepEqual(c.File, file) || c.SelectedContext() != file.Contexts[0] {
		t.Fatalf("file: %+v", c.File)
	}
}

// A file of the old, single-platform form is the context "default", token
// included; saving writes the contexts form.
func TestLegacyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("apiUrl: https://api.example.com:8443\norganization: acme\nregion: us-east\ntoken: bkp_legacy\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(env(map[string]string{EnvConfigDir: dir, "HOME": dir}), "")
	if err != nil || c.Context != DefaultContext || c.APIURL != "https://api.example.com:8443" || c.Organization != "acme" || c.Region != "us-east" || c.FileToken != "bkp_legacy" {
		t.Fatalf("legacy: %+v %v", c, err)
	}
	want := File{CurrentContext: DefaultContext, Contexts: []Context{{Name: DefaultContext, APIURL: "https://api.example.com:8443", Organization: "acme", Region: "us-east"}},
		Tokens: map[string]string{"api.example.com:8443": "bkp_legacy"}}
	if !reflect.DeepEqual(c.File, want) {
		t.Fatalf("legacy file: %+v", c.File)
	}
	if err := Save(path, c.File); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil || !reflect.DeepEqual(back, want) {
		t.Fatalf("saved: %+v %v", back, err)
	}
	// The contexts form, read by a botkit that knows only the old one,
	// stops at its first line: this botkit refuses a newer form the same way.
	if _, err := parse("cfg.yaml", []byte("apiVersion: botkit.dev/v2\nkind: Config\n")); err == nil || !strings.Contains(err.Error(), "cfg.yaml:1: apiVersion \"botkit.dev/v2\": this botkit reads botkit.dev/v1") {
		t.Errorf("a newer form: %v", err)
	}
}

func TestStrictDecoding(t *testing.T) {
	const canary = "CANARY-config-value"
	const head = "apiVersion: botkit.dev/v1\nkind: Config\n"
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
		{head + "contexts:\n  - name: a\n    apiUrl: x\n    color: " + canary + "\n", 6, `unknown key "color"`},
		{head + "contexts:\n  - name: a\n  - name: a\n", 5, `context "a" given twice`},
		{head + "contexts:\n  - apiUrl: x\n", 4, "a context needs a name"},
		{head + "contexts:\n  - name: 'bad name'\n", 4, "context name"},
		{head + "currentContext: b\ncontexts:\n  - name: a\n", 3, `currentContext "b" names no context (contexts: a)`},
		{head + "contexts:\n  - name: a\n    protected: yes-please\n", 5, "protected: expected true or false"},
		{head + "tokens:\n  h: [1]\n", 4, "tokens.h: expected a string"},
		{head + "contexts: {}\n", 3, "contexts: expected a list"},
	}
	for _, c := range cases {
		// An error, or a problem (an entry the config commands can
		// repair) that every other command refuses through Check.
		f, err := parse("cfg.yaml", []byte(c.body))
		if err == nil {
			err = f.Check()
		}
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
	for _, ok := range []string{"", "# only a comment\n", "apiUrl: ''\n", "region: ~\n", "apiUrl: \"https://x\"\norganization: acme\nregion: us-west\ntoken: bkp_abc\n",
		head + "contexts: []\n", head + "currentContext: a\ncontexts:\n  - name: a\n    protected: false\ntokens: {}\n"} {
		if f, err := parse("cfg.yaml", []byte(ok)); err != nil || f.Check() != nil {
			t.Errorf("%q: %v %v", ok, err, f.Check())
		}
	}
}

func TestSaveRoundTripsAnyString(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	for _, v := range []string{"plain", "with: colon", "#hash", "multi\nline", "'quote\"", "  spaces  ", "yes", "123"} {
		want := File{CurrentContext: "c1", Contexts: []Context{{Name: "c1", APIURL: v, Organization: v, Region: v, Protected: true}}, Tokens: map[string]string{v: v}}
		if err := Save(path, want); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v %v", v, got, err)
		}
	}
}

// FuzzParse: any input parses or fails with a FileError, and a saved File
// reads back equal.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"apiUrl: https://x\n", "organization: a\norganization: b\n", "region: [\n", "- a\n", "token: 'x'\n", "a: &x 1\nb: *x\n", "apiUrl: !!binary aGk=\n", "contexts: " + strings.Repeat("[", 100) + "\n", "contexts:\n" + strings.Repeat("  - ", 20) + "a\n",
		"apiVersion: botkit.dev/v1\nkind: Config\ncurrentContext: a\ncontexts:\n  - name: a\n    apiUrl: https://x\n    protected: true\ntokens:\n  x: bkp_1\n"} {
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
		if err != nil || !reflect.DeepEqual(back, file) {
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
		_, err := Load(getenv, "")
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
	if c, err := Load(getenv, ""); err != nil || c.FileToken != canary {
		t.Fatalf("0600: %v", err)
	}
	if err := os.WriteFile(path, []byte("apiUrl: https://x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(getenv, ""); err != nil {
		t.Fatalf("no token, 0644: %v", err)
	}
}

// A context's certificateAuthority is kept by Save and Load; a relative
// one is relative to the config file's directory; BOTKIT_CA_FILE wins over
// it; each says where it came from. The old form does not know the key.
func TestCertificateAuthority(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	e := map[string]string{EnvConfigDir: dir, "HOME": t.TempDir()}
	path := filepath.Join(dir, FileName)
	file := File{CurrentContext: "prod", Contexts: []Context{
		{Name: "prod", APIURL: "https://api.example.com", CertificateAuthority: "/etc/botkit/ca.pem"},
		{Name: "staging", APIURL: "https://staging.example.com", CertificateAuthority: "certs/staging.pem"},
		{Name: "public", APIURL: "https://botkit.example.com"},
	}}
	if err := Save(path, file); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "\n    certificateAuthority: /etc/botkit/ca.pem\n") {
		t.Fatalf("saved file:\n%s (%v)", b, err)
	}
	c, err := Load(env(e), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ctx, wantPath, wantFrom string }{
		{"prod", "/etc/botkit/ca.pem", `certificateAuthority of context "prod" in ` + path},
		{"staging", filepath.Join(dir, "certs/staging.pem"), `certificateAuthority of context "staging" in ` + path},
		{"public", "", ""},
	} {
		p, from := c.CertificateAuthority(*c.File.Find(tc.ctx))
		if p != tc.wantPath || from != tc.wantFrom {
			t.Errorf("%s: %q from %q, want %q from %q", tc.ctx, p, from, tc.wantPath, tc.wantFrom)
		}
	}
	e[EnvCAFile] = "env-ca.pem"
	if c, err = Load(env(e), ""); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"prod", "public"} {
		if p, from := c.CertificateAuthority(*c.File.Find(name)); p != "env-ca.pem" || from != EnvCAFile {
			t.Errorf("%s with %s: %q from %q", name, EnvCAFile, p, from)
		}
	}
	if err := os.WriteFile(path, []byte("apiUrl: https://api.example.com\ncertificateAuthority: /ca.pem\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(env(e), ""); err == nil || !strings.Contains(err.Error(), `config.yaml:2: unknown key "certificateAuthority" (known: apiUrl, organization, region, token)`) {
		t.Errorf("the old form with certificateAuthority: %v", err)
	}
}

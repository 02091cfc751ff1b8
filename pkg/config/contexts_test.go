package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// Every host a login can name gives a valid context name (IPv6 included).
func TestContextNameFor(t *testing.T) {
	for host, want := range map[string]string{
		"api.example.com":      "api.example.com",
		"127.0.0.1:8080":       "127.0.0.1:8080",
		"[::1]:8080":           "ipv6---1:8080",
		"[::1]":                "ipv6---1",
		"[fe80::1%eth0]:443":   "ipv6-fe80--1-eth0:443",
		"[2001:db8::7]:9":      "ipv6-2001-db8--7:9",
		"_svc.example.com":     "svc.example.com",
		"xn--bcher-kva.ch:443": "xn--bcher-kva.ch:443",
		"":                     "platform",
	} {
		got := ContextNameFor(host)
		if got != want {
			t.Errorf("ContextNameFor(%q) = %q, want %q", host, got, want)
		}
		if err := ValidateContextName(got); err != nil {
			t.Errorf("ContextNameFor(%q) = %q: %v", host, got, err)
		}
	}
	if got := ContextNameFor(strings.Repeat("a", 300) + ".example.com"); len(got) != 253 || ValidateContextName(got) != nil {
		t.Errorf("a long host: %d characters", len(got))
	}
	for name, valid := range map[string]bool{"a": true, strings.Repeat("a", 253): true, "a" + strings.Repeat(".", 252): true, "9:_-.": true,
		"": false, strings.Repeat("a", 254): false, ".a": false, "a/b": false, "a b": false, "a\n": false, "é": false} {
		if err := ValidateContextName(name); (err == nil) != valid {
			t.Errorf("ValidateContextName(%q) = %v, want valid %v", name, err, valid)
		}
	}
}

func writeConfig(t *testing.T, body string) (string, func(string) string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, env(map[string]string{EnvConfigDir: dir, "HOME": dir})
}

// One bad entry (a name an older botkit wrote) does not make the file
// unreadable: ReadFile reads around it for the config commands; every other
// command (Load) is refused naming file:line and the repair; after the
// repair the file loads.
func TestBadEntryIsRepairable(t *testing.T) {
	path, getenv := writeConfig(t, "apiVersion: botkit.dev/v1\nkind: Config\ncurrentContext: prod\ncontexts:\n  - name: prod\n    apiUrl: https://api.example.com\n  - name: 'bad name'\n    apiUrl: http://[::1]:8080\n")
	f, err := ReadFile(path)
	if err != nil || len(f.Problems) != 1 || !slices.Equal(f.Names(), []string{"prod", "bad name"}) {
		t.Fatalf("ReadFile: %+v %v", f, err)
	}
	_, err = Load(getenv, "")
	var fe *FileError
	if !errors.As(err, &fe) || fe.ErrorCode() != resources.CodeInvalid || fe.Line != 7 ||
		!strings.Contains(err.Error(), path+":7: context name \"bad name\"") || !strings.Contains(err.Error(), "botkit config rename-context \"bad name\" NEW") {
		t.Fatalf("Load: %v", err)
	}
	if err := Update(path, func(f *File) error { f.Find("bad name").Name = "v6"; return nil }); err != nil {
		t.Fatal(err)
	}
	c, err := Load(getenv, "v6")
	if err != nil || c.APIURL != "http://[::1]:8080" {
		t.Fatalf("after the rename: %+v %v", c, err)
	}
	// A currentContext naming no context is repaired by use-context.
	path, getenv = writeConfig(t, "apiVersion: botkit.dev/v1\nkind: Config\ncurrentContext: gone\ncontexts:\n  - name: a\n")
	if _, err := Load(getenv, ""); err == nil || !strings.Contains(err.Error(), path+":3: currentContext \"gone\" names no context (contexts: a)") {
		t.Fatalf("dangling currentContext: %v", err)
	}
	if err := Update(path, func(f *File) error { f.CurrentContext = "a"; return nil }); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(getenv, ""); err != nil || c.Context != "a" {
		t.Fatalf("after use-context: %+v %v", c, err)
	}
}

// A file with contexts but no current one selects none: a command that
// needs a platform is refused (exit 2), never sent to a hidden embedded
// platform; BOTKIT_API_URL or --context choose one.
func TestNoCurrentContext(t *testing.T) {
	_, getenv := writeConfig(t, "apiVersion: botkit.dev/v1\nkind: Config\ncontexts:\n  - name: prod\n    apiUrl: https://api.example.com\n")
	c, err := Load(getenv, "")
	if err != nil || c.Context != "" {
		t.Fatalf("Load: %+v %v", c, err)
	}
	var ne *NoContextError
	for _, err := range []error{c.CheckSelected(), c.CheckEmbedded()} {
		if !errors.As(err, &ne) || ne.ErrorCode() != resources.CodeInvalid || !strings.Contains(err.Error(), "no current context in ") || !strings.Contains(err.Error(), "(contexts: prod): choose one with `botkit config use-context NAME`") {
			t.Errorf("no current context: %v", err)
		}
	}
	if c, err := Load(getenv, "prod"); err != nil || c.CheckSelected() != nil || c.Embedded() {
		t.Errorf("--context prod: %+v %v", c, err)
	}
}

// The first context written on a fresh machine keeps the embedded one,
// "local", listed and current: nothing changes platform behind the user's
// back, and `use-context local` goes back to it after a login.
func TestFirstContextKeepsLocal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "botkit", FileName)
	err := Update(path, func(f *File) error {
		f.Upsert(Context{Name: "prod", APIURL: "https://api.example.com"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil || f.CurrentContext != LocalContext || !slices.Equal(f.Names(), []string{LocalContext, "prod"}) || !f.Find(LocalContext).Embedded() {
		t.Fatalf("%+v %v", f, err)
	}
	// Deleting every context is a fresh machine again.
	if err := Update(path, func(f *File) error { f.Remove("prod"); f.Remove(LocalContext); return nil }); err != nil {
		t.Fatal(err)
	}
	if f, err := ReadFile(path); err != nil || f.CurrentContext != LocalContext || !slices.Equal(f.Names(), []string{LocalContext}) {
		t.Fatalf("no context left: %+v %v", f, err)
	}
}

// Concurrent read-modify-writes of the file (separate lock files
// descriptions, as separate processes have) all keep their change.
func TestUpdateConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = Update(path, func(f *File) error {
				f.Upsert(Context{Name: fmt.Sprintf("c%02d", i)})
				return nil
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil || len(f.Contexts) != n+1 {
		t.Fatalf("%d contexts of %d: %v %v", len(f.Contexts), n+1, f.Names(), err)
	}
	// An error of the change writes nothing.
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Update(path, func(f *File) error { f.Remove("c00"); return boom }); err != boom {
		t.Fatalf("error: %v", err)
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Errorf("a failed change was written (%v)", err)
	}
}

// A config.yaml that is a symbolic link (a dotfiles repository) stays one:
// the write goes to its target.
func TestSaveKeepsSymlink(t *testing.T) {
	dir := t.TempDir()
	dotfiles := filepath.Join(dir, "dotfiles")
	if err := os.Mkdir(dotfiles, 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dotfiles, "botkit.yaml")
	cfgDir := filepath.Join(dir, "cfg")
	if err := os.Mkdir(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfgDir, FileName)
	if err := os.Symlink("../dotfiles/botkit.yaml", path); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if err := Update(path, func(f *File) error { f.Upsert(Context{Name: name}); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("config.yaml is no longer a link: %v %v", fi.Mode(), err)
	}
	f, err := ReadFile(target)
	if err != nil || !slices.Equal(f.Names(), []string{LocalContext, "a", "b"}) {
		t.Fatalf("the target: %+v %v", f, err)
	}
}

// BOTKIT_TOKEN goes to the platform it is meant for: BOTKIT_API_URL's, else
// the current context's. --context (or BOTKIT_CONTEXT) naming a context on
// another host does not get it; naming the embedded one is no mistake.
func TestEnvTokenGoesWhereMeant(t *testing.T) {
	path, _ := writeConfig(t, "apiVersion: botkit.dev/v1\nkind: Config\ncurrentContext: staging\ncontexts:\n"+
		"  - name: staging\n    apiUrl: https://staging.example.com\n"+
		"  - name: staging-other-org\n    apiUrl: https://staging.example.com\n    organization: other\n"+
		"  - name: prod\n    apiUrl: https://api.example.com\n  - name: local\n")
	e := map[string]string{EnvConfigDir: filepath.Dir(path), "HOME": filepath.Dir(path), EnvToken: "bkp_staging"}
	cases := []struct {
		flag, envContext, apiURL string
		sent                     bool
	}{
		{"", "", "", true},
		{"staging", "", "", true},
		{"staging-other-org", "", "", true}, // the same host
		{"prod", "", "", false},
		{"", "prod", "", false},
		{"prod", "", "https://api.example.com", true}, // BOTKIT_API_URL names it
	}
	for _, c := range cases {
		e[EnvContext], e[EnvAPIURL] = c.envContext, c.apiURL
		cfg, err := Load(env(e), c.flag)
		if err != nil {
			t.Fatal(err)
		}
		if sent := cfg.EnvToken == "bkp_staging"; sent != c.sent || (!sent && (!cfg.EnvTokenWithheld || cfg.EnvTokenFor != "the current context staging's platform (staging.example.com)")) {
			t.Errorf("%+v: EnvToken %q withheld %v", c, cfg.EnvToken, cfg.EnvTokenWithheld)
		}
	}
	e[EnvContext], e[EnvAPIURL] = "", ""
	for _, flag := range []string{"local"} {
		cfg, err := Load(env(e), flag)
		if err != nil || cfg.CheckEmbedded() != nil {
			t.Errorf("--context %s with BOTKIT_TOKEN: %v %v", flag, err, cfg.CheckEmbedded())
		}
	}
	e[EnvContext] = "local"
	if cfg, err := Load(env(e), ""); err != nil || cfg.CheckEmbedded() != nil {
		t.Errorf("BOTKIT_CONTEXT=local with BOTKIT_TOKEN: %v", err)
	}
	// The current context being the embedded one, nothing chose it for
	// this command: the guard stays (a CI job whose BOTKIT_API_URL is empty).
	e[EnvContext] = ""
	path2, _ := writeConfig(t, "")
	e[EnvConfigDir] = filepath.Dir(path2)
	if cfg, err := Load(env(e), ""); err != nil || cfg.CheckEmbedded() == nil {
		t.Errorf("BOTKIT_TOKEN, no platform: %v", err)
	}
}

package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// memStore stands in for the OS keyring in these run tests (the keyring
// itself is tested in pkg/credentials and end to end in cmd/botkit).
type memStore map[string]string

func (m memStore) Get(h string) (string, error) {
	if t, ok := m[h]; ok {
		return t, nil
	}
	return "", credentials.ErrNotFound
}
func (m memStore) Set(h, t string) error { m[h] = t; return nil }
func (m memStore) Delete(h string) error {
	if _, ok := m[h]; !ok {
		return credentials.ErrNotFound
	}
	delete(m, h)
	return nil
}

// downStore is a keyring that cannot be reached.
type downStore struct{}

func (downStore) Get(string) (string, error) {
	return "", &credentials.UnavailableError{Err: errors.New("no bus")}
}
func (downStore) Set(string, string) error {
	return &credentials.UnavailableError{Err: errors.New("no bus")}
}
func (downStore) Delete(string) error {
	return &credentials.UnavailableError{Err: errors.New("no bus")}
}

type env struct {
	url, token, host string
	cfgDir           string
	getenv           map[string]string
}

// setup runs the real platform over HTTP on 127.0.0.1 with an organization
// and a token.
func setup(t *testing.T) *env {
	t.Helper()
	url, srv := platformtest.Start(t, platform.Options{DisableProvisioner: true})
	platformtest.CreateOrg(t, srv, "acme", "")
	tok := platformtest.CreateToken(t, srv, "acme", "dev")
	e := &env{url: url, token: tok, host: strings.TrimPrefix(url, "http://"), cfgDir: t.TempDir()}
	e.getenv = map[string]string{"HOME": t.TempDir(), config.EnvConfigDir: e.cfgDir}
	return e
}

func (e *env) config() (*config.Config, error) {
	return config.Load(func(k string) string { return e.getenv[k] }, "")
}

func newClient(baseURL, token string, ca client.CAFile) (*client.Client, error) {
	return client.New(client.Options{BaseURL: baseURL, Token: token, CA: ca})
}

func TestLoginWithTokenStoresInKeyringOnly(t *testing.T) {
	e := setup(t)
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(e.token + "\n")
	store := memStore{}
	err := runLogin(context.Background(), &LoginOptions{IO: ios, Config: e.config, Credentials: store, NewClient: newClient, APIURL: e.url, WithToken: true})
	if err != nil {
		t.Fatal(err)
	}
	if store[e.host] != e.token {
		t.Fatalf("keyring: %v", store)
	}
	cfg, err := e.config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIURL != e.url || cfg.Organization != "acme" || len(cfg.File.Tokens) != 0 || cfg.Context != cfg.File.CurrentContext || cfg.Context != strings.TrimPrefix(e.url, "http://") {
		t.Fatalf("config: %+v", cfg.File)
	}
	b, err := os.ReadFile(filepath.Join(e.cfgDir, config.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), e.token) || strings.Contains(out.String()+errOut.String(), e.token) {
		t.Fatal("the token leaked into the config file or the output")
	}
	if !strings.Contains(out.String(), "Logged in to "+e.url+" as dev") || errOut.Len() != 0 {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}

	// status reads it back from the keyring.
	ios, _, out, _ = iostreams.Test()
	if err := runStatus(context.Background(), &StatusOptions{IO: ios, Config: e.config, Credentials: store, NewClient: newClient}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Token:        keyring (service botkit:" + e.host + ")", "User:         dev", "Organization: acme"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	// logout removes it; status is then exit 4.
	ios, _, out, _ = iostreams.Test()
	if err := runLogout(context.Background(), &LogoutOptions{IO: ios, Config: e.config, Credentials: store}); err != nil {
		t.Fatal(err)
	}
	if _, ok := store[e.host]; ok || !strings.Contains(out.String(), "removed the token from the keyring") {
		t.Fatalf("logout: %v %q", store, out)
	}
	ios, _, _, _ = iostreams.Test()
	err = runStatus(context.Background(), &StatusOptions{IO: ios, Config: e.config, Credentials: store, NewClient: newClient})
	if cmdutil.ExitCode(err) != cmdutil.ExitAuth || !errors.Is(err, cloudutil.ErrNotLoggedIn) {
		t.Fatalf("status after logout: %v", err)
	}
}

func TestLoginPromptsOnlyOnATerminal(t *testing.T) {
	e := setup(t)
	store := memStore{}
	// No terminal: exit 2 naming --with-token, nothing asked.
	ios, _, _, _ := iostreams.Test()
	fake := prompter.NewFake(t)
	err := runLogin(context.Background(), &LoginOptions{IO: ios, Config: e.config, Credentials: store, NewClient: newClient,
		Prompter: func(bool) prompter.Prompter { return fake }, APIURL: e.url})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--with-token") {
		t.Fatalf("no terminal: %v", err)
	}
	// A terminal: a hidden prompt.
	ios, _, _, _ = iostreams.Test()
	ios.SetStdinTTY(true)
	ios.SetStderrTTY(true)
	ios.SetStdoutTTY(true)
	fake = prompter.NewFake(t, prompter.Answer{Match: "--with-token", Value: e.token})
	err = runLogin(context.Background(), &LoginOptions{IO: ios, Config: e.config, Credentials: store, NewClient: newClient,
		Prompter: func(bool) prompter.Prompter { return fake }, APIURL: e.url})
	if err != nil || store[e.host] != e.token {
		t.Fatalf("prompted login: %v %v", err, store)
	}
	if q := fake.Asked(); len(q) != 1 || q[0].Kind != "password" {
		t.Fatalf("asked %+v", q)
	}
}

func TestLoginRefusals(t *testing.T) {
	e := setup(t)
	cases := []struct {
		name  string
		opts  LoginOptions
		stdin string
		exit  int
		msg   string
	}{
		{"no url", LoginOptions{WithToken: true}, "x", cmdutil.ExitUsage, "--api-url is required"},
		{"bad url", LoginOptions{APIURL: "not a url", WithToken: true}, "x", cmdutil.ExitUsage, "--api-url"},
		{"empty stdin", LoginOptions{APIURL: e.url, WithToken: true}, "\n\n", cmdutil.ExitUsage, "no token on standard input"},
		{"two lines", LoginOptions{APIURL: e.url, WithToken: true}, "a\nb\n", cmdutil.ExitUsage, "more than one line"},
		{"refused", LoginOptions{APIURL: e.url, WithToken: true}, "bkp_" + strings.Repeat("Z", 52), cmdutil.ExitAuth, "refused the token"},
		{"unreachable", LoginOptions{APIURL: "http://127.0.0.1:9", WithToken: true}, e.token, cmdutil.ExitError, "cannot reach the platform at 127.0.0.1:9"},
	}
	for _, c := range cases {
		ios, in, out, _ := iostreams.Test()
		in.WriteString(c.stdin)
		store := memStore{}
		o := c.opts
		o.IO, o.Config, o.Credentials, o.NewClient = ios, e.config, store, newClient
		err := runLogin(context.Background(), &o)
		if cmdutil.ExitCode(err) != c.exit || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: exit %d %v", c.name, cmdutil.ExitCode(err), err)
		}
		if len(store) != 0 || out.Len() != 0 {
			t.Errorf("%s: stored %v, printed %q", c.name, store, out)
		}
		if _, err := os.Stat(filepath.Join(e.cfgDir, config.FileName)); err == nil {
			t.Errorf("%s: config file written", c.name)
		}
		if strings.Contains(err.Error(), e.token) {
			t.Errorf("%s: the error holds the token", c.name)
		}
	}
}

// No keyring: --secure-storage is exit 4 naming the flag, nothing written;
// without it the token falls back to the 0600 config file (the one storage
// of --insecure-storage), with a warning naming the file; with
// --insecure-storage it goes there with its own warning.
func TestLoginWithoutKeyring(t *testing.T) {
	e := setup(t)
	ios, in, _, _ := iostreams.Test()
	in.WriteString(e.token)
	err := runLogin(context.Background(), &LoginOptions{IO: ios, Config: e.config, Credentials: downStore{}, NewClient: newClient, APIURL: e.url, WithToken: true, SecureStorage: true})
	if err == nil || cmdutil.ExitCode(err) != cmdutil.ExitAuth || !strings.HasPrefix(err.Error(), "--secure-storage: the OS keyring is not available (no bus): nothing was stored") || strings.Contains(err.Error(), e.token) {
		t.Fatalf("%v", err)
	}
	if _, err := os.Stat(filepath.Join(e.cfgDir, config.FileName)); err == nil {
		t.Fatal("config file written")
	}
	ios, in, _, _ = iostreams.Test()
	in.WriteString(e.token)
	if err := runLogin(context.Background(), &LoginOptions{IO: ios, Config: e.config, Credentials: downStore{}, NewClient: newClient, APIURL: e.url, WithToken: true, SecureStorage: true, InsecureStorage: true}); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(fmt.Sprint(err), "--secure-storage and --insecure-storage") {
		t.Fatalf("both flags: %v", err)
	}
	for _, insecure := range []bool{false, true} {
		ios, in, out, errOut := iostreams.Test()
		in.WriteString(e.token)
		if err := runLogin(context.Background(), &LoginOptions{IO: ios, Config: e.config, Credentials: downStore{}, NewClient: newClient, APIURL: e.url, WithToken: true, InsecureStorage: insecure}); err != nil {
			t.Fatal(err)
		}
		cfg, err := e.config()
		if err != nil {
			t.Fatal(err)
		}
		want := "warning: no OS keyring here (no bus), so the token is stored in clear in " + cfg.Path + " (mode 0600)"
		if insecure {
			want = "warning: the token is stored in clear in " + cfg.Path
		}
		if !strings.HasPrefix(errOut.String(), want) || !strings.Contains(out.String(), "token stored in the config file "+cfg.Path) {
			t.Fatalf("insecure-storage %v: stderr %q, stdout %q", insecure, errOut, out)
		}
	}
	cfg, err := e.config()
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(cfg.Path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FileToken != e.token || st.Mode().Perm() != 0o600 {
		t.Fatalf("file token %v mode %v", cfg.FileToken != "", st.Mode())
	}
	// status says where it comes from; logout removes it.
	ios, _, out, _ := iostreams.Test()
	if err := runStatus(context.Background(), &StatusOptions{IO: ios, Config: e.config, Credentials: downStore{}, NewClient: newClient}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Token:        file (") {
		t.Fatalf("status: %s", out)
	}
	ios, _, _, _ = iostreams.Test()
	if err := runLogout(context.Background(), &LogoutOptions{IO: ios, Config: e.config, Credentials: downStore{}}); err != nil {
		t.Fatal(err)
	}
	if cfg, err := e.config(); err != nil || cfg.FileToken != "" || len(cfg.File.Tokens) != 0 || cfg.APIURL != e.url {
		t.Fatalf("after logout: %+v", cfg.File)
	}
}

func TestEmbeddedStatusAndLogout(t *testing.T) {
	e := setup(t)
	ios, _, out, _ := iostreams.Test()
	if err := runStatus(context.Background(), &StatusOptions{IO: ios, Config: e.config, Credentials: downStore{}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "embedded local platform") || !strings.Contains(out.String(), "Organization: local") {
		t.Fatalf("%s", out)
	}
	ios, _, out, _ = iostreams.Test()
	if err := runLogout(context.Background(), &LogoutOptions{IO: ios, Config: e.config, Credentials: downStore{}}); err != nil || !strings.Contains(out.String(), "Nothing to do") {
		t.Fatalf("%v %s", err, out)
	}
}

// A server whose user and organization names carry terminal escapes (a
// clipboard write, a screen clear): login and status print them with the
// control characters replaced, never raw.
func TestServerStringsReachTheTerminalSafe(t *testing.T) {
	const hostileUser = "ev\x1b]52;c;aGVsbG8=\x07il"
	const hostileOrg = "ac\x1b[2J\u009b31mme"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resources.Me{User: hostileUser, Organizations: []resources.Organization{{Name: hostileOrg, DefaultRegion: "eu-central"}}}) // error ignored: the client reports a broken answer
	}))
	t.Cleanup(srv.Close)
	cfgDir := t.TempDir()
	getenv := map[string]string{"HOME": t.TempDir(), config.EnvConfigDir: cfgDir}
	loadConfig := func() (*config.Config, error) { return config.Load(func(k string) string { return getenv[k] }, "") }
	store := memStore{}

	ios, in, out, errOut := iostreams.Test()
	in.WriteString("bkp_x\n")
	if err := runLogin(context.Background(), &LoginOptions{IO: ios, Config: loadConfig, Credentials: store, NewClient: newClient, APIURL: srv.URL, WithToken: true}); err != nil {
		t.Fatal(err)
	}
	ios2, _, out2, errOut2 := iostreams.Test()
	if err := runStatus(context.Background(), &StatusOptions{IO: ios2, Config: loadConfig, Credentials: store, NewClient: newClient}); err != nil {
		t.Fatal(err)
	}
	all := out.String() + errOut.String() + out2.String() + errOut2.String()
	if strings.ContainsAny(all, "\x1b\x07\u009b") {
		t.Fatalf("a control character reached the terminal: %q", all)
	}
	for _, want := range []string{"as ev ]52;c;aGVsbG8= il", "Organization: ac [2J 31mme"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("login output lacks %q: %q", want, out)
		}
	}
}

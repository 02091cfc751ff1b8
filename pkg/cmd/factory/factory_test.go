package factory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// emptyStore is a keyring holding nothing (the keyring itself is tested in
// pkg/credentials).
type emptyStore struct{}

func (emptyStore) Get(string) (string, error) { return "", credentials.ErrNotFound }
func (emptyStore) Set(string, string) error   { return nil }
func (emptyStore) Delete(string) error        { return credentials.ErrNotFound }

func newFactory(t *testing.T, env map[string]string) *cloudutil.Factory {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	f := New(ios)
	f.Getenv = func(k string) string { return env[k] }
	f.Credentials = emptyStore{}
	t.Cleanup(func() { _ = f.Close() }) // error ignored: closing what the test opened; it asserted already
	return f
}

// A fresh HOME: the embedded platform under $XDG_DATA_HOME/botkit (default
// ~/.local/share/botkit), organization "local", one client per invocation.
func TestEmbeddedOnAFreshHome(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	f := newFactory(t, map[string]string{"HOME": home})
	c, err := f.APIClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c2, err := f.APIClient(ctx); err != nil || c2 != c || !c.Embedded() {
		t.Fatal("a second APIClient call opened another client, or not the embedded one")
	}
	if _, err := c.Regions(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(home, ".local", "share", "botkit", sqlite.DatabaseFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("database: %v %v", err, st)
	}
	for flag, want := range map[string]string{"": "local", "team": "team"} {
		if org, err := f.Organization(ctx, flag); err != nil || org != want {
			t.Errorf("Organization(%q) = %q %v, want %q", flag, org, err, want)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".config")); err == nil {
		t.Error("using the embedded platform wrote a config directory")
	}
}

func TestOrganizationAndRegionOrder(t *testing.T) {
	ctx := context.Background()
	cfgDir := t.TempDir()
	// A remote platform (BOTKIT_ORG without one is refused: see
	// TestCheckEmbedded); the organization is chosen without asking it.
	if err := config.Save(filepath.Join(cfgDir, config.FileName), config.File{CurrentContext: "p", Contexts: []config.Context{{Name: "p", APIURL: "https://platform.example", Organization: "from-file", Region: "eu-central"}}}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": t.TempDir(), config.EnvConfigDir: cfgDir}
	f := newFactory(t, env)
	expect := func(what, got, want string, err error) {
		t.Helper()
		if err != nil || got != want {
			t.Errorf("%s: %q (%v), want %q", what, got, err, want)
		}
	}
	org, err := f.Organization(ctx, "")
	expect("organization from the config file", org, "from-file", err)
	r, err := f.Region("")
	expect("region from the config file", r, "eu-central", err)
	r, err = f.Region("ap-south")
	expect("region from the flag", r, "ap-south", err)
	env[config.EnvOrg] = "from-env"
	f = newFactory(t, env)
	org, err = f.Organization(ctx, "")
	expect("organization from the environment", org, "from-env", err)
	org, err = f.Organization(ctx, "from-flag")
	expect("organization from the flag", org, "from-flag", err)
}

// A token or an organization in the environment without a platform URL is
// refused (exit 2 naming BOTKIT_API_URL) instead of reaching the embedded
// platform; BOTKIT_ORG=local, the embedded platform's own, is fine.
func TestCheckEmbedded(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		env  map[string]string
		want string // "" = accepted
	}{
		{map[string]string{config.EnvToken: "bkp_x"}, "BOTKIT_TOKEN is set but no platform is: set BOTKIT_API_URL"},
		{map[string]string{config.EnvOrg: "acme"}, "BOTKIT_ORG=acme is set but no platform is: set BOTKIT_API_URL"},
		{map[string]string{config.EnvOrg: "local"}, ""},
		{map[string]string{}, ""},
	} {
		env := map[string]string{"HOME": t.TempDir()}
		for k, v := range tc.env {
			env[k] = v
		}
		f := newFactory(t, env)
		_, err := f.Organization(ctx, "")
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.env, err)
			}
			continue
		}
		if err == nil || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want exit 2 saying %q", tc.env, err, tc.want)
		}
	}
}

// A remote platform: the token's only organization when none is chosen; no
// token at all is exit 4 saying how to log in.
func TestRemote(t *testing.T) {
	ctx := context.Background()
	url, srv := platformtest.Start(t, platform.Options{DisableProvisioner: true})
	platformtest.CreateOrg(t, srv, "acme", "")
	tok := platformtest.CreateToken(t, srv, "acme", "dev")

	env := map[string]string{"HOME": t.TempDir(), config.EnvAPIURL: url, config.EnvToken: tok}
	f := newFactory(t, env)
	if org, err := f.Organization(ctx, ""); err != nil || org != "acme" {
		t.Fatalf("only organization: %q %v", org, err)
	}
	c, err := f.APIClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Embedded() || c.BaseURL() != url {
		t.Fatalf("client of %q", c.BaseURL())
	}

	delete(env, config.EnvToken)
	f = newFactory(t, env)
	_, err = f.APIClient(ctx)
	if !errors.Is(err, cloudutil.ErrNotLoggedIn) || cmdutil.ExitCode(err) != cmdutil.ExitAuth {
		t.Fatalf("no token: %v", err)
	}
	env[config.EnvToken] = "bkp_" + "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"
	f = newFactory(t, env)
	_, err = f.Organization(ctx, "")
	var ae *resources.Error
	if !errors.As(err, &ae) || cmdutil.ExitCode(err) != cmdutil.ExitAuth {
		t.Fatalf("refused token: %v", err)
	}
	if want := "the token in BOTKIT_TOKEN was refused"; !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
}

// The first command that uses the embedded platform on a terminal says so
// on stderr, once: where its data lives and how to log in to a remote one.
// Without a terminal, or under CI, nothing is said and no marker written,
// so the first command run by hand still says it.
func TestEmbeddedNoticeOnce(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	dataDir := filepath.Join(home, ".local", "share", "botkit")
	marker := filepath.Join(dataDir, NoticeFile)
	run := func(stderrTTY, ci bool) string {
		t.Helper()
		ios, _, _, errOut := iostreams.Test()
		ios.SetStdinTTY(stderrTTY)
		ios.SetStdoutTTY(stderrTTY)
		ios.SetStderrTTY(stderrTTY)
		ios.SetCI(ci)
		f := New(ios)
		f.Getenv = func(k string) string { return map[string]string{"HOME": home}[k] }
		f.Credentials = emptyStore{}
		c, err := f.APIClient(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Regions(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := f.APIClient(ctx); err != nil { // the same client: no second notice
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return errOut.String()
	}
	for _, c := range []struct {
		name          string
		stderrTTY, ci bool
	}{{"no terminal", false, false}, {"CI", true, true}} {
		if got := run(c.stderrTTY, c.ci); got != "" {
			t.Errorf("%s: stderr %q", c.name, got)
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the marker was written (%v)", c.name, err)
		}
	}
	want := "Using the embedded local platform: its data is in " + dataDir + " (organization local).\nTo use a remote platform instead, run `botkit auth login --api-url URL`. (Shown once.)\n"
	if got := run(true, false); got != want {
		t.Errorf("first use on a terminal: stderr %q, want %q", got, want)
	}
	if st, err := os.Stat(marker); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("marker: %v %v", st, err)
	}
	if got := run(true, false); got != "" {
		t.Errorf("second use: stderr %q", got)
	}
	// A remote platform says nothing.
	cfgDir := t.TempDir()
	if err := config.Save(filepath.Join(cfgDir, config.FileName), config.File{CurrentContext: "p", Contexts: []config.Context{{Name: "p", APIURL: "https://platform.example"}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	ios, _, _, errOut := iostreams.Test()
	ios.SetStderrTTY(true)
	f := New(ios)
	f.Getenv = func(k string) string {
		return map[string]string{"HOME": home, config.EnvConfigDir: cfgDir, config.EnvToken: "bkp_x"}[k]
	}
	f.Credentials = emptyStore{}
	if _, err := f.APIClient(ctx); err != nil {
		t.Fatal(err)
	}
	if errOut.Len() != 0 {
		t.Errorf("a remote platform: stderr %q", errOut)
	}
}

package factory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
)

// emptyStore is a keyring holding nothing (the keyring itself is tested in
// pkg/credentials).
type emptyStore struct{}

func (emptyStore) Get(string) (string, error) { return "", credentials.ErrNotFound }
func (emptyStore) Set(string, string) error   { return nil }
func (emptyStore) Delete(string) error        { return credentials.ErrNotFound }

func newFactory(t *testing.T, env map[string]string) *cmdutil.Factory {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	f := New(ios)
	f.Getenv = func(k string) string { return env[k] }
	f.Credentials = emptyStore{}
	t.Cleanup(func() { f.Close() })
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
	if c2, _ := f.APIClient(ctx); c2 != c || !c.Embedded() {
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
	if err := config.Save(filepath.Join(cfgDir, config.FileName), config.File{Organization: "from-file", Region: "eu-central"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": t.TempDir(), config.EnvConfigDir: cfgDir}
	f := newFactory(t, env)
	if org, _ := f.Organization(ctx, ""); org != "from-file" {
		t.Errorf("config: %q", org)
	}
	if r, _ := f.Region(""); r != "eu-central" {
		t.Errorf("region from config: %q", r)
	}
	if r, _ := f.Region("ap-south"); r != "ap-south" {
		t.Errorf("region flag: %q", r)
	}
	env[config.EnvOrg] = "from-env"
	f = newFactory(t, env)
	if org, _ := f.Organization(ctx, ""); org != "from-env" {
		t.Errorf("env: %q", org)
	}
	if org, _ := f.Organization(ctx, "from-flag"); org != "from-flag" {
		t.Errorf("flag: %q", org)
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
	c, _ := f.APIClient(ctx)
	if c.Embedded() || c.BaseURL() != url {
		t.Fatalf("client of %q", c.BaseURL())
	}

	delete(env, config.EnvToken)
	f = newFactory(t, env)
	_, err := f.APIClient(ctx)
	if !errors.Is(err, cmdutil.ErrNotLoggedIn) || cmdutil.ExitCode(err) != cmdutil.ExitAuth {
		t.Fatalf("no token: %v", err)
	}
	env[config.EnvToken] = "bkp_" + "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"
	f = newFactory(t, env)
	_, err = f.Organization(ctx, "")
	var ae *client.APIError
	if !errors.As(err, &ae) || cmdutil.ExitCode(err) != cmdutil.ExitAuth {
		t.Fatalf("refused token: %v", err)
	}
	if want := "the token in BOTKIT_TOKEN was refused"; !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
}

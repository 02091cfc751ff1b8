package organizations

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// env is a real platform over HTTP on 127.0.0.1 with organization acme
// (default region eu-central) and a token of it, and a config directory.
type env struct {
	cfgDir string
	getenv map[string]string
	client func(context.Context) (*client.Client, error)
}

func setup(t *testing.T) *env {
	t.Helper()
	url, srv := platformtest.Start(t, platform.Options{DisableProvisioner: true})
	platformtest.CreateOrg(t, srv, "acme", "eu-central")
	tok := platformtest.CreateToken(t, srv, "acme", "dev")
	c, err := client.New(client.Options{BaseURL: url, Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{cfgDir: t.TempDir()}
	e.getenv = map[string]string{"HOME": t.TempDir(), config.EnvConfigDir: e.cfgDir}
	e.client = func(context.Context) (*client.Client, error) { return c, nil }
	return e
}

func (e *env) config() (*config.Config, error) {
	return config.Load(func(k string) string { return e.getenv[k] }, "")
}

func TestListMarksTheCurrentOrganization(t *testing.T) {
	e := setup(t)
	ios, _, out, errOut := iostreams.Test()
	if err := runList(context.Background(), &ListOptions{IO: ios, Config: e.config, APIClient: e.client, Print: &printers.Flags{Output: "table"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME") || strings.Join(strings.Fields(lines[1]), " ") != "acme eu-central *" || errOut.Len() != 0 {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}

	ios, _, out, _ = iostreams.Test()
	if err := runList(context.Background(), &ListOptions{IO: ios, Config: e.config, APIClient: e.client, Print: &printers.Flags{Output: "json"}}); err != nil {
		t.Fatal(err)
	}
	var got OrganizationList
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Items) != 1 || got.Items[0] != (Organization{Name: "acme", DefaultRegion: "eu-central", Current: true}) {
		t.Fatalf("json: %+v", got)
	}
}

func TestListRefusesAnUnknownFormatBeforeAnyRequest(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	called := false
	err := runList(context.Background(), &ListOptions{IO: ios, Print: &printers.Flags{Output: "xml"},
		Config:    func() (*config.Config, error) { called = true; return nil, nil },
		APIClient: func(context.Context) (*client.Client, error) { called = true; return nil, nil }})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || called || out.Len() != 0 {
		t.Fatalf("err %v called %v stdout %q", err, called, out)
	}
}

func TestSelectWritesTheConfigOrExits3(t *testing.T) {
	e := setup(t)
	ios, _, out, _ := iostreams.Test()
	err := runSelect(context.Background(), &SelectOptions{IO: ios, Config: e.config, APIClient: e.client, Name: "nope"})
	if cmdutil.ExitCode(err) != cmdutil.ExitNotFound || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "acme") {
		t.Fatalf("unknown organization: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(e.cfgDir, config.FileName)); !os.IsNotExist(statErr) {
		t.Fatalf("a refused select wrote the config: %v", statErr)
	}

	if err := runSelect(context.Background(), &SelectOptions{IO: ios, Config: e.config, APIClient: e.client, Name: "acme"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := e.config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Organization != "acme" || cfg.SelectedContext().Organization != "acme" || !strings.Contains(out.String(), "Current organization: acme") {
		t.Fatalf("config %+v stdout %q", cfg.File, out)
	}
	st, err := os.Stat(filepath.Join(e.cfgDir, config.FileName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v", st, err)
	}
}

func TestSelectWarnsWhenTheEnvironmentWins(t *testing.T) {
	e := setup(t)
	e.getenv[config.EnvOrg] = "other"
	ios, _, _, errOut := iostreams.Test()
	if err := runSelect(context.Background(), &SelectOptions{IO: ios, Config: e.config, APIClient: e.client, Name: "acme"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "warning: BOTKIT_ORG=other is set in this environment and wins over the config file") {
		t.Fatalf("stderr %q", errOut)
	}
}

// A server whose organization names carry terminal escapes: list (table)
// and select print them with the control characters replaced, never raw.
func TestServerNamesReachTheTerminalSafe(t *testing.T) {
	const hostile = "ac\x1b]52;c;aGVsbG8=\x07\x1b[2Jme"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resources.Me{User: "dev", Organizations: []resources.Organization{{Name: hostile, DefaultRegion: "eu\x1b[2J"}}}) // error ignored: the client reports a broken answer
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Options{BaseURL: srv.URL, Token: "bkp_x"})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{cfgDir: t.TempDir(), client: func(context.Context) (*client.Client, error) { return c, nil }}
	e.getenv = map[string]string{"HOME": t.TempDir(), config.EnvConfigDir: e.cfgDir}
	ios, _, out, errOut := iostreams.Test()
	if err := runList(context.Background(), &ListOptions{IO: ios, Config: e.config, APIClient: e.client, Print: &printers.Flags{Output: "table"}}); err != nil {
		t.Fatal(err)
	}
	if err := runSelect(context.Background(), &SelectOptions{IO: ios, Config: e.config, APIClient: e.client, Name: hostile}); err != nil {
		t.Fatal(err)
	}
	all := out.String() + errOut.String()
	if strings.ContainsAny(all, "\x1b\x07") || !strings.Contains(all, "Current organization: ac ]52;c;aGVsbG8=  [2Jme") {
		t.Fatalf("output %q", all)
	}
}

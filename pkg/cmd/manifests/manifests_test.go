package manifests

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const canary = "CANARY-v4lu3-7f3a9c"

// env is a real platform (SQLite in a temp dir) over real HTTP on
// 127.0.0.1, with organizations "acme" (the current one) and "beta"; the
// client counts the requests it sends.
type env struct {
	t        *testing.T
	c        *client.Client
	requests atomic.Int32
	ios      *iostreams.IOStreams
	in       *bytes.Buffer
	out      *bytes.Buffer
	errOut   *bytes.Buffer
	dir      string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	url, srv := platformtest.Start(t, platform.Options{PollInterval: 20 * time.Millisecond, AllowPrivateRegistries: true})
	platformtest.CreateOrg(t, srv, "acme", "")
	platformtest.CreateOrg(t, srv, "beta", "")
	// One token for both organizations is not a thing; the tests use
	// acme's token, and beta's objects are refused (404) as another
	// organization's.
	token := platformtest.CreateToken(t, srv, "acme", "ci")
	e := &env{t: t, dir: t.TempDir()}
	var err error
	tr := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		e.requests.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})
	if e.c, err = client.New(client.Options{BaseURL: url, Token: token, Transport: tr, PollInterval: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	e.ios, e.in, e.out, e.errOut = iostreams.Test()
	return e
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (e *env) scope(files ...string) ManifestOptions {
	return ManifestOptions{
		IO:        e.ios,
		APIClient: func(context.Context) (*client.Client, error) { return e.c, nil },
		ResolveOrg: func(_ context.Context, flag string) (string, error) {
			if flag != "" {
				return flag, nil
			}
			return "acme", nil
		},
		LookupEnv: func(k string) (string, bool) {
			if k == "KEY" {
				return canary, true
			}
			return "", false
		},
		WorkingDir: func() (string, error) { return e.dir, nil },
		Files:      files,
	}
}

func (e *env) write(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// noCanary fails when the canary value shows in the output or in err.
func (e *env) noCanary(err error) {
	e.t.Helper()
	all := e.out.String() + e.errOut.String()
	if err != nil {
		all += err.Error() + strings.Join(cmdutil.ErrorLines(err), "\n")
	}
	if strings.Contains(all, canary) {
		e.t.Fatal("the canary value shows in the output or the error")
	}
}

func set(name, extra string) string {
	return "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: " + name + extra + "}\nspec:\n  data: {K: {fromEnv: KEY}}\n---\n"
}

// Documents naming no organization go to the current one, the others to
// theirs: one request per organization; a refusal of one names its objects
// line by line and keeps the API's exit code.
func TestApplyPerOrganization(t *testing.T) {
	e := newEnv(t)
	m := e.write("m.yaml", set("a", "")+set("b", ", organization: acme")+set("c", ", organization: beta"))
	opts := &ApplyOptions{ManifestOptions: e.scope(m), DryRun: DryRunNone}
	err := runApply(context.Background(), opts)
	e.noCanary(err)
	// acme is applied (one request), beta is refused: the token is acme's.
	if got := e.out.String(); got != "secretset/a created (version 1)\nsecretset/b created (version 1)\n" {
		t.Errorf("stdout %q", got)
	}
	if code := cmdutil.ExitCode(err); code != cmdutil.ExitNotFound {
		t.Fatalf("exit %d (%v), want 3: beta is not this token's", code, err)
	}
	if n := e.requests.Load(); n != 2 {
		t.Errorf("%d requests, want one per organization (2)", n)
	}
}

// A server-side refusal of several objects lists each on its own line,
// then says nothing was applied; the code is the conflict's.
func TestApplyRefusedObjectsLines(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, n := range []string{"x", "y"} {
		if _, _, err := e.c.Merge(ctx, "acme", n, resources.Patch{Region: "us-east", Set: map[string]string{"K": canary}}, ""); err != nil {
			t.Fatal(err)
		}
	}
	m := e.write("m.yaml", set("ok", "")+set("x", ", region: eu-central")+set("y", ", region: ap-south"))
	err := runApply(ctx, &ApplyOptions{ManifestOptions: e.scope(m), DryRun: DryRunNone})
	e.noCanary(err)
	lines := cmdutil.ErrorLines(err)
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "secretset/x ") || !strings.HasPrefix(lines[1], "secretset/y ") || lines[2] != "nothing was applied in organization acme" {
		t.Fatalf("lines %q", lines)
	}
	if code := cmdutil.ExitCode(err); code != cmdutil.ExitConflict {
		t.Fatalf("exit %d, want 5", code)
	}
	if _, err := e.c.Get(ctx, "acme", "ok"); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
		t.Fatalf("ok was applied: %v", err)
	}
}

// --dry-run=client and invalid manifests never reach the platform, not even
// to resolve the organization.
func TestNothingSent(t *testing.T) {
	e := newEnv(t)
	m := e.write("m.yaml", set("a", ""))
	s := e.scope(m)
	s.APIClient = func(context.Context) (*client.Client, error) { t.Fatal("the platform was asked"); return nil, nil }
	s.ResolveOrg = func(context.Context, string) (string, error) { t.Fatal("the organization was asked"); return "", nil }
	if err := runApply(context.Background(), &ApplyOptions{ManifestOptions: s, DryRun: DryRunClient, Print: jsonOutput()}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.out.String(), `"kind": "ApplyResult"`) || !strings.Contains(e.out.String(), `"action": "validated"`) || !strings.Contains(e.out.String(), `"K"`) {
		t.Errorf("client dry run -o json: %s", e.out)
	}
	e.noCanary(nil)

	bad := e.write("bad.yaml", set("a", "")+"apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: b, colour: red}\n")
	s.Files = []string{bad}
	for name, run := range map[string]func() error{
		"apply": func() error {
			return runApply(context.Background(), &ApplyOptions{ManifestOptions: s, DryRun: DryRunNone})
		},
		"diff": func() error { return diffExit(runDiff(context.Background(), &DiffOptions{ManifestOptions: s})) },
		"delete": func() error {
			return runDelete(context.Background(), &DeleteOptions{ManifestOptions: s, DryRun: DryRunNone})
		},
	} {
		err := run()
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(strings.Join(cmdutil.ErrorLines(err), "\n"), "bad.yaml:9: unknown field \"colour\"") {
			t.Errorf("%s: %v (exit %d)", name, cmdutil.ErrorLines(err), cmdutil.ExitCode(err))
		}
	}
	if n := e.requests.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// diff: differences are exit 1 and print nothing on stderr; a runtime
// failure is 2, not 1.
func TestDiffExit(t *testing.T) {
	e := newEnv(t)
	m := e.write("m.yaml", set("a", ""))
	err := diffExit(runDiff(context.Background(), &DiffOptions{ManifestOptions: e.scope(m)}))
	if !errors.Is(err, ErrDifferences) || cmdutil.ExitCode(err) != 1 || cmdutil.ErrorLines(err) != nil {
		t.Fatalf("differences: %v", err)
	}
	if e.out.String() != "+ secretset/a\n    + K\n" {
		t.Errorf("stdout %q", e.out)
	}
	s := e.scope(m)
	dead, err := client.New(client.Options{BaseURL: "http://127.0.0.1:1", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.APIClient = func(context.Context) (*client.Client, error) { return dead, nil }
	err = diffExit(runDiff(context.Background(), &DiffOptions{ManifestOptions: s}))
	var ne *client.NetworkError
	if !errors.As(err, &ne) || cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("unreachable: %v exit %d, want 2", err, cmdutil.ExitCode(err))
	}
}

// -f - waiting on stdin ends with the interrupt (exit 130).
func TestStdinInterrupted(t *testing.T) {
	e := newEnv(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	e.ios.In = pr
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := runApply(ctx, &ApplyOptions{ManifestOptions: e.scope("-"), DryRun: DryRunNone})
	if cmdutil.ExitCode(err) != cmdutil.ExitInterrupted {
		t.Fatalf("%v, want exit 130", err)
	}
}

// --wait: a failed object is exit 1 with its own line; -o prints its final
// state.
func TestWaitFailed(t *testing.T) {
	e := newEnv(t)
	// A registry that refuses the credentials: the provisioner marks the
	// image pull secret failed.
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer reg.Close()
	m := e.write("m.yaml", set("good", "")+"apiVersion: botkit.dev/v1\nkind: ImagePullSecret\nmetadata: {name: reg}\nspec:\n  host: "+reg.URL+"\n  credentials: {fromEnv: CREDS}\n")
	s := e.scope(m)
	s.LookupEnv = func(k string) (string, bool) { return "robot:" + canary, true }
	err := runApply(context.Background(), &ApplyOptions{ManifestOptions: s, DryRun: DryRunNone, Wait: true})
	e.noCanary(err)
	if !strings.Contains(e.out.String(), "imagepullsecret/reg created") {
		t.Errorf("stdout %q", e.out)
	}
	lines := cmdutil.ErrorLines(err)
	if cmdutil.ExitCode(err) != cmdutil.ExitError || len(lines) != 1 || !strings.HasPrefix(lines[0], "imagepullsecret/reg failed: ") {
		t.Fatalf("exit %d, lines %q; want 1 and one failed line", cmdutil.ExitCode(err), lines)
	}
}

// jsonOutput is apply's -o json.
func jsonOutput() *printers.Flags {
	p := newApplyPrintFlags()
	p.Output = printers.FormatJSON
	return p
}

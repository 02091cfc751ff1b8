package deploy

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const canary = "CANARY-d3pl0y-5e1f"

type env struct {
	t      *testing.T
	c      *client.Client
	ios    *iostreams.IOStreams
	out    *bytes.Buffer
	errOut *bytes.Buffer
	target cloudutil.Target
}

func newEnv(t *testing.T, opts platform.Options) *env {
	t.Helper()
	opts.NoAuthOrg = client.EmbeddedOrg
	opts.AllowPrivateRegistries = true
	url, _ := platformtest.Start(t, opts)
	c, err := client.New(client.Options{BaseURL: url, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, c: c, target: cloudutil.DefaultTarget}
	e.ios, _, e.out, e.errOut = iostreams.Test()
	return e
}

func (e *env) terminal() {
	e.ios.SetStdinTTY(true)
	e.ios.SetStdoutTTY(true)
	e.ios.SetStderrTTY(true)
}

// opts are deploy's Options for the project at path; p answers questions
// (nil: a question fails the test).
func (e *env) opts(path string, p prompter.Prompter) *Options {
	return &Options{
		Platform: cloudutil.Platform{
			IO:         e.ios,
			APIClient:  func(context.Context) (*client.Client, error) { return e.c, nil },
			ResolveOrg: func(context.Context, string) (string, error) { return client.EmbeddedOrg, nil },
			Prompter: func() prompter.Prompter {
				if p == nil {
					e.t.Fatal("the command prompted")
				}
				return p
			},
			Target: func() (cloudutil.Target, error) { return e.target, nil },
		},
		Path:  path,
		Print: newPrintFlags(),
	}
}

// noCanary fails when the canary shows in the output or the error.
func (e *env) noCanary(err error) {
	e.t.Helper()
	text := e.out.String() + e.errOut.String()
	if err != nil {
		text += err.Error() + strings.Join(cmdutil.ErrorLines(err), "\n") + strings.Join(cmdutil.ErrorDetails(err), "\n")
	}
	if strings.Contains(text, canary) {
		e.t.Fatalf("a value leaked: %q", text)
	}
}

// project writes a project with server/cloud-deploy.toml (toml) and
// server/.env.example (KEY= lines of keys) and returns its directory.
func project(t *testing.T, toml string, keys ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "server"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server", "cloud-deploy.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	var env strings.Builder
	for _, k := range keys {
		env.WriteString(k + "=\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "server", ".env.example"), []byte(env.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A failed preflight check deploys nothing: exit 1, each failed check on
// its own line at file:line, no Agent.
func TestDeployFailedPreflightDeploysNothing(t *testing.T) {
	e := newEnv(t, platform.Options{})
	dir := project(t, `agent_name = "voice-bot"
image = "127.0.0.1:1/bots/voice:0.1"
secret_set = "voice-secrets"
`, "OPENAI_API_KEY")
	err := Run(context.Background(), e.opts(dir, nil))
	if cmdutil.ExitCode(err) != cmdutil.ExitError {
		t.Fatalf("err %v (exit %d), want exit 1", err, cmdutil.ExitCode(err))
	}
	lines := cmdutil.ErrorLines(err)
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, "preflight secret-set: "+filepath.Join(dir, "server", "cloud-deploy.toml")+":3: ") || !strings.Contains(lines[len(lines)-1], "nothing was deployed") {
		t.Errorf("error lines:\n%s", joined)
	}
	if e.out.Len() != 0 {
		t.Errorf("stdout %q", e.out)
	}
	if _, err := e.c.Agent(context.Background(), client.EmbeddedOrg, "voice-bot"); !errors.Is(err, &resources.Error{Code: resources.CodeNotFound}) {
		t.Errorf("agent after a failed preflight: %v", err)
	}
}

// Bad usage is exit 2 before anything is asked of the platform.
func TestDeployUsageErrors(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	noPlatform := cloudutil.Platform{IO: ios, APIClient: func(context.Context) (*client.Client, error) {
		t.Fatal("the command reached the platform")
		return nil, nil
	}, ResolveOrg: func(context.Context, string) (string, error) { return client.EmbeddedOrg, nil }}
	good := project(t, "agent_name = \"voice-bot\"\nimage = \"r.example/bots/voice:0.1\"\n")
	broken := project(t, "agent_name = \"voice-bot\"\nimage = \"r.example/bots/voice:0.1\"\nnot_a_key = 1\n")
	for _, tc := range []struct {
		name, path, image, output string
		skip                      bool
		target                    cloudutil.Target
		want                      string
	}{
		{name: "missing PATH", path: filepath.Join(good, "nope"), want: "PATH"},
		{name: "no deploy file", path: t.TempDir(), want: "no deploy file"},
		{name: "unknown key", path: broken, want: "cloud-deploy.toml:3"},
		{name: "--image", path: good, image: "r.example/x:1 --rm", want: "--image"},
		{name: "-o table", path: good, output: "table", want: "--output"},
		{name: "--skip in a protected context", path: good, skip: true, target: cloudutil.Target{Context: "prod", Protected: true}, want: "--context prod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := noPlatform
			p.Target = func() (cloudutil.Target, error) { return tc.target, nil }
			o := &Options{Platform: p, Path: tc.path, Image: tc.image, Skip: tc.skip, Print: newPrintFlags()}
			o.Print.Output = tc.output
			err := Run(context.Background(), o)
			if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(strings.Join(cmdutil.ErrorLines(err), "\n"), tc.want) {
				t.Fatalf("err %v (exit %d), want exit 2 naming %s", err, cmdutil.ExitCode(err), tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q", out)
			}
		})
	}
}

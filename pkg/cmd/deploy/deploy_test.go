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
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
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
	built := project(t, "agent_name = \"voice-bot\"\nbuild_id = \"b-123\"\n")
	for _, tc := range []struct {
		name, path, image, output string
		skip                      bool
		target                    cloudutil.Target
		want                      string
	}{
		{name: "missing PATH", path: filepath.Join(good, "nope"), want: "PATH"},
		{name: "no deploy file", path: t.TempDir(), want: "no deploy file"},
		{name: "unknown key", path: broken, want: "cloud-deploy.toml:3"},
		{name: "no image", path: built, want: "names no image"},
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

// registryProject is a platform without a runtime, a real registry with
// an image that only the pull secret opens, the secret set and the pull
// secret, and a project deploying that image as voice-bot.
func registryProject(t *testing.T) (*env, string) {
	t.Helper()
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), "robot", canary)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	for _, ref := range []string{"bots/voice:0.1", "bots/voice:0.2"} {
		if _, err := registrytest.Push(reg.URL, "robot", canary, ref, "linux/arm64"); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, platform.Options{})
	ctx := context.Background()
	creds := "robot:" + canary
	if _, _, err := e.c.Merge(ctx, client.EmbeddedOrg, "voice-secrets", resources.Patch{Set: map[string]string{"OPENAI_API_KEY": canary}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.c.Merge(ctx, client.EmbeddedOrg, "voice-creds", resources.Patch{Kind: resources.KindImagePullSecret, Host: host, Credentials: &creds}, ""); err != nil {
		t.Fatal(err)
	}
	dir := project(t, `agent_name = "voice-bot"
image = "`+host+`/bots/voice:0.1"
image_credentials = "voice-creds"
secret_set = "voice-secrets"
`, "OPENAI_API_KEY")
	return e, dir
}

// An update is confirmed (names what changes) or refused without a
// terminal; a "no" changes nothing; an agent in another region is a
// conflict; a region without a runtime refuses the first deployment (exit
// 1, saying how to add one) and the agent the deploy created is removed.
func TestDeployUpdates(t *testing.T) {
	e, dir := registryProject(t)
	ctx := context.Background()
	spec := func() resources.AgentSpec {
		t.Helper()
		a, err := e.c.Agent(ctx, client.EmbeddedOrg, "voice-bot")
		if err != nil {
			t.Fatal(err)
		}
		return a.Spec
	}

	// A first deploy asks nothing; without a runtime the deployment is
	// refused: exit 1, how to get one.
	err := Run(ctx, e.opts(dir, nil))
	if cmdutil.ExitCode(err) != cmdutil.ExitError || !strings.Contains(err.Error(), "has no runtime") {
		t.Fatalf("deploy without a runtime: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	e.noCanary(err)
	if _, err := e.c.Agent(ctx, client.EmbeddedOrg, "voice-bot"); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
		t.Fatalf("a refused first deploy left its agent behind: %v", err)
	}
	// The agent as it was written, for the updates below (its deployment
	// is what the region refuses).
	if _, _, err := e.c.PutAgent(ctx, client.EmbeddedOrg, resources.Agent{Metadata: resources.ObjectMeta{Name: "voice-bot"},
		Spec: resources.AgentSpec{Image: e.deployImage(t, dir), SecretSet: "voice-secrets", ImagePullSecret: "voice-creds"}}, ""); err != nil {
		t.Fatal(err)
	}
	first := spec()

	// An update without a terminal: exit 2 naming --skip, nothing changed.
	o := e.opts(dir, nil)
	o.Image = strings.Replace(first.Image, ":0.1", ":0.2", 1)
	err = Run(ctx, o)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "updating agent/voice-bot needs confirmation: pass --skip") {
		t.Fatalf("update without a terminal: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	// On a terminal it asks, naming the change; "no" changes nothing.
	e.terminal()
	p := prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: false})
	o = e.opts(dir, p)
	o.Image = strings.Replace(first.Image, ":0.1", ":0.2", 1)
	err = Run(ctx, o)
	if cmdutil.ExitCode(err) != cmdutil.ExitError {
		t.Fatalf("update answered no: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	if q := p.Asked(); len(q) != 1 || !strings.Contains(q[0].Title, "image "+first.Image+" → "+o.Image+"?") {
		t.Errorf("asked %+v", p.Asked())
	}
	if got := spec(); got.Image != first.Image {
		t.Errorf("a declined update changed the agent: %+v", got)
	}
	e.noCanary(err)

	// The agent lives in another region than the file's: exit 5 before
	// any question.
	if _, err := e.c.DeleteAgent(ctx, client.EmbeddedOrg, "voice-bot"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.c.PutAgent(ctx, client.EmbeddedOrg, resources.Agent{Metadata: resources.ObjectMeta{Name: "voice-bot", Region: "eu-central"},
		Spec: resources.AgentSpec{Image: first.Image}}, ""); err != nil {
		t.Fatal(err)
	}
	err = Run(ctx, e.opts(dir, nil))
	if cmdutil.ExitCode(err) != cmdutil.ExitConflict || !strings.Contains(err.Error(), "agent/voice-bot is in region eu-central, not us-west (the organization's default region: the deploy file names none)") {
		t.Fatalf("deploy to another region: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
}

// deployImage is the image the deploy file in dir names.
func (e *env) deployImage(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "server", "cloud-deploy.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "image = "); ok {
			return strings.Trim(v, `"`)
		}
	}
	t.Fatalf("no image in %s's deploy file", dir)
	return ""
}

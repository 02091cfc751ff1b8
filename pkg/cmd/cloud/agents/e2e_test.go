package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/deploy"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	platformruntime "github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const (
	canary  = "CANARY-4g3nt-9d2e"
	regUser = "robot"
)

// engineEnv is env with a private Docker Engine as the region's runtime and
// the test agent image (two tags) in a real docker-registry that only the
// image pull secret's credentials open.
type engineEnv struct {
	*env
	engine     *dockertest.Engine
	host       string // the registry's host:port
	img1, img2 dockertest.Image
	project    string // the project directory
	texts      []string
}

func newEngineEnv(t *testing.T, postgres bool) *engineEnv {
	t.Helper()
	return newEngineEnvWith(t, postgres, func(v *engineEnv) {
		v.img1 = v.engine.PushAgent(t, v.host, "acme/bot:1", regUser, canary, dockertest.ImageOptions{})
		v.img2 = v.engine.PushAgent(t, v.host, "acme/bot:2", regUser, canary, dockertest.ImageOptions{Healthcheck: true})
	})
}

// newEngineEnvWith is newEngineEnv with the images push pushes (img1 is
// the deploy file's).
func newEngineEnvWith(t *testing.T, postgres bool, push func(v *engineEnv)) *engineEnv {
	t.Helper()
	dockertest.Need(t)
	registrytest.Need(t)
	engine := dockertest.Start(t)
	reg, err := registrytest.Start(t.TempDir(), regUser, canary)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	v := &engineEnv{engine: engine, host: host}
	push(v)
	rt, err := docker.NewRuntime(engine.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	v.env = newEnvOn(t, postgres, platform.Options{Runtimes: map[string]platformruntime.Runtime{resources.DefaultRegion: rt},
		AgentSettle: 300 * time.Millisecond, PollInterval: 20 * time.Millisecond})

	ctx := context.Background()
	if _, _, err := v.c.Merge(ctx, client.EmbeddedOrg, "bot-secrets", resources.Patch{Set: map[string]string{
		"OPENAI_API_KEY": canary, "BOTKIT_TEST_PRINT": "OPENAI_API_KEY"}}, ""); err != nil {
		t.Fatal(err)
	}
	creds := regUser + ":" + canary
	if _, _, err := v.c.Merge(ctx, client.EmbeddedOrg, "reg-creds", resources.Patch{Kind: resources.KindImagePullSecret, Host: host,
		Credentials: &creds}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := v.c.WaitAll(ctx, client.EmbeddedOrg, []string{"bot-secrets", "reg-creds"}); err != nil {
		t.Fatal(err)
	}
	v.project = t.TempDir()
	toml := fmt.Sprintf(`agent_name = "bot"
image = "%s"
image_credentials = "reg-creds"
secret_set = "bot-secrets"

[scaling]
min_agents = 1
`, v.img1.Ref)
	for name, data := range map[string]string{"cloud-deploy.toml": toml, ".env.example": "OPENAI_API_KEY=\n"} {
		if err := os.WriteFile(filepath.Join(v.project, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// run runs a command with fresh output buffers and returns its stdout; the
// texts it printed and its error are kept for the canary check.
func (v *engineEnv) run(t *testing.T, wantExit int, f func() error) string {
	t.Helper()
	out, err := v.exec(t, f)
	if got := cmdutil.ExitCode(err); got != wantExit {
		t.Fatalf("exit %d, want %d: %v\n%s", got, wantExit, err, v.texts[len(v.texts)-1])
	}
	return out
}

// try runs a command that may not have reached the state polled for yet:
// its stdout, and whether it succeeded.
func (v *engineEnv) try(t *testing.T, f func() error) (string, bool) {
	t.Helper()
	out, err := v.exec(t, f)
	return out, err == nil
}

// exec runs a command with fresh output buffers: its stdout and error;
// what it printed (its error too) is kept in texts, and must not hold the
// canary.
func (v *engineEnv) exec(t *testing.T, f func() error) (string, error) {
	t.Helper()
	v.out.Reset()
	v.errOut.Reset()
	err := f()
	text := v.out.String() + v.errOut.String()
	if err != nil {
		text += "\n" + strings.Join(cmdutil.ErrorLines(err), "\n") + "\n" + strings.Join(cmdutil.ErrorDetails(err), "\n")
	}
	v.texts = append(v.texts, text)
	if os.Getenv("SHOW") != "" {
		t.Logf("---\n%s", text)
	}
	if strings.Contains(text, canary) {
		t.Fatalf("a secret value reached the output:\n%s", text)
	}
	return v.out.String(), err
}

// containers lists the engine's containers of agent bot (every state).
func (v *engineEnv) containers(t *testing.T) []engineContainer {
	t.Helper()
	var list []engineContainer
	q := url.Values{"all": {"1"}, "filters": {`{"label":["` + platformruntime.LabelAgent + `=bot"]}`}}
	if err := v.engine.Client.Do(context.Background(), http.MethodGet, "/containers/json", q, nil, &list); err != nil {
		t.Fatal(err)
	}
	return list
}

type engineContainer struct {
	ID     string            `json:"Id"`
	State  string            `json:"State"`
	Labels map[string]string `json:"Labels"`
}

func (v *engineEnv) deployOpts(p prompter.Prompter, image string, skip bool) *deploy.Options {
	o := &deploy.Options{Platform: v.platform(p), Path: v.project, Image: image, Skip: skip, Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML)}
	return o
}

// The journey on a real engine, over SQLite and PostgreSQL: deploy, status, logs (masked), drift,
// an update (confirmed), deployments, rollback, scale, a crashing
// deployment that leaves the serving one running, restart, delete. No
// output ever holds the secret value.
func TestAgentsEndToEnd(t *testing.T) {
	eachStore(t, testAgentsEndToEnd)
}

func testAgentsEndToEnd(t *testing.T, postgres bool) {
	v := newEngineEnv(t, postgres)
	ctx := context.Background()
	repo := v.host + "/acme/bot"

	// --dry-run prints the plan and writes nothing.
	dry := v.deployOpts(nil, "", false)
	dry.DryRun = true
	out := v.run(t, 0, func() error { return deploy.Run(ctx, dry) })
	if want := "agent/bot created (dry run)\nagent/bot deployment 1: " + v.img1.Ref + ", secret set bot-secrets version 1; its digest is resolved at deploy (dry run)\n"; out != want {
		t.Errorf("dry run printed:\n%s\nwant:\n%s", out, want)
	}
	if _, err := v.c.Agent(ctx, client.EmbeddedOrg, "bot"); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
		t.Fatalf("after a dry run: %v", err)
	}

	// A first deploy asks nothing, even without a terminal.
	out = v.run(t, 0, func() error { return deploy.Run(ctx, v.deployOpts(nil, "", false)) })
	want := regexp.MustCompile(`(?m)^agent/bot deployed: deployment 1, 1/1 agents ready \(` + regexp.QuoteMeta(repo+"@"+v.img1.Digest) + `, secret set bot-secrets version 1\)\n\z`)
	if !want.MatchString(out) {
		t.Fatalf("deploy printed:\n%s", out)
	}
	if cs := v.containers(t); len(cs) != 1 || cs[0].State != "running" || cs[0].Labels[platformruntime.LabelDeployment] != "1" {
		t.Fatalf("the engine runs %+v, want one running agent of deployment 1", cs)
	}

	// list and status.
	out = v.run(t, 0, func() error { return runList(ctx, &ListOptions{Platform: v.platform(nil), Print: printers.NewFlags()}) })
	if !regexp.MustCompile(`(?m)^bot +us-west +ready +1/1 +1 +` + regexp.QuoteMeta(v.img1.Ref) + ` `).MatchString(out) {
		t.Errorf("list:\n%s", out)
	}
	nf := printers.NewFlags()
	nf.Output = printers.FormatName
	if out = v.run(t, 0, func() error { return runList(ctx, &ListOptions{Platform: v.platform(nil), Print: nf}) }); out != "agent/bot\n" {
		t.Errorf("list -o name: %q", out)
	}
	pl := v.platform(nil)
	if got, _ := completeAgentNames(&pl)(&cobra.Command{}, nil, "b"); !slices.Equal(got, []cobra.Completion{"bot"}) {
		t.Errorf("NAME completes to %v", got)
	}
	if got, _ := completeDeployments(&pl)(&cobra.Command{}, []string{"bot"}, ""); !slices.Equal(got, []cobra.Completion{"1"}) {
		t.Errorf("--to completes to %v", got)
	}
	out = v.run(t, 0, func() error {
		return runStatus(ctx, &StatusOptions{Platform: v.platform(nil), Name: "bot", Print: printers.NewFlags()})
	})
	for _, w := range []string{"State:                ready", "Agents:               1 ready (0 in a session, 1 idle), ", "Serving deployment:   1 (digest " + v.img1.Digest + ", secret set version 1)"} {
		if !strings.Contains(out, w) {
			t.Errorf("status lacks %q:\n%s", w, out)
		}
	}
	if !regexp.MustCompile(`(?m)^\S+ +[0-9a-f]{12} +1 +running +`).MatchString(out) {
		t.Errorf("status lacks the running agent's row:\n%s", out)
	}

	// logs: the agent printed the value; the platform masked it.
	out = v.run(t, 0, func() error {
		return runLogs(ctx, &LogsOptions{Platform: v.platform(nil), Name: "bot", Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)})
	})
	// (BOTKIT_TEST_PRINT's value, the key's name, is a value of the set:
	// masked too.)
	if !regexp.MustCompile(`(?m)^\S+ \| value of \*\*\*\*: \*\*\*\*$`).MatchString(out) || !strings.Contains(out, " | env: ") {
		t.Errorf("logs:\n%s", out)
	}
	jf := printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)
	jf.Output = printers.FormatJSON
	out = v.run(t, 0, func() error {
		return runLogs(ctx, &LogsOptions{Platform: v.platform(nil), Name: "bot", Tail: 1, Print: jf})
	})
	var l resources.AgentLogLine
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &l) != nil || l.Agent == "" {
		t.Errorf("logs --tail 1 -o json:\n%s", out)
	}

	// -f streams: a line reaches stdout while the command still follows.
	fctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	fios, _, _, _ := iostreams.Test()
	seen := &cancelOn{ctx: fctx, want: " | ready\n", cancel: cancel}
	fios.Out = seen
	fp := v.platform(nil)
	fp.IO = fios
	if err := runLogs(fctx, &LogsOptions{Platform: fp, Name: "bot", Follow: true, Tail: 1, Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)}); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if !seen.done() {
		t.Errorf("logs -f: no line while following, got %q", seen.text())
	}

	// A secret write changes nothing that runs: status shows the drift.
	if _, _, err := v.c.Merge(ctx, client.EmbeddedOrg, "bot-secrets", resources.Patch{Set: map[string]string{"EXTRA": "extra-value"}}, ""); err != nil {
		t.Fatal(err)
	}
	out = v.run(t, 0, func() error {
		return runStatus(ctx, &StatusOptions{Platform: v.platform(nil), Name: "bot", Print: printers.NewFlags()})
	})
	if !strings.Contains(out, "Drift:                secret set bot-secrets is at version 2; deployment 1 runs version 1") {
		t.Errorf("status lacks the drift line:\n%s", out)
	}

	// The dry run of an update asks the platform which digest it would pin.
	dry = v.deployOpts(nil, v.img2.Ref, false)
	dry.DryRun = true
	out = v.run(t, 0, func() error { return deploy.Run(ctx, dry) })
	if want := "agent/bot configured: image " + v.img1.Ref + " → " + v.img2.Ref + " (dry run)\nagent/bot deployment 2: " + repo + "@" + v.img2.Digest + ", secret set bot-secrets version 2 (dry run)\n"; out != want {
		t.Errorf("dry run of an update printed:\n%s\nwant:\n%s", out, want)
	}

	// An update without a terminal needs --skip; on one it asks, naming
	// what changes.
	v.run(t, cmdutil.ExitUsage, func() error { return deploy.Run(ctx, v.deployOpts(nil, v.img2.Ref, false)) })
	v.terminal()
	p := prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: true})
	out = v.run(t, 0, func() error { return deploy.Run(ctx, v.deployOpts(p, v.img2.Ref, false)) })
	if q := p.Asked(); len(q) != 1 || !strings.Contains(q[0].Title, "image "+v.img1.Ref+" → "+v.img2.Ref) {
		t.Errorf("asked %+v", q)
	}
	if !strings.HasPrefix(out, "agent/bot deployed: deployment 2, 1/1 agents ready ("+repo+"@"+v.img2.Digest+", secret set bot-secrets version 2)") {
		t.Errorf("update printed:\n%s", out)
	}
	if !strings.Contains(v.errOut.String(), "Rolling out deployment 2 of agent/bot") {
		t.Errorf("no progress on the terminal's stderr: %q", v.errOut)
	}
	// Then the count of its agents ready (image 2 has a HEALTHCHECK: none
	// is ready before its first check passes, so the first look sees the
	// rollout under way).
	if !regexp.MustCompile(`(?m)^deployment 2 is rolling out: [01] of 1 agents ready(, settling \(300ms\))?$`).MatchString(v.errOut.String()) {
		t.Errorf("no count of agents ready on the terminal's stderr: %q", v.errOut)
	}
	// The old agent stops once the new one serves, beside the command.
	waitFor(t, "deployment 2's agent alone", func() bool {
		cs := v.containers(t)
		return len(cs) == 1 && cs[0].Labels[platformruntime.LabelDeployment] == "2"
	})

	// deployments, newest first.
	out = v.run(t, 0, func() error {
		return runDeployments(ctx, &DeploymentsOptions{Platform: v.platform(nil), Name: "bot", Print: printers.NewFlags()})
	})
	if !regexp.MustCompile(`(?s)^DEPLOYMENT .*\n2 +\S+ +\S+ +deploy +\S+ +` + v.img2.Digest + ` +2 +serving\n1 +\S+ +\S+ +deploy +\S+ +` + v.img1.Digest + ` +1 +superseded\n$`).MatchString(out) {
		t.Errorf("deployments:\n%s", out)
	}

	// rollback (default: deployment 1), confirmed on the terminal.
	p = prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: true})
	out = v.run(t, 0, func() error {
		return runRollback(ctx, &RollbackOptions{Platform: v.platform(p), Name: "bot", Print: objectFlags()})
	})
	if q := p.Asked(); len(q) != 1 || !strings.Contains(q[0].Title, "Roll back agent/bot to deployment 1 ("+repo+"@"+v.img1.Digest+", secret set bot-secrets version 1)") {
		t.Errorf("asked %+v", q)
	}
	if !strings.HasPrefix(out, "agent/bot rolled back: deployment 3 (a copy of deployment 1), 1/1 agents ready ("+repo+"@"+v.img1.Digest+", secret set bot-secrets version 1)") {
		t.Errorf("rollback printed:\n%s", out)
	}
	v.ios.SetStdinTTY(false)
	v.run(t, cmdutil.ExitNotFound, func() error {
		return runRollback(ctx, &RollbackOptions{Platform: v.platform(nil), Name: "bot", To: 99, Skip: true, Print: objectFlags()})
	})

	// --no-wait -o json: the deployment as recorded, rolling out.
	nw := v.deployOpts(nil, v.img2.Ref, true)
	nw.NoWait, nw.Print.Output = true, printers.FormatJSON
	out = v.run(t, 0, func() error { return deploy.Run(ctx, nw) })
	var d resources.Deployment
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Number != 4 || d.Result != resources.DeploymentRollingOut || printers.Digest(d.ImageDigest) != v.img2.Digest {
		t.Fatalf("deploy --no-wait -o json: %v\n%s", err, out)
	}
	if d, err := v.c.WaitRollout(ctx, client.EmbeddedOrg, "bot", 4, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("deployment 4: %+v, %v", d, err)
	}

	// scale: no question, no deployment.
	out = v.run(t, 0, func() error {
		return runScale(ctx, &ScaleOptions{Platform: v.platform(nil), Name: "bot", Min: 2, Max: 3, MaxSet: true, Print: objectFlags()})
	})
	if !strings.HasPrefix(out, "agent/bot scaled: min 2, max 3; ") {
		t.Errorf("scale printed %q", out)
	}
	waitFor(t, "two running agents of deployment 4", func() bool {
		if _, err := v.c.AgentStatus(ctx, client.EmbeddedOrg, "bot"); err != nil { // reconciles
			t.Fatal(err)
		}
		cs := v.containers(t)
		return len(cs) == 2 && !slices.ContainsFunc(cs, func(c engineContainer) bool {
			return c.State != "running" || c.Labels[platformruntime.LabelDeployment] != "4"
		})
	})
	v.run(t, 0, func() error {
		return runScale(ctx, &ScaleOptions{Platform: v.platform(nil), Name: "bot", Min: 1, Print: objectFlags()})
	})

	// A crashing deployment: exit 1 with the reason and the agent's log
	// lines (masked); deployment 4 keeps serving.
	if _, _, err := v.c.Merge(ctx, client.EmbeddedOrg, "bot-secrets", resources.Patch{Set: map[string]string{"BOTKIT_TEST_EXIT": "3"}}, ""); err != nil {
		t.Fatal(err)
	}
	v.run(t, cmdutil.ExitError, func() error { return deploy.Run(ctx, v.deployOpts(nil, v.img1.Ref, true)) })
	failure := v.texts[len(v.texts)-1]
	if !strings.Contains(failure, "agent/bot: deployment 5 failed: ") || !strings.Contains(failure, "; deployment 4 still serves\n") || !strings.Contains(failure, "\n  value of ****: ****\n") {
		t.Errorf("a crashing deployment said:\n%s", failure)
	}
	a, err := v.c.Agent(ctx, client.EmbeddedOrg, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if a.Status.Deployment != 4 {
		t.Errorf("serving after a failed rollout: %+v", a.Status)
	}
	waitFor(t, "deployment 4's agents alone after a failed rollout", func() bool {
		cs := v.containers(t)
		return len(cs) > 0 && !slices.ContainsFunc(cs, func(c engineContainer) bool { return c.Labels[platformruntime.LabelDeployment] != "4" })
	})

	// restart and delete ask; without a terminal they need --skip.
	v.run(t, cmdutil.ExitUsage, func() error {
		return runRestart(ctx, &RestartOptions{Platform: v.platform(nil), Name: "bot", Print: objectFlags()})
	})
	out = v.run(t, 0, func() error {
		return runRestart(ctx, &RestartOptions{Platform: v.platform(nil), Name: "bot", Skip: true, Print: objectFlags()})
	})
	// A restart is a rollout of what deployment 4 runs.
	if !strings.HasPrefix(out, "agent/bot restarted: deployment 6 (a copy of deployment 4), 1/1 agents ready (") {
		t.Errorf("restart printed %q", out)
	}
	v.run(t, cmdutil.ExitUsage, func() error {
		return runDelete(ctx, &DeleteOptions{Platform: v.platform(nil), Name: "bot", Print: objectFlags()})
	})
	out = v.run(t, 0, func() error {
		return runDelete(ctx, &DeleteOptions{Platform: v.platform(nil), Name: "bot", Skip: true, Print: objectFlags()})
	})
	if out != "agent/bot deleted\n" {
		t.Errorf("delete printed %q", out)
	}
	// The platform's controller removes them beside the request.
	waitFor(t, "no container left after delete", func() bool { return len(v.containers(t)) == 0 })
	v.run(t, cmdutil.ExitNotFound, func() error {
		return runDelete(ctx, &DeleteOptions{Platform: v.platform(nil), Name: "bot", Skip: true, Print: objectFlags()})
	})
	v.run(t, cmdutil.ExitNotFound, func() error {
		return runStatus(ctx, &StatusOptions{Platform: v.platform(nil), Name: "bot", Print: printers.NewFlags()})
	})

	// min_agents = 0: one agent proves the image boots, then none runs,
	// and deploy says so.
	if _, _, err := v.c.Merge(ctx, client.EmbeddedOrg, "bot-secrets", resources.Patch{Remove: []string{"BOTKIT_TEST_EXIT"}}, ""); err != nil {
		t.Fatal(err)
	}
	toml, err := os.ReadFile(filepath.Join(v.project, "cloud-deploy.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.project, "cloud-deploy.toml"), []byte(strings.Replace(string(toml), "min_agents = 1", "min_agents = 0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out = v.run(t, 0, func() error { return deploy.Run(ctx, v.deployOpts(nil, "", false)) })
	if !strings.HasPrefix(out, "agent/bot deployed: deployment 1, 0/0 agents ready (") || !strings.Contains(v.errOut.String(), "note: agent/bot wants 0 agents (min_agents 0): its image booted, then it scaled to zero") {
		t.Errorf("deploy with min_agents 0:\n%s%s", out, v.errOut)
	}
	waitFor(t, "no container once scaled to zero", func() bool { return len(v.containers(t)) == 0 })
}

// cancelOn is a stdout that cancels when it has received want while ctx
// is still running (a line flushed only once the command ended does not
// count).
type cancelOn struct {
	ctx    context.Context
	mu     sync.Mutex
	b      strings.Builder
	want   string
	cancel context.CancelFunc
	seen   bool
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if !w.seen && w.ctx.Err() == nil && strings.Contains(w.b.String(), w.want) {
		w.seen = true
		w.cancel()
	}
	return len(p), nil
}

func (w *cancelOn) done() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

func (w *cancelOn) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// waitFor polls cond (each call reconciles through the platform) until it
// holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Long lines, as botkit cloud agents logs shows them: a line the engine
// split at 16 KiB comes out as one line with the secret value masked
// wherever the splits fell; a line over 1 MiB is cut with a marker (the
// value across the cut masked too) and the next line follows.
func TestAgentLogsLongLines(t *testing.T) {
	v := newEngineEnv(t, false)
	ctx := context.Background()
	if _, _, err := v.c.Merge(ctx, client.EmbeddedOrg, "bot-secrets", resources.Patch{Set: map[string]string{"BOTKIT_TEST_LONG": "OPENAI_API_KEY"}}, ""); err != nil {
		t.Fatal(err)
	}
	v.run(t, 0, func() error { return deploy.Run(ctx, v.deployOpts(nil, "", false)) })
	var out string
	waitFor(t, "the line after the long ones", func() bool {
		out = v.run(t, 0, func() error {
			return runLogs(ctx, &LogsOptions{Platform: v.platform(nil), Name: "bot", Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)})
		})
		return strings.Contains(out, " | after\n")
	})
	var long, huge []string
	for _, line := range strings.Split(out, "\n") {
		_, text, _ := strings.Cut(line, " | ")
		if strings.Contains(text, "long:") || strings.Contains(text, ":end") && !strings.HasPrefix(text, "huge:") {
			long = append(long, text)
		}
		if strings.Contains(text, "huge:") || strings.Contains(text, "line cut") {
			huge = append(huge, text)
		}
	}
	// The 50 KiB line: one line, no timestamp inside, the value masked at
	// each of the three boundaries.
	stamp := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`)
	if len(long) != 1 || !strings.HasPrefix(long[0], "long:") || !strings.HasSuffix(long[0], ":end") ||
		strings.Count(long[0], resources.MaskedValue) != 3 || stamp.MatchString(long[0]) {
		t.Errorf("the 50 KiB line came out as %d lines (%d bytes), masked %d times", len(long), len(strings.Join(long, "")), strings.Count(strings.Join(long, ""), resources.MaskedValue))
	} else if want := 50<<10 - 3*(len(canary)-len(resources.MaskedValue)); len(long[0]) != want {
		t.Errorf("the 50 KiB line is %d bytes, want %d", len(long[0]), want)
	}
	// The 3 MiB line: its first MiB, the value's start masked at the cut,
	// the marker; then the next line.
	marker := fmt.Sprintf(" … [line cut: %d bytes]", 3<<20)
	if len(huge) != 1 || !strings.HasPrefix(huge[0], "huge:") || !strings.HasSuffix(huge[0], resources.MaskedValue+marker) ||
		len(huge[0]) > 1<<20+len(marker) {
		t.Errorf("the 3 MiB line came out as %d lines, ending %q", len(huge), tail(strings.Join(huge, "\n"), 80))
	}
	if strings.Contains(out, canary[:len(canary)/2]) {
		t.Errorf("the logs show the start of the secret value")
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// An image is checked against the engine that will run it: one built only
// for another architecture is refused at preflight and at deploy, naming
// both platforms; the test image, built for the engine's own, passes
// without a warning.
func TestDeployImagePlatform(t *testing.T) {
	v := newEngineEnv(t, false)
	ctx := context.Background()
	engine, other := "linux/"+goruntime.GOARCH, "linux/arm64"
	if goruntime.GOARCH == "arm64" {
		other = "linux/amd64"
	}
	foreign := v.host + "/acme/bot:foreign"
	if _, err := registrytest.Push("http://"+v.host, regUser, canary, "acme/bot:foreign", other); err != nil {
		t.Fatal(err)
	}

	check := func(image string) resources.PreflightCheck {
		t.Helper()
		res, err := v.c.Preflight(ctx, client.EmbeddedOrg, resources.PreflightRequest{Image: image, ImagePullSecret: "reg-creds"})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Checks {
			if c.ID == "image-platform" {
				return c
			}
		}
		t.Fatalf("preflight of %s: no image-platform check in %+v", image, res.Checks)
		return resources.PreflightCheck{}
	}
	if c := check(v.img1.Ref); c.Result != resources.CheckOK || c.Detail != "built for "+engine+"; the engine of region us-west runs "+engine {
		t.Errorf("preflight of the test image: %s %q", c.Result, c.Detail)
	}
	mismatch := "image " + foreign + " is built for " + other + " only; the engine of region us-west runs " + engine
	if c := check(foreign); c.Result != resources.CheckFail || !strings.HasPrefix(c.Detail, mismatch) {
		t.Errorf("preflight of an image for %s: %s %q", other, c.Result, c.Detail)
	}

	// The deploy of the test image runs; the foreign one is refused, and
	// nothing is recorded for it.
	v.run(t, 0, func() error { return deploy.Run(ctx, v.deployOpts(nil, "", false)) })
	_, err := v.c.Deploy(ctx, client.EmbeddedOrg, "bot", resources.DeployRequest{Image: foreign})
	var re *resources.Error
	if !errors.As(err, &re) || re.Code != resources.CodeUnprocessable || !strings.HasPrefix(re.Message, mismatch) {
		t.Fatalf("deploy of an image for %s: %v", other, err)
	}
	if ds, err := v.c.Deployments(ctx, client.EmbeddedOrg, "bot"); err != nil || len(ds) != 1 {
		t.Errorf("deployments after the refused deploy: %d, %v", len(ds), err)
	}
}

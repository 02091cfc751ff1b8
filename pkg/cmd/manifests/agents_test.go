package manifests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// An Agent manifest through botkit apply, diff and delete -f, on a platform
// whose region runs a real Docker Engine, the image in a real registry
// behind a password: apply --wait rolls the agent out (a container runs),
// applying again changes nothing, diff shows the spec's fields old -> new,
// apply says a scaling change on stderr as deploy does,
// an image the registry does not have exits 1 naming the agent, and
// delete -f removes the agent with its container.
func TestApplyAgentManifest(t *testing.T) {
	eng := dockertest.Start(t)
	registrytest.Need(t)
	const user, pass = "bot", "manifests-registry-pass-4e1a"
	reg, err := registrytest.Start(t.TempDir(), user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	image := eng.PushAgent(t, host, "acme/agent:1", user, pass, dockertest.ImageOptions{})
	rt, err := docker.NewRuntime(eng.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)

	url, srv := platformtest.Start(t, platform.Options{PollInterval: 20 * time.Millisecond, AllowPrivateRegistries: true,
		Runtimes: map[string]runtime.Runtime{"us-west": rt}, AgentNetwork: "none", AgentSettle: 300 * time.Millisecond})
	platformtest.CreateOrg(t, srv, "acme", "")
	e := &env{t: t, dir: t.TempDir()}
	if e.c, err = client.New(client.Options{BaseURL: url, Token: platformtest.CreateToken(t, srv, "acme", "ci"), PollInterval: 20 * time.Millisecond, Timeout: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	reset := func() { e.ios, e.in, e.out, e.errOut = iostreams.Test() }
	reset()
	scope := func(files ...string) ManifestOptions {
		s := e.scope(files...)
		s.LookupEnv = func(k string) (string, bool) {
			switch k {
			case "KEY":
				return canary, true
			case "REG":
				return user + ":" + pass, true
			case "EXIT":
				return "3", true
			}
			return "", false
		}
		return s
	}
	manifests := func(imageRef string, minAgents string) string {
		return `apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: bot}
spec:
  data: {API_KEY: {fromEnv: KEY}}
---
apiVersion: botkit.dev/v1
kind: ImagePullSecret
metadata: {name: reg}
spec: {host: "` + host + `", credentials: {fromEnv: REG}}
---
apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: bot, labels: {team: voice}}
spec:
  image: ` + imageRef + `
  imagePullSecret: reg
  secretSet: bot
  scaling: {minAgents: ` + minAgents + `, maxAgents: 3}
`
	}
	ctx := context.Background()
	containers := func(agent string) []runtime.Agent {
		t.Helper()
		cs, err := rt.List(ctx, runtime.Selector{runtime.LabelOrganization: "acme", runtime.LabelAgent: agent})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}

	m := e.write("bot.yaml", manifests(image.Ref, "1"))
	err = runApply(ctx, &ApplyOptions{ManifestOptions: scope(m), DryRun: DryRunNone, Wait: true})
	e.noCanary(err)
	if err != nil {
		t.Fatalf("apply --wait: %v\n%s", err, e.errOut)
	}
	want := "secretset/bot created (version 1)\nimagepullsecret/reg created (version 1)\nagent/bot created: deployment 1 serving (version 1)\n"
	if got := e.out.String(); got != want {
		t.Fatalf("apply --wait:\n%s\nwant\n%s", got, want)
	}
	if cs := containers("bot"); len(cs) != 1 || cs[0].State != "running" {
		t.Fatalf("containers after apply: %+v", cs)
	}

	reset()
	if err := runApply(ctx, &ApplyOptions{ManifestOptions: scope(m), DryRun: DryRunNone}); err != nil {
		t.Fatal(err)
	}
	if got, want := e.out.String(), "secretset/bot unchanged\nimagepullsecret/reg unchanged\nagent/bot unchanged\n"; got != want {
		t.Fatalf("apply again:\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(e.errOut.String(), "scaling") {
		t.Errorf("apply again speaks of scaling: %s", e.errOut)
	}

	reset()
	m2 := e.write("bot2.yaml", manifests(host+"/acme/agent:2", "2"))
	err = runDiff(ctx, &DiffOptions{ManifestOptions: scope(m2)})
	if err != ErrDifferences {
		t.Fatalf("diff: %v", err)
	}
	if got, want := e.out.String(), "~ agent/bot\n    ~ spec.image: "+image.Ref+" -> "+host+"/acme/agent:2\n    ~ spec.scaling.minAgents: 1 -> 2\n"; got != want {
		t.Fatalf("diff:\n%s\nwant\n%s", got, want)
	}

	// acme/agent:2 was never pushed: the deployment fails at once, exit 1
	// naming the agent and why; deployment 1 keeps serving.
	reset()
	err = runApply(ctx, &ApplyOptions{ManifestOptions: scope(m2), DryRun: DryRunNone})
	e.noCanary(err)
	lines := cmdutil.ErrorLines(err)
	if cmdutil.ExitCode(err) != cmdutil.ExitError || len(lines) != 1 || !strings.HasPrefix(lines[0], "agent/bot failed: deployment 2: ") || !strings.Contains(lines[0], "acme/agent:2") {
		t.Fatalf("apply of a missing image: exit %d, %q", cmdutil.ExitCode(err), lines)
	}
	if got := e.out.String(); !strings.Contains(got, "agent/bot configured: deployment 2 failed (version 2)\n") {
		t.Fatalf("apply of a missing image:\n%s", got)
	}
	if cs := containers("bot"); len(cs) != 1 || cs[0].Owner.Deployment != 1 {
		t.Fatalf("after a failed deployment the serving one must stay: %+v", cs)
	}
	// The scaling change said as botkit deploy says it.
	if want := "agent/bot: scaling min 1, max 3 → min 2, max 3, from " + m2 + "\n"; !strings.Contains(e.errOut.String(), want) {
		t.Errorf("apply changing the scaling: stderr %q, want %q", e.errOut, want)
	}

	// A deployment whose agent exits: apply --wait waits for the rollout
	// to fail, exits 1 with the reason; deployment 1 keeps serving.
	reset()
	crash := strings.Replace(manifests(image.Ref, "1"), "data: {API_KEY: {fromEnv: KEY}}", "data: {API_KEY: {fromEnv: KEY}, BOTKIT_TEST_EXIT: {fromEnv: EXIT}}", 1)
	crash = strings.Replace(crash, "maxAgents: 3", "maxAgents: 2", 1)
	m3 := e.write("crash.yaml", crash)
	err = runApply(ctx, &ApplyOptions{ManifestOptions: scope(m3), DryRun: DryRunNone, Wait: true})
	e.noCanary(err)
	lines = cmdutil.ErrorLines(err)
	if cmdutil.ExitCode(err) != cmdutil.ExitError || len(lines) != 1 || !strings.HasPrefix(lines[0], "agent/bot failed: deployment 3: ") {
		t.Fatalf("apply --wait of a crashing agent: exit %d, %q\n%s", cmdutil.ExitCode(err), lines, e.out)
	}
	if got := e.out.String(); !strings.Contains(got, "secretset/bot configured (version 2)\n") || !strings.Contains(got, "agent/bot configured: deployment 3 failed (version 3)\n") {
		t.Fatalf("apply --wait of a crashing agent:\n%s", got)
	}
	// The failed deployment's agents go beside the command (the platform's
	// controller); the serving one's stays.
	testenv.Eventually(t, "the serving deployment's agent alone after a failed rollout", func() bool {
		cs := containers("bot")
		return len(cs) == 1 && cs[0].Owner.Deployment == 1 && cs[0].State == "running"
	})
	if want := "agent/bot: scaling min 2, max 3 → min 1, max 2, from " + m3 + "\n"; !strings.Contains(e.errOut.String(), want) {
		t.Errorf("apply changing the scaling: stderr %q, want %q", e.errOut, want)
	}

	reset()
	agentOnly := e.write("agent.yaml", "apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: bot}\nspec: {image: x.example/y:1}\n")
	if err := runDelete(ctx, &DeleteOptions{ManifestOptions: scope(agentOnly), DryRun: DryRunNone}); err != nil {
		t.Fatal(err)
	}
	if got := e.out.String(); got != "agent/bot deleted\n" {
		t.Fatalf("delete -f: %q", got)
	}
	testenv.Eventually(t, "no container after delete -f", func() bool { return len(containers("bot")) == 0 })
	if _, err := e.c.Get(ctx, "acme", "bot"); err != nil {
		t.Fatalf("delete -f of agent/bot removed secretset/bot: %v", err)
	}
}

// In a protected context, an apply that changes an agent goes through the
// protection check like any other change (no terminal: exit 2 naming
// --context, nothing written); an apply that leaves it unchanged does not.
func TestApplyAgentProtected(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	// Written as apply would write it, then changed in the manifests
	// (labels only: no rollout, so no engine is needed).
	m := e.write("bot.yaml", "apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: bot, labels: {team: voice}}\nspec: {image: registry.example/acme/bot:1}\n")
	if _, _, err := e.c.PutAgent(ctx, "acme", resources.Agent{Metadata: resources.ObjectMeta{Name: "bot", Labels: map[string]string{"team": "voice"}},
		Spec: resources.AgentSpec{Image: "registry.example/acme/bot:1"}}, ""); err != nil {
		t.Fatal(err)
	}
	if err := runApply(ctx, &ApplyOptions{ManifestOptions: e.scope(m), DryRun: DryRunNone}); err != nil {
		t.Fatal(err)
	}
	prod := func() (cloudutil.Target, error) {
		return cloudutil.Target{Context: "prod", Platform: "https://api.example.com", Protected: true}, nil
	}
	s := e.scope(m)
	s.Target = prod
	e.out.Reset()
	if err := runApply(ctx, &ApplyOptions{ManifestOptions: s, DryRun: DryRunNone}); err != nil {
		t.Fatalf("an unchanged agent in a protected context: %v", err)
	}
	if got := e.out.String(); got != "agent/bot unchanged\n" {
		t.Fatalf("stdout %q", got)
	}

	changed := e.write("bot2.yaml", "apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: bot, labels: {team: support}}\nspec: {image: registry.example/acme/bot:1}\n")
	s = e.scope(changed)
	s.Target = prod
	err := runApply(ctx, &ApplyOptions{ManifestOptions: s, DryRun: DryRunNone})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "context prod is protected: apply changes to agent/bot needs --context prod") {
		t.Fatalf("a changed agent in a protected context: exit %d, %v", cmdutil.ExitCode(err), err)
	}
	a, err := e.c.Agent(ctx, "acme", "bot")
	if err != nil || a.Metadata.Labels["team"] != "voice" {
		t.Fatalf("the refused apply changed the agent: %+v, %v", a.Metadata.Labels, err)
	}
}

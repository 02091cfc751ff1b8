package main_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The real binary runs agents on the engine --runtime names: a deploy rolls
// out (its background pass and each poll), a region without a runtime
// refuses with how to add one, and a SIGINT while a client follows the logs
// stops the server cleanly (exit 0: the follower's stream is ended, not
// waited for). The canary value is never in the server's log.
const canary = "canary-serve-agent-4f1d"

// engineWithAgent starts a private engine and a registry (user bot,
// password pass) holding the test agent image built with opts as
// acme/agent:1; it returns the engine, the registry's host and the image.
func engineWithAgent(t *testing.T, pass string, opts dockertest.ImageOptions) (*dockertest.Engine, string, dockertest.Image) {
	t.Helper()
	e := dockertest.Start(t)
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), "bot", pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	return e, host, e.PushAgent(t, host, "acme/agent:1", "bot", pass, opts)
}

func TestServeRunsAgents(t *testing.T) {
	e, host, img := engineWithAgent(t, "registry-pass-s1", dockertest.ImageOptions{})
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme")
	s := startServer(t, dir, "--runtime", "us-west=docker://"+strings.TrimPrefix(e.Host, "unix://"),
		"--agent-network", "none", "--agent-settle", "1s", "--allow-private-registries")
	ctx := context.Background()
	c, err := client.New(client.Options{BaseURL: s.url, Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Merge(ctx, "acme", "bot-secrets", resources.Patch{Set: map[string]string{"API_KEY": canary, "BOTKIT_TEST_PRINT": "API_KEY"}}, ""); err != nil {
		t.Fatal(err)
	}
	creds := "bot:registry-pass-s1"
	if _, _, err := c.Merge(ctx, "acme", "reg", resources.Patch{Kind: resources.KindImagePullSecret, Host: host, Credentials: &creds}, ""); err != nil {
		t.Fatal(err)
	}
	for _, a := range []resources.Agent{
		{Metadata: resources.ObjectMeta{Name: "bot"}, Spec: resources.AgentSpec{Image: img.Ref, ImagePullSecret: "reg", SecretSet: "bot-secrets"}},
		{Metadata: resources.ObjectMeta{Name: "eu", Region: "eu-central"}, Spec: resources.AgentSpec{Image: img.Ref}},
	} {
		if _, _, err := c.PutAgent(ctx, "acme", a, ""); err != nil {
			t.Fatal(err)
		}
	}
	var re *resources.Error
	if _, err := c.Deploy(ctx, "acme", "eu", resources.DeployRequest{}); !errors.As(err, &re) || re.Code != resources.CodeUnprocessable ||
		re.Message != "region eu-central has no runtime: start botkit-platform serve with --runtime eu-central=docker:///var/run/docker.sock" {
		t.Errorf("deploy to a region without a runtime: %v", err)
	}
	d, err := c.Deploy(ctx, "acme", "bot", resources.DeployRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = c.WaitRollout(ctx, "acme", "bot", d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("rollout: %+v %v", d, err)
	}

	first := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var once sync.Once
		done <- c.AgentLogs(ctx, "acme", "bot", client.LogOptions{Follow: true}, func(l resources.AgentLogLine) error {
			once.Do(func() { close(first) })
			return nil
		})
	}()
	testenv.Within(t, "the first followed line", first)
	s.stop()
	if code := s.ExitCode(); code != 0 {
		t.Errorf("serve stopped with a follower: exit %d; log:\n%s", code, s.log())
	}
	if err := testenv.Within(t, "the end of the followed stream", done); err != nil {
		t.Errorf("the followed stream ended with %v, want its end", err)
	}
	if strings.Contains(s.log(), canary) {
		t.Errorf("the server log holds the canary value")
	}
}

// A replica killed with SIGKILL in the middle of a rollout (the new
// deployment's agent running, not yet serving: the settle time is an hour)
// leaves, once a replica serves again, exactly the serving deployment's
// agents: its start-up reconcile carries the rollout on, the new
// deployment serves and the old one's agent is gone.
func TestServeKilledMidRollout(t *testing.T) {
	e, host, img := engineWithAgent(t, "registry-pass-k9", dockertest.ImageOptions{})
	rt, err := docker.NewRuntime(e.Host)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme")
	socket := "us-west=docker://" + strings.TrimPrefix(e.Host, "unix://")
	serve := func(settle string) (*server, *client.Client) {
		s := startServer(t, dir, "--runtime", socket, "--agent-network", "none", "--agent-settle", settle, "--allow-private-registries")
		c, err := client.New(client.Options{BaseURL: s.url, Token: tok})
		if err != nil {
			t.Fatal(err)
		}
		return s, c
	}
	ctx := context.Background()
	s, c := serve("1s")
	creds := "bot:registry-pass-k9"
	if _, _, err := c.Merge(ctx, "acme", "reg", resources.Patch{Kind: resources.KindImagePullSecret, Host: host, Credentials: &creds}, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PutAgent(ctx, "acme", resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"},
		Spec: resources.AgentSpec{Image: img.Ref, ImagePullSecret: "reg"}}, ""); err != nil {
		t.Fatal(err)
	}
	d1, err := c.Deploy(ctx, "acme", "bot", resources.DeployRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d1, err = c.WaitRollout(ctx, "acme", "bot", d1.Number, nil); err != nil || d1.Result != resources.DeploymentServing {
		t.Fatalf("first rollout: %+v %v", d1, err)
	}
	s.stop()

	// Deployment 2 rolls out under a settle time no test waits for; once
	// its agent runs, the replica is killed.
	s, c = serve("1h")
	d2, err := c.Deploy(ctx, "acme", "bot", resources.DeployRequest{})
	if err != nil || d2.Result != resources.DeploymentRollingOut {
		t.Fatalf("second deploy: %+v %v", d2, err)
	}
	of := func(n int64) []runtime.Agent {
		t.Helper()
		cs, err := rt.List(ctx, runtime.ForOwner(runtime.Owner{Organization: "acme", Region: "us-west", Agent: "bot", Deployment: int(n)}))
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	testenv.Eventually(t, "deployment 2's agent running", func() bool {
		cs := of(d2.Number)
		return len(cs) == 1 && cs[0].State == runtime.StateRunning
	})
	if len(of(d1.Number)) != 1 {
		t.Fatalf("the serving deployment's agent stopped before the new one served")
	}
	s.kill9()

	// A replica again: the rollout goes on from where it was.
	_, c = serve("1s")
	if d2, err = c.WaitRollout(ctx, "acme", "bot", d2.Number, nil); err != nil || d2.Result != resources.DeploymentServing {
		t.Fatalf("the interrupted rollout after the restart: %+v %v", d2, err)
	}
	// The previous deployment's agent goes once the new one serves.
	var all []runtime.Agent
	if !testenv.Poll(func() bool {
		all, err = rt.List(ctx, runtime.ForOwner(runtime.Owner{Organization: "acme", Region: "us-west", Agent: "bot"}))
		return err == nil && len(all) == 1 && all[0].Owner.Deployment == int(d2.Number) && all[0].State == runtime.StateRunning
	}) {
		t.Errorf("the agents after the restart: %+v %v, want deployment %d's one agent", all, err, d2.Number)
	}
	a, err := c.Agent(ctx, "acme", "bot")
	if err != nil || a.Status == nil || a.Status.Deployment != d2.Number || a.Status.State != resources.AgentReady {
		t.Errorf("the agent after the restart: %+v %v", a.Status, err)
	}
}

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
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The real binary runs agents on the engine --runtime names: a deploy rolls
// out (its background pass and each poll), a region without a runtime
// refuses with how to add one, and a SIGINT while a client follows the logs
// stops the server cleanly (exit 0: the follower's stream is ended, not
// waited for). The canary value is never in the server's log.
const canary = "canary-serve-agent-4f1d"

func TestServeRunsAgents(t *testing.T) {
	e := dockertest.Start(t)
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), "bot", "registry-pass-s1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	img := e.PushAgent(t, host, "acme/agent:1", "bot", "registry-pass-s1", dockertest.ImageOptions{})
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
	testenv.Within(t, "the end of the followed stream", done)
	if strings.Contains(s.log(), canary) {
		t.Errorf("the server log holds the canary value")
	}
}

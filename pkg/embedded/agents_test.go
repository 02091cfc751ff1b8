package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/internal/testsupport/tlstest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/embedded"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Without an engine at DOCKER_HOST, a deploy says how to get one (422).
func TestEmbeddedWithoutEngine(t *testing.T) {
	deployRefused(t, "unix://"+filepath.Join(t.TempDir(), "docker.sock"))
}

// A socket nobody answers on (Docker stopped): the same 422, and no
// deployment is recorded.
func TestEmbeddedEngineDown(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the socket file stays; nothing listens on it
	if _, err := os.Stat(sock); err != nil {
		t.Fatal(err)
	}
	c := deployRefused(t, "unix://"+sock)
	if ds, err := c.Deployments(context.Background(), embedded.Org, "bot"); err != nil || len(ds) != 0 {
		t.Errorf("deployments: %+v %v", ds, err)
	}
}

// A tcp:// engine with TLS (DOCKER_TLS_VERIFY, DOCKER_CERT_PATH) is the
// embedded platform's engine too: nobody answering there, the same 422.
func TestEmbeddedTCPEngineDown(t *testing.T) {
	certs := t.TempDir()
	ca, err := tlstest.NewCA("engine CA")
	if err != nil {
		t.Fatal(err)
	}
	if err := ca.MustIssueClient(t, 2, "botkit").WriteDir(ca, certs); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_TLS_VERIFY", "1")
	t.Setenv("DOCKER_CERT_PATH", certs)
	deployRefused(t, fmt.Sprintf("tcp://127.0.0.1:%d", testenv.FreePort(t)))
}

// deployRefused opens the embedded platform with DOCKER_HOST=host, writes
// agent bot and fails the test unless its deploy is the 422 that says how
// to get an engine; it returns the client (closed at the test's end).
func deployRefused(t *testing.T, host string) *client.Client {
	t.Helper()
	t.Setenv("DOCKER_HOST", host)
	ctx := context.Background()
	c, err := embedded.Open(ctx, t.TempDir(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, _, err := c.PutAgent(ctx, embedded.Org, resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"},
		Spec: resources.AgentSpec{Image: "127.0.0.1:5000/acme/bot:1"}}, ""); err != nil {
		t.Fatal(err)
	}
	_, err = c.Deploy(ctx, embedded.Org, "bot", resources.DeployRequest{})
	var re *resources.Error
	if !errors.As(err, &re) || re.Code != resources.CodeUnprocessable || re.Message != "no Docker Engine at "+host+" (DOCKER_HOST): start Docker or set DOCKER_HOST" {
		t.Errorf("deploy with DOCKER_HOST %s: %v", host, err)
	}
	return c
}

// The embedded platform runs agents on the engine DOCKER_HOST names, and
// its logs stream in-process: a followed line arrives while the stream is
// still open (the in-process transport hands a flushed answer over as it
// is written), masked.
func TestEmbeddedAgentsOnTheLocalEngine(t *testing.T) {
	e := dockertest.Start(t)
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), "bot", "registry-pass-e1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	img := e.PushAgent(t, host, "acme/agent:1", "bot", "registry-pass-e1", dockertest.ImageOptions{})
	t.Setenv("DOCKER_HOST", e.Host)
	ctx := context.Background()
	dir := t.TempDir()
	c, err := embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const org = embedded.Org
	if _, _, err := c.Merge(ctx, org, "bot-secrets", resources.Patch{Set: map[string]string{"API_KEY": canary, "BOTKIT_TEST_PRINT": "API_KEY", "BOTKIT_TEST_TICK": "on"}}, ""); err != nil {
		t.Fatal(err)
	}
	creds := "bot:registry-pass-e1"
	if _, _, err := c.Merge(ctx, org, "reg", resources.Patch{Kind: resources.KindImagePullSecret, Host: host, Credentials: &creds}, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PutAgent(ctx, org, resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"},
		Spec: resources.AgentSpec{Image: img.Ref, ImagePullSecret: "reg", SecretSet: "bot-secrets"}}, ""); err != nil {
		t.Fatal(err)
	}
	d, err := c.Deploy(ctx, org, "bot", resources.DeployRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = c.WaitRollout(ctx, org, "bot", d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("rollout: %+v %v", d, err)
	}
	rt, err := docker.NewRuntime(e.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	cs, err := rt.List(ctx, runtime.Selector{runtime.LabelOrganization: org, runtime.LabelAgent: "bot"})
	if err != nil || len(cs) != 1 || cs[0].State != runtime.StateRunning {
		t.Fatalf("the agent's containers: %+v %v", cs, err)
	}

	// Followed: the lines come while the stream is open (the agent ticks
	// forever); the stream ends when the caller stops it.
	fctx, cancel := context.WithTimeout(ctx, time.Minute) // a bound on a stream that never shows them
	defer cancel()
	stop := errors.New("stop")
	var got []string
	err = c.AgentLogs(fctx, org, "bot", client.LogOptions{Follow: true}, func(l resources.AgentLogLine) error {
		if fctx.Err() != nil {
			t.Errorf("line %q arrived after the stream's end: the answer was buffered", l.Text)
		}
		if strings.Contains(l.Text, canary) {
			t.Errorf("the logs show the canary: %q", l.Text)
		}
		got = append(got, l.Text)
		if strings.HasPrefix(l.Text, "tick ") {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Errorf("followed logs: %v (lines %q)", err, got)
	}
	if len(got) < 3 || got[2] != "value of ****: ****" {
		t.Errorf("lines: %q", got)
	}

	// The next command's platform opens without waiting for the engine:
	// its controller looks at the engine beside the requests (here the
	// engine hangs, and the secret sets are listed and one is read all the
	// same, as `cloud secrets list` does), and closes without waiting for
	// it: the command touched no agent. (The platform's first reconcile
	// pass, which close waited for, hung with the engine: `cloud secrets
	// list` printed, then never exited.) The next command, the engine
	// answering again, finds the serving agent as it was: running, with
	// the engine's restart policy "no" (the controller replaces an agent
	// that dies; one in a session is not started again).
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	e.Freeze(t)
	c, err = embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if o, err := c.Get(ctx, org, "bot-secrets"); err != nil || o.Meta().Name != "bot-secrets" {
		t.Fatalf("reading a secret set while the engine hangs: %v", err)
	}
	if objs, err := c.List(ctx, org, client.ListOptions{}); err != nil || len(objs) != 2 {
		t.Fatalf("listing while the engine hangs: %d objects, %v", len(objs), err)
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	if err := testenv.Within(t, "the platform's close while the engine hangs", closed); err != nil {
		t.Fatal(err)
	}
	e.Thaw()
	c, err = embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if cs, err = rt.List(ctx, runtime.Selector{runtime.LabelOrganization: org, runtime.LabelAgent: "bot"}); err != nil ||
		len(cs) != 1 || cs[0].State != runtime.StateRunning || cs[0].Restart.Name != runtime.RestartNever {
		t.Errorf("the serving agent: %+v %v", cs, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	c, err = embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.DeleteAgent(ctx, org, "bot"); err != nil {
		t.Fatal(err)
	}
	// The controller removes a deleted agent's containers before the
	// command's platform closes.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if cs, err := rt.List(ctx, runtime.Selector{runtime.LabelOrganization: org}); err != nil || len(cs) != 0 {
		t.Errorf("after delete: %+v %v", cs, err)
	}
	grepDir(t, dir, canary)
}

// grepDir fails the test when a file below dir holds s.
func grepDir(t *testing.T, dir, s string) {
	t.Helper()
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return nil // a file gone meanwhile
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), s) {
			t.Errorf("%s holds the canary value", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Closing the client twice (an explicit Close, then a deferred one)
// returns: the second Close does nothing. (It waited forever on the
// closed database: the drain queued a write no writer would take.)
func TestEmbeddedCloseTwice(t *testing.T) {
	c, err := embedded.Open(context.Background(), t.TempDir(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	if err := testenv.Within(t, "the second Close", done); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

package factory

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmd/root"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform/local"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const canary = "CANARY-l0c4l-s3rv3"

// platformBin builds botkit-platform once for the tests of this package.
var platformBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "botkit-platform-bin-")
	if err != nil {
		return "", err
	}
	return platformtest.Build(dir)
})

// localMachine is a fresh machine for the local context: its HOME and XDG
// data directory, the engine at dockerHost; env for botkit (the factory's
// Getenv) and the same for botkit-platform serve --local.
type localMachine struct {
	env     map[string]string
	environ []string
	dataDir string
	bin     string
	log     *os.File
}

func newLocalMachine(t *testing.T, dockerHost string) *localMachine {
	t.Helper()
	bin, err := platformBin()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	m := &localMachine{bin: bin, env: map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, "data"),
		"DOCKER_HOST":     dockerHost,
	}}
	for k, v := range m.env {
		m.environ = append(m.environ, k+"="+v)
	}
	// The embedded platform of botkit's commands (in this process) finds
	// the engine in the process's environment.
	t.Setenv("DOCKER_HOST", dockerHost)
	m.dataDir = filepath.Join(home, "data", "botkit")
	if m.log, err = os.Create(filepath.Join(t.TempDir(), "serve.log")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.log.Close()
		if b, err := os.ReadFile(m.log.Name()); err == nil && bytes.Contains(b, []byte(canary)) {
			t.Errorf("the server's log holds the canary value")
		}
		if t.Failed() {
			b, _ := os.ReadFile(m.log.Name()) // error ignored: only shown on failure
			t.Logf("serve --local's log:\n%s", b)
		}
	})
	return m
}

// serve runs botkit-platform serve --local on the machine, stopped at the
// test's end.
func (m *localMachine) serve(t *testing.T) *platformtest.Server {
	t.Helper()
	s, err := platformtest.ServeLocal(m.bin, m.environ, m.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// botkit runs botkit's command tree in this process over the machine's
// environment (the local context: the embedded platform in the data
// directory) and returns its exit code, stdout and stderr.
func (m *localMachine) botkit(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := New(ios)
	f.Getenv = func(k string) string { return m.env[k] }
	f.Credentials = emptyStore{}
	code := root.Run(context.Background(), f, args)
	if strings.Contains(out.String()+errOut.String(), canary) {
		t.Errorf("botkit %s printed the canary value", strings.Join(args, " "))
	}
	return code, out.String(), errOut.String()
}

// servingPlatform is the finder of a fresh invocation on the machine.
func (m *localMachine) servingPlatform(t *testing.T) (*cloudutil.Factory, error) {
	t.Helper()
	f := newFactory(t, m.env)
	_, err := f.ServingPlatform(context.Background())
	return f, err
}

// wantNoServer fails the test unless the finder says the command to run
// (exit 1, ErrNoServingPlatform).
func (m *localMachine) wantNoServer(t *testing.T, when string) {
	t.Helper()
	_, err := m.servingPlatform(t)
	if !errors.Is(err, cloudutil.ErrNoServingPlatform) || cmdutil.ExitCode(err) != cmdutil.ExitError ||
		!strings.Contains(err.Error(), "sessions need a platform that outlives this command: run `botkit-platform serve --local` (in another terminal)") {
		t.Errorf("%s: the finder said %v (exit %d)", when, err, cmdutil.ExitCode(err))
	}
}

// botkit-platform serve --local serves the local context's own data beside
// botkit's commands: the record appears (loopback URL, its pid), the
// commands and the finder's client see the same objects, a second server is
// refused, SIGTERM removes the record, and after kill -9 the stale record
// is ignored and a new server takes its place.
func TestServeLocal(t *testing.T) {
	ctx := context.Background()
	m := newLocalMachine(t, "unix://"+filepath.Join(t.TempDir(), "no-docker.sock"))
	m.wantNoServer(t, "before any server")

	s := m.serve(t)
	r, err := local.Serving(ctx, m.dataDir)
	if err != nil || r == nil || r.URL != s.URL || r.PID != s.PID() || !strings.HasPrefix(r.URL, "http://127.0.0.1:") {
		t.Fatalf("the serving record: %+v %v (server at %s, pid %d)", r, err, s.URL, s.PID())
	}
	if fi, err := os.Stat(filepath.Join(m.dataDir, local.RecordFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the record's mode: %v %v", fi, err)
	}

	// botkit's commands keep working beside it, on the same data.
	if code, _, errOut := m.botkit(t, "cloud", "secrets", "set", "bot-secrets", "API_KEY="+canary); code != 0 {
		t.Fatalf("secrets set: exit %d: %s", code, errOut)
	}
	f, err := m.servingPlatform(t)
	if err != nil {
		t.Fatalf("the finder, with a server: %v", err)
	}
	c, err := f.ServingPlatform(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Embedded() || c.BaseURL() != s.URL {
		t.Errorf("the finder's client is not the server's: %q", c.BaseURL())
	}
	o, err := c.Get(ctx, local.Org, "bot-secrets")
	if err != nil || o.SecretSet == nil || strings.Join(o.SecretSet.Spec.Keys, ",") != "API_KEY" {
		t.Fatalf("the server's view of bot-secrets: %+v %v", o, err)
	}
	if _, _, err := c.Merge(ctx, local.Org, "served", resources.Patch{Set: map[string]string{"K": "v"}}, ""); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := m.botkit(t, "cloud", "secrets", "list", "-o", "name")
	if code != 0 || !strings.Contains(out, "bot-secrets") || !strings.Contains(out, "served") {
		t.Errorf("secrets list beside the server: exit %d, %q %q", code, out, errOut)
	}

	// One server per data directory: the second says where the first is.
	second := exec.Command(m.bin, "serve", "--local", "--listen", "127.0.0.1:0")
	second.Env = append(os.Environ(), m.environ...)
	var stderr bytes.Buffer
	second.Stderr = &stderr
	if err := second.Run(); second.ProcessState.ExitCode() != cmdutil.ExitError || !strings.Contains(stderr.String(), "already serves") || !strings.Contains(stderr.String(), s.URL) {
		t.Errorf("a second serve --local: %v, %q", err, stderr.String())
	}
	// The loopback only.
	wide := exec.Command(m.bin, "serve", "--local", "--listen", "0.0.0.0:1")
	wide.Env = append(os.Environ(), m.environ...)
	stderr.Reset()
	wide.Stderr = &stderr
	if err := wide.Run(); wide.ProcessState.ExitCode() != cmdutil.ExitUsage || !strings.Contains(stderr.String(), "--listen 0.0.0.0:1") {
		t.Errorf("serve --local --listen 0.0.0.0:1: %v, %q", err, stderr.String())
	}

	// SIGTERM: the record goes with the server.
	s.StopWith(syscall.SIGTERM)
	if _, err := os.Stat(filepath.Join(m.dataDir, local.RecordFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the record after SIGTERM: %v", err)
	}
	m.wantNoServer(t, "after SIGTERM")

	// kill -9: the record stays, stale, and is ignored; a new server
	// takes the directory over.
	s = m.serve(t)
	s.Kill()
	if _, err := os.Stat(filepath.Join(m.dataDir, local.RecordFile)); err != nil {
		t.Fatalf("no record left by kill -9 to test: %v", err)
	}
	m.wantNoServer(t, "after kill -9")
	s = m.serve(t)
	if r, err := local.Serving(ctx, m.dataDir); err != nil || r == nil || r.PID != s.PID() {
		t.Errorf("a new server after kill -9: %+v %v", r, err)
	}
	if code, out, errOut := m.botkit(t, "cloud", "secrets", "list", "-o", "name"); code != 0 || !strings.Contains(out, "served") {
		t.Errorf("secrets list: exit %d, %q %q", code, out, errOut)
	}
}

// For a remote context the finder returns the context's own client.
func TestServingPlatformRemote(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir(), "BOTKIT_API_URL": "https://platform.example", "BOTKIT_TOKEN": "bkp_x"}
	f := newFactory(t, env)
	c, err := f.ServingPlatform(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if a, err := f.APIClient(context.Background()); err != nil || a != c {
		t.Errorf("the remote context's serving platform is not its client: %v", err)
	}
}

// With serve --local running, a deploy made by a botkit command is rolled
// out by the server: the command's controller never takes the region (the
// server holds its lock), and the rollout goes on after the command ended
// — started, settled, promoted — as only a platform that outlives the
// command can do it.
func TestServeLocalRollsOut(t *testing.T) {
	e := dockertest.Start(t)
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), "bot", "registry-pass-l1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	img := e.PushAgent(t, host, "acme/agent:1", "bot", "registry-pass-l1", dockertest.ImageOptions{})
	ctx := context.Background()
	m := newLocalMachine(t, e.Host)
	m.serve(t)

	// botkit's commands on the local context: the secrets, then a deploy
	// that returns once the deployment is recorded (the command ends).
	for _, args := range [][]string{
		{"cloud", "secrets", "set", "bot-secrets", "API_KEY=" + canary, "BOTKIT_TEST_PRINT=API_KEY"},
		{"cloud", "secrets", "image-pull-secret", "reg", host, "bot:registry-pass-l1", "--wait"},
	} {
		if code, _, errOut := m.botkit(t, args...); code != 0 {
			t.Fatalf("botkit %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
	}
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, "server"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"cloud-deploy.toml": "agent_name = \"bot\"\nimage = \"" + img.Ref + "\"\nimage_credentials = \"reg\"\nsecret_set = \"bot-secrets\"\n\n[scaling]\nmin_agents = 1\n",
		".env.example":      "API_KEY=\n",
	} {
		if err := os.WriteFile(filepath.Join(proj, "server", name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errOut := m.botkit(t, "deploy", proj, "--no-wait"); code != 0 {
		t.Fatalf("botkit deploy --no-wait: exit %d: %s %s", code, out, errOut)
	}

	f, err := m.servingPlatform(t)
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.ServingPlatform(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const org = local.Org
	if d, err := c.WaitRollout(ctx, org, "bot", 1, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("the rollout, after the command ended: %+v %v", d, err)
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
	// botkit's own command sees it serving, beside the server.
	code, out, errOut := m.botkit(t, "cloud", "agents", "list", "-o", "name")
	if code != 0 || strings.TrimSpace(out) != "agent/bot" {
		t.Errorf("agents list: exit %d, %q %q", code, out, errOut)
	}
	if log, err := os.ReadFile(m.log.Name()); err != nil || !strings.Contains(string(log), "driving the region's agents") {
		t.Errorf("the server does not say it drives the regions: %v\n%s", err, log)
	}
}

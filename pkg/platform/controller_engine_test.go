package platform_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// What the agents' controller guarantees on a real engine: reads change
// nothing, and one organization's stalling registry holds up no other's
// agents.
func TestControllerOnTheEngine(t *testing.T) {
	env := newEngineEnv(t)
	t.Run("reads-change-nothing", func(t *testing.T) { readsChangeNothing(t, env) })
	t.Run("stalling-registry", func(t *testing.T) { stallingRegistry(t, env) })
	t.Run("rollout-keeps-the-serving-count", func(t *testing.T) { rolloutKeepsServingCount(t, env) })
}

// A rollout to a larger count starts the new deployment's agents only,
// without pulling again an image its deploy has just resolved:
// the serving deployment keeps the agents it has while the new ones come
// up, then goes. (The serving deployment was grown to the new count at
// once, and the extra agents removed at the promotion: a 1 → 10 deploy
// started 19 agents.)
func rolloutKeepsServingCount(t *testing.T, env *engineEnv) {
	ctx := context.Background()
	counting := &countingRuntime{Runtime: env.rt, calls: map[string]int{}}
	base, _ := platformtest.Start(t, platform.Options{DataDir: t.TempDir(), AllowPrivateRegistries: true, NoAuthOrg: "local",
		Runtimes: map[string]runtime.Runtime{"us-west": counting}, AgentNetwork: "none", AgentSettle: 2 * time.Second,
		ReconcileInterval: 100 * time.Millisecond})
	c, err := client.New(client.Options{BaseURL: base, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	const org = "local"
	putPullSecret(t, c, org, env.host)
	agent := func(n int) *resources.Agent {
		return &resources.Agent{Metadata: resources.ObjectMeta{Name: "grower"},
			Spec: resources.AgentSpec{Image: env.image.Ref, ImagePullSecret: "reg", Scaling: &resources.AgentScaling{MinAgents: n, MaxAgents: n}}}
	}
	byDeployment := func() map[string]int {
		t.Helper()
		cs, err := env.rt.List(ctx, runtime.Selector{runtime.LabelAgent: "grower"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, c := range cs {
			out[c.Labels[runtime.LabelDeployment]]++
		}
		return out
	}
	d, err := c.Deploy(ctx, org, "grower", resources.DeployRequest{Agent: agent(1)})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = c.WaitRollout(ctx, org, "grower", d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("rollout 1: %+v %v", d, err)
	}
	before := counting.changes()
	d, err = c.Deploy(ctx, org, "grower", resources.DeployRequest{Agent: agent(3)})
	if err != nil {
		t.Fatal(err)
	}
	// While deployment 2 settles: deployment 1 keeps its one agent.
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if got := byDeployment(); got["1"] != 1 {
			t.Fatalf("during the rollout, the serving deployment runs %d agents, want its 1 (all: %v)", got["1"], got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if d, err = c.WaitRollout(ctx, org, "grower", d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("rollout 2: %+v %v", d, err)
	}
	testenv.Eventually(t, "deployment 1's agent gone", func() bool { got := byDeployment(); return got["1"] == 0 && got["2"] == 3 })
	after := counting.changes()
	if starts := after["Start"] - before["Start"]; starts != 1 {
		t.Errorf("the rollout made %d start calls, want 1 (deployment 2's three agents)", starts)
	}
	// The deploy asked the registry for the image (its digest resolved
	// with the pull secret); the engine holds it: no pull again.
	if pulls := after["Pull"] - before["Pull"]; pulls != 0 {
		t.Errorf("the rollout pulled %d times an image the engine holds and the deploy had just resolved", pulls)
	}
	if _, err := c.DeleteAgent(ctx, org, "grower"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the agent's containers removed", func() bool { return len(byDeployment()) == 0 })
}

// countingRuntime is the real engine's runtime, counting the calls that
// change what runs.
type countingRuntime struct {
	runtime.Runtime
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingRuntime) count(call string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[call]++
}

// changes returns the calls counted so far, by name.
func (c *countingRuntime) changes() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.calls {
		out[k] = v
	}
	return out
}

func (c *countingRuntime) Start(ctx context.Context, spec runtime.StartSpec) ([]runtime.Agent, error) {
	c.count("Start")
	return c.Runtime.Start(ctx, spec)
}

func (c *countingRuntime) Remove(ctx context.Context, id string, grace time.Duration) error {
	c.count("Remove")
	return c.Runtime.Remove(ctx, id, grace)
}

func (c *countingRuntime) Restart(ctx context.Context, id string, grace time.Duration) error {
	c.count("Restart")
	return c.Runtime.Restart(ctx, id, grace)
}

func (c *countingRuntime) SetRestartPolicy(ctx context.Context, id string, p runtime.RestartPolicy) error {
	c.count("SetRestartPolicy")
	return c.Runtime.SetRestartPolicy(ctx, id, p)
}

func (c *countingRuntime) Pull(ctx context.Context, image string, creds *runtime.Credentials) error {
	c.count("Pull")
	return c.Runtime.Pull(ctx, image, creds)
}

func (c *countingRuntime) EnsureNetwork(ctx context.Context, name string) error {
	c.count("EnsureNetwork")
	return c.Runtime.EnsureNetwork(ctx, name)
}

// Reads change nothing. The platform's controller waits for the region
// (another process of the data directory holds it, as another botkit
// command does); one of the agent's two agents is killed; a burst of
// every read — the agent, its status, deployments, a deployment, the
// list, the logs —, then reads while the engine hangs (SIGSTOP), make no
// call that starts, stops or removes anything, and each returns (the
// frozen engine's status says it does not answer). Once the region is
// free, the controller replaces the dead agent. (Every read ran a
// reconcile pass: reads waited for the region's lock held elsewhere, and
// with it they replaced agents, pulled images and removed containers;
// against a hung engine they never returned.)
func readsChangeNothing(t *testing.T, env *engineEnv) {
	ctx := context.Background()
	dir := t.TempDir()
	// The region's lock of the data directory: a semaphore the
	// controller takes, or the test as the other process.
	sem := make(chan struct{}, 1)
	lock := func(ctx context.Context, region string) (func(), error) {
		select {
		case sem <- struct{}{}:
			return func() { <-sem }, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	counting := &countingRuntime{Runtime: env.rt, calls: map[string]int{}}
	open := func() (*platform.Server, *client.Client) {
		base, srv := platformtest.Start(t, platform.Options{DataDir: dir, AllowPrivateRegistries: true, NoAuthOrg: "local",
			Runtimes: map[string]runtime.Runtime{"us-west": counting}, AgentNetwork: "none", AgentSettle: 300 * time.Millisecond,
			ReconcileInterval: 100 * time.Millisecond, ReconcileLock: lock})
		c, err := client.New(client.Options{BaseURL: base, Timeout: 2 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return srv, c
	}
	srv, c := open()
	const org = "local"
	putPullSecret(t, c, org, env.host)
	if _, _, err := c.PutAgent(ctx, org, resources.Agent{Metadata: resources.ObjectMeta{Name: "reader"},
		Spec: resources.AgentSpec{Image: env.image.Ref, ImagePullSecret: "reg", Scaling: &resources.AgentScaling{MinAgents: 2}}}, ""); err != nil {
		t.Fatal(err)
	}
	d, err := c.Deploy(ctx, org, "reader", resources.DeployRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = c.WaitRollout(ctx, org, "reader", d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("rollout: %+v %v", d, err)
	}
	srv.Close() // its controller lets go of the region
	sem <- struct{}{}
	released := false
	release := func() {
		if !released {
			released = true
			<-sem
		}
	}
	defer release()
	srv, c = open()
	list := func() []runtime.Agent {
		t.Helper()
		cs, err := env.rt.List(ctx, runtime.Selector{runtime.LabelAgent: "reader"})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	running := func() int {
		n := 0
		for _, c := range list() {
			if c.State == runtime.StateRunning {
				n++
			}
		}
		return n
	}
	cs := list()
	if len(cs) != 2 {
		t.Fatalf("%d containers, want 2", len(cs))
	}
	if err := env.e.Client.Do(ctx, http.MethodPost, "/containers/"+cs[0].ID+"/kill", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the killed agent stopped", func() bool { return running() == 1 })
	before := counting.changes()

	reads := map[string]func(context.Context) error{
		"GET agent":  func(ctx context.Context) error { _, err := c.Agent(ctx, org, "reader"); return err },
		"GET status": func(ctx context.Context) error { _, err := c.AgentStatus(ctx, org, "reader"); return err },
		"GET deployments": func(ctx context.Context) error {
			_, err := c.Deployments(ctx, org, "reader")
			return err
		},
		"GET deployment": func(ctx context.Context) error {
			_, err := c.Deployment(ctx, org, "reader", d.Number)
			return err
		},
		"GET list": func(ctx context.Context) error { _, err := c.Agents(ctx, org, ""); return err },
		"GET logs": func(ctx context.Context) error {
			return c.AgentLogs(ctx, org, "reader", client.LogOptions{}, func(resources.AgentLogLine) error { return nil })
		},
	}
	within := func(what string, f func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		return testenv.Within(t, what, done)
	}
	for range 5 {
		for what, read := range reads {
			if err := within(what, func() error { return read(ctx) }); err != nil {
				t.Errorf("%s: %v", what, err)
			}
		}
	}
	st, err := c.AgentStatus(ctx, org, "reader")
	if err != nil || st.Agent.Status == nil || st.Agent.Status.Agents.Ready != 1 {
		t.Errorf("status with one agent dead: %+v %v", st.Agent.Status, err)
	}

	// The engine hangs: a read answers what the store says, and that
	// the engine does not.
	env.e.Freeze(t)
	for _, what := range []string{"GET agent", "GET status"} {
		if err := within(what+" with the engine frozen", func() error { return reads[what](ctx) }); err != nil {
			t.Errorf("%s with the engine frozen: %v", what, err)
		}
	}
	var a resources.Agent
	if err := within("GET agent with the engine frozen", func() (err error) { a, err = c.Agent(ctx, org, "reader"); return err }); err != nil {
		t.Fatal(err)
	}
	if a.Status == nil || !strings.Contains(a.Status.Message, "does not answer") {
		t.Errorf("status with the engine frozen: %+v", a.Status)
	}
	env.e.Thaw()
	if after := counting.changes(); !equalCounts(before, after) {
		t.Errorf("reads changed what runs: engine calls before %v, after %v", before, after)
	}
	if n := len(list()); n != 2 {
		t.Errorf("reads left %d containers of 2", n)
	}

	// The region free, the controller replaces the dead agent (the
	// counter sees what it does).
	release()
	testenv.Eventually(t, "the controller replaced the killed agent", func() bool { return running() == 2 })
	if after := counting.changes(); after["Start"] <= before["Start"] {
		t.Errorf("the replacement was not counted: before %v, after %v", before, after)
	}
	if _, err := c.DeleteAgent(ctx, org, "reader"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "no container after delete", func() bool { return len(list()) == 0 })
	srv.Close()
}

func equalCounts(a, b map[string]int) bool {
	for _, k := range []string{"Start", "Remove", "Restart", "SetRestartPolicy", "Pull", "EnsureNetwork"} {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// stallRegistry stands for a registry that stalls: it serves the test
// agent image's manifest and config (what a deploy checks), and holds
// every layer download open until the test ends. held counts the
// downloads it holds.
type stallRegistry struct {
	manifest, config      []byte
	mediaType, configPath string
	sizes                 map[string]int // a layer's size, by path
	held                  atomic.Int32
	stop                  chan struct{}
}

func newStallRegistry(t *testing.T, env *engineEnv) *httptest.Server {
	t.Helper()
	s := &stallRegistry{stop: make(chan struct{})}
	get := func(path, accept string) ([]byte, string) {
		req, err := http.NewRequest(http.MethodGet, env.regURL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth(agentsRegUser, agentsRegPass)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		return b, resp.Header.Get("Content-Type")
	}
	// Another image than the test agent's (the stand-in): the engine
	// downloads a layer once for every pull that wants it, so a layer of
	// both images would stall the other organization's pull too.
	env.e.PushAgent(t, env.host, "acme/stall:1", agentsRegUser, agentsRegPass, dockertest.ImageOptions{Standin: true})
	s.manifest, s.mediaType = get("/v2/acme/stall/manifests/1",
		"application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json")
	var m struct {
		Config struct {
			Digest string `json:"digest"`
		} `json:"config"`
		Layers []struct {
			Digest string `json:"digest"`
			Size   int    `json:"size"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(s.manifest, &m); err != nil || m.Config.Digest == "" {
		t.Fatalf("the image's manifest: %v %s", err, s.manifest)
	}
	s.config, _ = get("/v2/acme/stall/blobs/"+m.Config.Digest, "*/*")
	s.configPath = "/v2/stall/agent/blobs/" + m.Config.Digest
	s.sizes = map[string]int{}
	for _, l := range m.Layers {
		s.sizes["/v2/stall/agent/blobs/"+l.Digest] = l.Size
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		close(s.stop)
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs
}

func (s *stallRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/v2/":
		w.WriteHeader(http.StatusOK)
	case strings.HasPrefix(r.URL.Path, "/v2/stall/agent/manifests/"):
		w.Header().Set("Content-Type", s.mediaType)
		w.Header().Set("Docker-Content-Digest", fmt.Sprintf("sha256:%x", sha256.Sum256(s.manifest)))
		w.Header().Set("Content-Length", strconv.Itoa(len(s.manifest)))
		if r.Method != http.MethodHead {
			_, _ = w.Write(s.manifest) // error ignored: a client that went away is the pull the test stalls
		}
	case r.URL.Path == s.configPath:
		w.Header().Set("Content-Length", strconv.Itoa(len(s.config)))
		_, _ = w.Write(s.config) // error ignored: a client that went away is the pull the test stalls
	case strings.HasPrefix(r.URL.Path, "/v2/stall/agent/blobs/"):
		// A layer: the download starts and never goes on.
		s.held.Add(1)
		defer s.held.Add(-1)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(s.sizes[r.URL.Path]))
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
	default:
		http.NotFound(w, r)
	}
}

// One organization's registry stalls in the middle of a pull: while its
// deploy pulls, another organization of the same region deploys from its
// own registry, scales and reads its status. (Every pass over the region
// ran under one lock, pulls included: the stalled pull held every other
// organization's deploy, scale and status until it ended — with no
// deadline, never.)
func stallingRegistry(t *testing.T, env *engineEnv) {
	ctx := context.Background()
	stall := newStallRegistry(t, env)
	s := stall.Config.Handler.(*stallRegistry)
	base, srv := platformtest.Start(t, platform.Options{DataDir: t.TempDir(), AllowPrivateRegistries: true,
		Runtimes: map[string]runtime.Runtime{"us-west": env.rt}, AgentNetwork: "none", AgentSettle: 300 * time.Millisecond})
	platformtest.CreateOrg(t, srv, "slow", "")
	platformtest.CreateOrg(t, srv, "quick", "")
	clientOf := func(org string) *client.Client {
		c, err := client.New(client.Options{BaseURL: base, Token: platformtest.CreateToken(t, srv, org, "ci"), Timeout: 2 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	slow, quick := clientOf("slow"), clientOf("quick")

	stallImage := strings.TrimPrefix(stall.URL, "http://") + "/stall/agent:1"
	if _, _, err := slow.PutAgent(ctx, "slow", resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"},
		Spec: resources.AgentSpec{Image: stallImage}}, ""); err != nil {
		t.Fatal(err)
	}
	sd, err := slow.Deploy(ctx, "slow", "bot", resources.DeployRequest{})
	if err != nil || sd.Result != resources.DeploymentRollingOut {
		t.Fatalf("the stalling registry's deploy: %+v %v", sd, err)
	}
	testenv.Eventually(t, "the engine's pull stalls in a layer download", func() bool {
		return s.held.Load() > 0
	})

	putPullSecret(t, quick, "quick", env.host)
	if _, _, err := quick.PutAgent(ctx, "quick", resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"},
		Spec: resources.AgentSpec{Image: env.image.Ref, ImagePullSecret: "reg"}}, ""); err != nil {
		t.Fatal(err)
	}
	qd, err := quick.Deploy(ctx, "quick", "bot", resources.DeployRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if qd, err = quick.WaitRollout(ctx, "quick", "bot", qd.Number, nil); err != nil || qd.Result != resources.DeploymentServing {
		t.Fatalf("the other organization's rollout: %+v %v", qd, err)
	}
	if _, err := quick.PatchAgent(ctx, "quick", "bot", resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 2}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the other organization's agent scaled to 2", func() bool {
		st, err := quick.AgentStatus(ctx, "quick", "bot")
		return err == nil && st.Agent.Status != nil && st.Agent.Status.Agents.Ready == 2
	})
	// All of it while the stalled pull went on.
	if s.held.Load() == 0 {
		t.Error("the stalled pull ended before the other organization's commands did")
	}
	if d, err := slow.Deployment(ctx, "slow", "bot", sd.Number); err != nil || d.Result != resources.DeploymentRollingOut {
		t.Errorf("the stalled deployment: %+v %v", d, err)
	}
	if _, err := quick.DeleteAgent(ctx, "quick", "bot"); err != nil {
		t.Fatal(err)
	}
	if _, err := slow.DeleteAgent(ctx, "slow", "bot"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the other organization's containers removed", func() bool {
		cs, err := env.rt.List(ctx, runtime.Selector{runtime.LabelOrganization: "quick"})
		return err == nil && len(cs) == 0
	})
}

package platform_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/agents"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// requestCalls is the real engine's runtime, recording the calls made
// while the platform serves an HTTP request (the request's context carries
// the server's local address; the controller's own calls do not).
type requestCalls struct {
	runtime.Runtime
	mu    sync.Mutex
	calls []string
}

func (c *requestCalls) note(ctx context.Context, call string) {
	if ctx.Value(http.LocalAddrContextKey) == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, call)
}

// take returns the calls recorded since the last take.
func (c *requestCalls) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = nil
	return out
}

func (c *requestCalls) Pull(ctx context.Context, image string, creds *runtime.Credentials) error {
	c.note(ctx, "Pull")
	return c.Runtime.Pull(ctx, image, creds)
}

func (c *requestCalls) ImageDigest(ctx context.Context, image string) (string, error) {
	c.note(ctx, "ImageDigest")
	return c.Runtime.ImageDigest(ctx, image)
}

func (c *requestCalls) Start(ctx context.Context, spec runtime.StartSpec) ([]runtime.Agent, error) {
	c.note(ctx, "Start")
	return c.Runtime.Start(ctx, spec)
}

func (c *requestCalls) List(ctx context.Context, sel runtime.Selector) ([]runtime.Agent, error) {
	c.note(ctx, "List")
	return c.Runtime.List(ctx, sel)
}

func (c *requestCalls) Remove(ctx context.Context, id string, grace time.Duration) error {
	c.note(ctx, "Remove")
	return c.Runtime.Remove(ctx, id, grace)
}

func (c *requestCalls) Restart(ctx context.Context, id string, grace time.Duration) error {
	c.note(ctx, "Restart")
	return c.Runtime.Restart(ctx, id, grace)
}

func (c *requestCalls) SetRestartPolicy(ctx context.Context, id string, p runtime.RestartPolicy) error {
	c.note(ctx, "SetRestartPolicy")
	return c.Runtime.SetRestartPolicy(ctx, id, p)
}

func (c *requestCalls) Logs(ctx context.Context, agents []runtime.Agent, opts runtime.LogOptions, fn func(runtime.LogLine) error) error {
	c.note(ctx, "Logs")
	return c.Runtime.Logs(ctx, agents, opts, fn)
}

func (c *requestCalls) Platform(ctx context.Context) (string, error) {
	c.note(ctx, "Platform")
	return c.Runtime.Platform(ctx)
}

func (c *requestCalls) EnsureNetwork(ctx context.Context, name string) error {
	c.note(ctx, "EnsureNetwork")
	return c.Runtime.EnsureNetwork(ctx, name)
}

// A warm start asks the engine nothing: the platform claims an idle agent
// it already knows (from its controller's looks and the engine's events)
// and sends its /bot, and the agent runs with the restart policy it
// started with ("no": an agent in a session is not started again). The
// session's proxy asks the engine nothing either. (A start listed the
// deployment's containers and changed the claimed agent's restart policy
// on the engine: two engine calls before /bot.)
func warmClaim(t *testing.T, e *dockertest.Engine, rt *docker.Runtime, img dockertest.Image, host string) {
	calls := &requestCalls{Runtime: rt}
	v := newSessionEnv(t, e, rt, img, host, platform.Options{Runtimes: map[string]runtime.Runtime{"us-west": calls}})
	ctx := context.Background()
	v.deploy("warm", 2, 3)
	v.waitPool("warm", resources.AgentPool{Idle: 2, Max: 3})
	// One start first, not looked at: the pool's agents have been asked
	// whether they take a session by then.
	first, code := v.start("warm", resources.SessionStartRequest{})
	if code != http.StatusOK {
		t.Fatalf("first start: %d", code)
	}
	agent, _ := v.sessionAgent("warm", first.SessionID)
	if _, err := agent.End(ctx, first.SessionID); err != nil {
		t.Fatal(err)
	}
	v.waitSession("warm", first.SessionID, resources.SessionEnded)
	v.waitPool("warm", resources.AgentPool{Idle: 2, Max: 3})

	calls.take()
	started, code := v.start("warm", resources.SessionStartRequest{})
	if code != http.StatusOK {
		t.Fatalf("warm start: %d", code)
	}
	if got := calls.take(); len(got) != 0 {
		t.Errorf("a warm start called the engine: %v", got)
	}
	agent, c := v.sessionAgent("warm", started.SessionID)
	if c.Restart.Name != runtime.RestartNever {
		t.Errorf("the agent in the session has the restart policy %q, want %q", c.Restart.Name, runtime.RestartNever)
	}
	calls.take()
	resp, b := v.public(http.MethodPost, "/v1/public/warm/sessions/"+started.SessionID+"/api/offer", map[string]any{"sdp": "x", "type": "offer", "pc_id": "pc-9"}, nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("offer: %d %s", resp.StatusCode, b)
	}
	if got := calls.take(); len(got) != 0 {
		t.Errorf("a proxied request called the engine: %v", got)
	}
	if _, err := agent.End(ctx, started.SessionID); err != nil {
		t.Fatal(err)
	}
	v.waitSession("warm", started.SessionID, resources.SessionEnded)
}

// A start that comes while the pool's only agent, ready a moment ago, is
// waiting to be asked again whether it takes a session (it said no while
// it started; the asks back off) claims that agent: it is asked at once,
// and no agent is started on demand beside it. (Such a start went on
// demand: the caller waited for the next ask or a cold start while a warm
// agent sat idle.)
func claimBetweenAsks(v *sessionEnv) {
	t, ctx := v.t, context.Background()
	v.deployReadyAfter("between", "later", "2s", 1, 3)
	v.waitPool("between", resources.AgentPool{Idle: 1, Max: 3})
	// The first session claims the pool's agent; its refill starts, and
	// says it takes no session for its first 2 s.
	first, code := v.start("between", resources.SessionStartRequest{})
	if code != http.StatusOK {
		t.Fatalf("first start: %d", code)
	}
	firstStandin, firstAgent := v.sessionAgent("between", first.SessionID)
	var refill runtime.Agent
	testenv.Eventually(t, "the pool's refill", func() bool {
		for _, c := range v.containers("between") {
			if c.ID != firstAgent.ID && c.Endpoint != "" {
				refill = c
				return true
			}
		}
		return false
	})
	poll := &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	testenv.Eventually(t, "the refill ready", func() bool {
		resp, err := poll.Get("http://" + refill.Endpoint + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	second, code := v.start("between", resources.SessionStartRequest{})
	if code != http.StatusOK {
		t.Fatalf("second start: %d", code)
	}
	secondStandin, secondAgent := v.sessionAgent("between", second.SessionID)
	if secondAgent.ID != refill.ID {
		t.Errorf("the session is on agent %s, not on the idle one %s", secondAgent.ID, refill.ID)
	}
	for _, c := range v.containers("between") {
		if c.Labels[agents.LabelOnDemand] != "" {
			t.Errorf("an agent was started on demand (%s) while agent %s was idle and ready", c.ID, refill.ID)
		}
	}
	for _, s := range []struct {
		standin dockertest.Standin
		id      string
	}{{firstStandin, first.SessionID}, {secondStandin, second.SessionID}} {
		if _, err := s.standin.End(ctx, s.id); err != nil {
			t.Fatal(err)
		}
		v.waitSession("between", s.id, resources.SessionEnded)
	}
}

// Ten starts at once with no agent idle (minAgents 0; the agents started
// for them answer /readyz with 200 only 800 ms after they start) share their
// looks at the engine while they wait: one list of the deployment's
// containers at a time, not one per start every claimLook (ten starts
// listed the containers ten times every 100 ms, enough to keep a small
// engine busy and slow the very agents they waited for).
func sharedLooksWhileWaiting(t *testing.T, e *dockertest.Engine, rt *docker.Runtime, img dockertest.Image, host string) {
	calls := &requestCalls{Runtime: rt}
	v := newSessionEnv(t, e, rt, img, host, platform.Options{Runtimes: map[string]runtime.Runtime{"us-west": calls}})
	ctx := context.Background()
	const starts = 10
	v.deployReadyAfter("herd", "later", "800ms", 0, starts)
	testenv.Eventually(t, "scaled to zero", func() bool { return len(v.containers("herd")) == 0 })
	calls.take()
	var wg sync.WaitGroup
	ids := make([]string, starts)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started, code := v.start("herd", resources.SessionStartRequest{})
			if code != http.StatusOK {
				t.Errorf("start %d: %d", i, code)
			}
			ids[i] = started.SessionID
		}()
	}
	wg.Wait()
	lists := 0
	for _, c := range calls.take() {
		if c == "List" {
			lists++
		}
	}
	// Shared: about one list per claimLook until the agents are ready
	// (800 ms and their start); one per start and claimLook is over 100.
	if lists > 3*starts {
		t.Errorf("%d starts waiting for agents listed the engine's containers %d times", starts, lists)
	}
	t.Logf("%d starts waiting for their agents: %d lists of the engine's containers", starts, lists)
	for _, id := range ids {
		if id == "" {
			continue
		}
		standin, _ := v.sessionAgent("herd", id)
		if _, err := standin.End(ctx, id); err != nil {
			t.Fatal(err)
		}
		v.waitSession("herd", id, resources.SessionEnded)
	}
}

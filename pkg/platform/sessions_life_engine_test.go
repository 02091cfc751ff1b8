package platform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/agents"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The life of sessions on a real engine, beyond a start and its end: an
// agent that crashes mid-session, the idle window and a shrinking pool, a
// session past its longest duration, and two replicas on one PostgreSQL
// database taking 50 starts at once. Every exchange is held to
// api/openapi.yaml; nothing secret is in an answer, the log or the data.
func TestSessionLifeOnTheEngine(t *testing.T) {
	e, rt, img, host := engineWithImage(t, "acme/pcc:1", dockertest.ImageOptions{Standin: true})
	// The default idle window (5 minutes, longer than any wait of the
	// test): the pool's own agents above minAgents go without it.
	v := newSessionEnv(t, e, rt, img, host, platform.Options{})
	t.Run("group", func(t *testing.T) {
		t.Run("crash", func(t *testing.T) { t.Parallel(); sessionCrash(v.in(t)) })
		t.Run("pool-shrinks", func(t *testing.T) { t.Parallel(); poolShrinks(v.in(t)) })
		t.Run("max-duration", func(t *testing.T) { t.Parallel(); maxDuration(v.in(t)) })
		t.Run("idle-window", func(t *testing.T) { t.Parallel(); idleWindow(t, e, rt, img, host) })
		t.Run("warm-claim", func(t *testing.T) { t.Parallel(); warmClaim(t, e, rt, img, host) })
		t.Run("claim-between-asks", func(t *testing.T) { t.Parallel(); claimBetweenAsks(v.in(t)) })
		t.Run("shared-looks", func(t *testing.T) { t.Parallel(); sharedLooksWhileWaiting(t, e, rt, img, host) })
		t.Run("ice-config", func(t *testing.T) { t.Parallel(); iceConfig(t, e, rt, img, host) })
		t.Run("postgres-replicas", func(t *testing.T) { t.Parallel(); racingStarts(t, rt, img, host) })
	})
	// The canary, after those sessions' lives: the secret value and the
	// public key are in no line of the server's log and no file of its
	// data directory.
	for what, s := range map[string]string{"secret value": sessionsCanary, "public key": v.key} {
		if strings.Contains(v.log.String(), s) {
			t.Errorf("the server log holds the %s", what)
		}
		grepTree(t, v.dataDir, s)
	}
}

// in is v for subtest t (its failures are t's; its client's exchanges
// checked for t).
func (v *sessionEnv) in(t *testing.T) *sessionEnv {
	w := *v
	w.t = t
	w.http = &http.Client{Transport: checked{t: t, c: v.contract, canary: sessionsCanary}}
	c, err := client.New(client.Options{BaseURL: v.base, Token: v.tok, Transport: checked{t: t, c: v.contract, canary: sessionsCanary}, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	w.c = c
	return &w
}

// deployAgent deploys a and waits for it to serve.
func (v *sessionEnv) deployAgent(a resources.Agent) {
	v.t.Helper()
	ctx := context.Background()
	d, err := v.c.Deploy(ctx, v.org, a.Metadata.Name, resources.DeployRequest{Agent: &a})
	if err != nil {
		v.t.Fatal(err)
	}
	if d, err = v.c.WaitRollout(ctx, v.org, a.Metadata.Name, d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		v.t.Fatalf("rollout of %s: %+v %v", a.Metadata.Name, d, err)
	}
}

// deployReadyAfter deploys agent name (minAgents min, maxAgents max)
// with secret set set, which makes the stand-in answer /readyz with 200
// only once after has passed since it started.
func (v *sessionEnv) deployReadyAfter(name, set, after string, min, max int) {
	v.t.Helper()
	ctx := context.Background()
	if _, _, err := v.c.Merge(ctx, v.org, set, resources.Patch{Set: map[string]string{standinapi.ReadyAfterEnv: after}}, ""); err != nil {
		v.t.Fatal(err)
	}
	if _, err := v.c.WaitAll(ctx, v.org, []string{set}); err != nil {
		v.t.Fatal(err)
	}
	v.deployAgent(resources.Agent{Metadata: resources.ObjectMeta{Name: name}, Spec: resources.AgentSpec{Image: v.image.Ref, ImagePullSecret: "reg",
		SecretSet: set, Scaling: &resources.AgentScaling{MinAgents: min, MaxAgents: max}}})
}

// waitPool waits until agent name's pool is want.
func (v *sessionEnv) waitPool(name string, want resources.AgentPool) {
	v.t.Helper()
	testenv.Eventually(v.t, fmt.Sprintf("the pool of %s at %+v", name, want), func() bool {
		st, err := v.c.AgentStatus(context.Background(), v.org, name)
		return err == nil && st.Agent.Status.Pool != nil && *st.Agent.Status.Pool == want
	})
}

// An agent that crashes mid-session: the session is failed with how its
// agent ended and its last log lines, the secret value masked in them; the
// pool is refilled with a fresh agent.
func sessionCrash(v *sessionEnv) {
	t, ctx := v.t, context.Background()
	v.deploy("crashy", 1, 2)
	if _, code := v.start("nosuch", resources.SessionStartRequest{}); code != http.StatusNotFound {
		t.Errorf("a start on an unknown agent: %d, want 404", code)
	}
	started, code := v.start("crashy", resources.SessionStartRequest{})
	if code != http.StatusOK {
		t.Fatalf("start: %d", code)
	}
	agent, c := v.sessionAgent("crashy", started.SessionID)
	v.waitSession("crashy", started.SessionID, resources.SessionActive)
	if err := agent.Crash(ctx, 9); err != nil {
		t.Logf("crash: %v", err) // the agent may be gone before its answer
	}
	// The stand-in printed "value of API_KEY: <the value>"; the variable's
	// name is a value of the set too (BOTKIT_TEST_PRINT's): both masked.
	s := v.waitSession("crashy", started.SessionID, resources.SessionFailed)
	if !strings.Contains(s.EndReason, "exited 9") || !strings.Contains(s.EndReason, "last log lines:") ||
		!strings.Contains(s.EndReason, "value of ****: ****") || !strings.Contains(s.EndReason, "crashing with 9") {
		t.Errorf("the failed session's reason:\n%s", s.EndReason)
	}
	if strings.Contains(s.EndReason, sessionsCanary) {
		t.Errorf("the failed session's reason holds the secret value")
	}
	if s.EndedAt == nil {
		t.Errorf("the failed session has no end: %+v", s)
	}
	testenv.Eventually(t, "the crashed agent removed", func() bool {
		return !slices.ContainsFunc(v.containers("crashy"), func(x runtime.Agent) bool { return x.ID == c.ID })
	})
	v.waitPool("crashy", resources.AgentPool{Idle: 1, Max: 2})
	// Its proxy is closed: the session is over.
	if resp, _ := v.public(http.MethodPost, "/v1/public/crashy/sessions/"+started.SessionID+"/api/offer", map[string]any{"sdp": "x", "type": "offer"}, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the proxy of a failed session: %d, want 404", resp.StatusCode)
	}
}

// A lowered minAgents: the pool's own agents above it go at once (the
// platform's idle window, 5 minutes, is longer than the wait), whatever
// their idle time.
func poolShrinks(v *sessionEnv) {
	t, ctx := v.t, context.Background()
	v.deploy("shrink", 3, 5)
	v.waitPool("shrink", resources.AgentPool{Idle: 3, Max: 5})
	if _, err := v.c.PatchAgent(ctx, v.org, "shrink", resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 1, MaxAgents: 5}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the pool shrunk to one agent", func() bool { return len(v.containers("shrink")) == 1 })
	v.waitPool("shrink", resources.AgentPool{Idle: 1, Max: 5})
}

// maxDurationSeconds is the spec's shortest maxSessionDuration.
const maxDurationSeconds = resources.MinSessionSeconds

// A session past its longest duration: the agent is told
// (X-PCC-Max-Session-Seconds) and, when it overruns it (the stand-in told
// to), the platform ends the session with that reason and removes its
// agent.
func maxDuration(v *sessionEnv) {
	t, ctx := v.t, context.Background()
	v.deployAgent(resources.Agent{Metadata: resources.ObjectMeta{Name: "long"}, Spec: resources.AgentSpec{Image: v.image.Ref, ImagePullSecret: "reg",
		Scaling: &resources.AgentScaling{MinAgents: 1, MaxAgents: 2}, MaxSessionDuration: maxDurationSeconds}})
	started, code := v.start("long", resources.SessionStartRequest{Body: json.RawMessage(`{"` + standinapi.OverrunKey + `":true}`)})
	if code != http.StatusOK {
		t.Fatalf("start: %d", code)
	}
	agent, c := v.sessionAgent("long", started.SessionID)
	recs, err := agent.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(recs, func(r standinapi.Session) bool { return r.ID == started.SessionID }); i < 0 || recs[i].Headers["X-Pcc-Max-Session-Seconds"] != fmt.Sprint(maxDurationSeconds) {
		t.Errorf("what /bot received: %+v", recs)
	}
	if s := v.waitSession("long", started.SessionID, resources.SessionActive); s.MaxSeconds != maxDurationSeconds {
		t.Errorf("the session's maxSeconds: %d", s.MaxSeconds)
	}
	var s resources.Session
	if !testenv.Poll(func() bool {
		s = v.session("long", started.SessionID)
		return s.State != resources.SessionStarting && s.State != resources.SessionActive
	}) {
		t.Fatalf("the session outlived its longest duration: %+v", s)
	}
	if s.State != resources.SessionEnded || s.EndReason != fmt.Sprintf("its longest duration (%ds) passed", maxDurationSeconds) {
		t.Errorf("the session past its longest duration: %+v", s)
	}
	// A lower bound the platform makes on purpose.
	if s.StartedAt == nil || s.EndedAt == nil || s.EndedAt.Sub(*s.StartedAt) < maxDurationSeconds*time.Second {
		t.Errorf("the session ended before its longest duration: %+v", s)
	}
	testenv.Eventually(t, "the overrunning agent removed", func() bool {
		return !slices.ContainsFunc(v.containers("long"), func(x runtime.Agent) bool { return x.ID == c.ID })
	})
	v.waitPool("long", resources.AgentPool{Idle: 1, Max: 2})
}

// An agent started on demand (minAgents 0) that gets no session — the
// start gave up before it was ready — is removed once the idle window
// passed, not before.
func idleWindow(t *testing.T, e *dockertest.Engine, rt *docker.Runtime, img dockertest.Image, host string) {
	// A start waits 10 s for an agent; the agents are ready 15 s after
	// their start (longer than that); an idle one goes after 25 s (longer
	// than both: an agent removed as soon as its start gave up would be
	// removed before the window).
	const window = 25 * time.Second
	v := newSessionEnv(t, e, rt, img, host, platform.Options{SessionIdleWindow: window, SessionClaimTimeout: 10 * time.Second})
	ctx := context.Background()
	v.deployReadyAfter("ondemand", "slow", "15s", 0, 2)
	testenv.Eventually(t, "scaled to zero", func() bool { return len(v.containers("ondemand")) == 0 })
	resp, b := v.public(http.MethodPost, "/v1/public/ondemand/start", resources.SessionStartRequest{}, nil)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a start no agent became ready for: %d %s", resp.StatusCode, b)
	}
	list, err := v.c.Sessions(ctx, v.org, "ondemand")
	if err != nil || len(list) != 1 || list[0].State != resources.SessionFailed {
		t.Fatalf("the sessions: %+v %v", list, err)
	}
	var od runtime.Agent
	testenv.Eventually(t, "the agent started on demand", func() bool {
		cs := v.containers("ondemand")
		if len(cs) != 1 {
			return false
		}
		od = cs[0]
		return true
	})
	if od.Labels[agents.LabelOnDemand] == "" {
		t.Errorf("the agent started for the session is not marked on demand: %+v", od.Labels)
	}
	testenv.Eventually(t, "the idle agent removed", func() bool { return len(v.containers("ondemand")) == 0 })
	// A lower bound the platform makes on purpose: the window.
	if idle := time.Since(od.StartedAt); idle < window {
		t.Errorf("the agent started on demand was removed after %s, before the idle window (%s)", idle, window)
	}
}

// Two replicas on one PostgreSQL database, 50 starts at once split across
// them, on an agent with maxAgents 10: exactly 10 sessions, each on its own
// agent (each stand-in received one /bot), the 40 others answered 429 with
// Retry-After; once the sessions end, minAgents agents are left.
func racingStarts(t *testing.T, rt *docker.Runtime, img dockertest.Image, host string) {
	const (
		starts  = 50
		maxAgts = 10
		minAgts = 2
	)
	ctx := context.Background()
	url := pg.Database(t)
	keyFile := filepath.Join(t.TempDir(), platform.MasterKeyFile)
	writeKey(t, keyFile, "5e")
	contract := apitest.Load(t)
	log := &syncBuffer{}
	open := func() (string, *platform.Server) {
		st, err := stores.Open(ctx, stores.Location{URL: url}, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return platformtest.Start(t, platform.Options{Store: st, MasterKeyFile: keyFile, AllowPrivateRegistries: true,
			Logger:   slog.New(slog.NewTextHandler(log, nil)),
			Runtimes: map[string]runtime.Runtime{"us-west": rt}, AgentSettle: 300 * time.Millisecond,
			ReconcileInterval: 200 * time.Millisecond, SessionClaimTimeout: time.Minute})
	}
	aBase, a := open()
	bBase, _ := open()
	platformtest.CreateOrg(t, a, "crowd", "")
	tok := platformtest.CreateToken(t, a, "crowd", "ci")
	c, err := client.New(client.Options{BaseURL: bBase, Token: tok, Transport: checked{t: t, c: contract}, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	k, err := c.CreatePublicKey(ctx, "crowd", resources.PublicKeyRequest{Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	putPullSecret(t, c, "crowd", host)
	if _, err := c.WaitAll(ctx, "crowd", []string{"reg"}); err != nil {
		t.Fatal(err)
	}
	ag := resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"}, Spec: resources.AgentSpec{Image: img.Ref, ImagePullSecret: "reg",
		Scaling: &resources.AgentScaling{MinAgents: minAgts, MaxAgents: maxAgts}}}
	d, err := c.Deploy(ctx, "crowd", "bot", resources.DeployRequest{Agent: &ag})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = c.WaitRollout(ctx, "crowd", "bot", d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("rollout: %+v %v", d, err)
	}
	containers := func() []runtime.Agent {
		t.Helper()
		cs, err := rt.List(ctx, runtime.Selector{runtime.LabelOrganization: "crowd"})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	pool := func(want resources.AgentPool) {
		t.Helper()
		var got resources.AgentPool
		if !testenv.Poll(func() bool {
			st, err := c.AgentStatus(ctx, "crowd", "bot")
			if err != nil || st.Agent.Status == nil || st.Agent.Status.Pool == nil {
				return false
			}
			got = *st.Agent.Status.Pool
			return got == want
		}) {
			list, _ := c.Sessions(ctx, "crowd", "bot") // error ignored: what the failure shows
			t.Fatalf("the pool: %+v, want %+v; agents:\n%v\nsessions: %+v\nlog:\n%s", got, want, describe(containers()), list, log)
		}
	}
	pool(resources.AgentPool{Idle: minAgts, Max: maxAgts})

	// 50 starts at once, every other one through each replica.
	type answer struct {
		status     int
		retryAfter string
		id         string
	}
	hc := &http.Client{Transport: checked{t: t, c: contract}}
	answers := make([]answer, starts)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range starts {
		base := aBase
		if i%2 == 1 {
			base = bBase
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest(http.MethodPost, base+"/v1/public/bot/start", strings.NewReader(fmt.Sprintf(`{"body":{"n":%d}}`, i)))
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+k.Key)
			<-gate
			resp, err := hc.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var out resources.SessionStarted
			_ = json.NewDecoder(resp.Body).Decode(&out) // error ignored: a 429's body is an error, its status says so
			answers[i] = answer{resp.StatusCode, resp.Header.Get("Retry-After"), out.SessionID}
		}()
	}
	close(gate)
	wg.Wait()
	var ids []string
	counts := map[int]int{}
	for i, a := range answers {
		counts[a.status]++
		switch a.status {
		case http.StatusOK:
			ids = append(ids, a.id)
		case http.StatusTooManyRequests:
			if a.retryAfter == "" {
				t.Errorf("start %d: a 429 without Retry-After", i)
			}
		}
	}
	if counts[http.StatusOK] != maxAgts || counts[http.StatusTooManyRequests] != starts-maxAgts {
		t.Fatalf("50 racing starts with maxAgents %d: %v (status: count)", maxAgts, counts)
	}
	// Each session on its own agent: ten agents in a session, each
	// stand-in received exactly one /bot.
	pool(resources.AgentPool{InSession: maxAgts, Max: maxAgts})
	var standins []dockertest.Standin
	got := map[string]bool{}
	for _, x := range containers() {
		if x.State != runtime.StateRunning {
			continue
		}
		s := dockertest.Standin{Endpoint: x.Endpoint}
		recs, err := s.Sessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var bots []string
		for _, r := range recs {
			if r.Kind == standinapi.KindBot {
				bots = append(bots, r.ID)
			}
		}
		if len(bots) != 1 {
			t.Errorf("agent %s received %d sessions: %v", x.Name, len(bots), bots)
		}
		for _, id := range bots {
			got[id] = true
		}
		standins = append(standins, s)
	}
	if len(standins) != maxAgts {
		t.Errorf("%d agents run, want %d", len(standins), maxAgts)
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("session %s reached no agent", id)
		}
	}
	// Through either replica a session's agent is reached with a key of
	// its organization; a deleted key is refused by the next request on
	// both, another key still reaches it.
	offer := func(base, key, id string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, base+"/v1/public/bot/sessions/"+id+"/api/offer", strings.NewReader(`{"sdp":"x","type":"offer","pc_id":"pc-r"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	k2, err := c.CreatePublicKey(ctx, "crowd", resources.PublicKeyRequest{Name: "second"})
	if err != nil {
		t.Fatal(err)
	}
	replicas := map[string]string{"a": aBase, "b": bBase}
	for name, base := range replicas {
		if code := offer(base, k.Key, ids[0]); code != http.StatusOK {
			t.Errorf("an offer through replica %s: %d", name, code)
		}
	}
	if _, err := c.DeletePublicKey(ctx, "crowd", k.PublicKey.ID); err != nil {
		t.Fatal(err)
	}
	for name, base := range replicas {
		if code := offer(base, k.Key, ids[0]); code != http.StatusUnauthorized {
			t.Errorf("an offer with the deleted key through replica %s: %d, want 401", name, code)
		}
		if code := offer(base, k2.Key, ids[0]); code != http.StatusOK {
			t.Errorf("an offer with the other key through replica %s: %d", name, code)
		}
	}
	// The sessions end (each stand-in's /bot answers): every one is
	// recorded ended, and minAgents idle agents are left.
	for _, s := range standins {
		if _, err := s.End(ctx, ""); err != nil {
			t.Error(err)
		}
	}
	testenv.Eventually(t, "the ten sessions ended", func() bool {
		list, err := c.Sessions(ctx, "crowd", "bot")
		if err != nil {
			return false
		}
		n := 0
		for _, s := range list {
			if s.State == resources.SessionEnded {
				n++
			}
		}
		return n == maxAgts
	})
	// An ended session is not found through either replica.
	for name, base := range replicas {
		if code := offer(base, k2.Key, ids[0]); code != http.StatusNotFound {
			t.Errorf("an offer to an ended session through replica %s: %d, want 404", name, code)
		}
	}
	testenv.Eventually(t, "minAgents agents left", func() bool { return len(containers()) == minAgts })
	pool(resources.AgentPool{Idle: minAgts, Max: maxAgts})
	if strings.Contains(log.String(), k.Key) {
		t.Errorf("the server log holds the public key")
	}
}

// describe says what the engine runs: each agent's name, state, labels
// and start.
func describe(cs []runtime.Agent) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s %s started %s %v\n", c.Name, shortID(c.ID), c.State, c.StartedAt.Format(time.RFC3339Nano), c.Labels)
	}
	return b.String()
}

func shortID(id string) string { return id[:min(12, len(id))] }

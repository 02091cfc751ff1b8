package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// sessionsCanary is a secret value the agents run with.
const sessionsCanary = "canary-session-value-41d7"

// sessionEnv is a platform over a real engine running the stand-in of
// Pipecat Cloud's base image (dockertest/pccagent: the agent side of the
// session contract, as an image FROM dailyco/pipecat-base serves it), with
// an organization, a token and a public key.
type sessionEnv struct {
	t        *testing.T
	e        *dockertest.Engine
	rt       *docker.Runtime
	image    dockertest.Image
	regHost  string
	base     string
	srv      *platform.Server
	c        *client.Client
	org, key string
	tok      string
	dataDir  string
	log      *syncBuffer
	contract *apitest.Contract
	// http sends the public API's requests, each exchange held to
	// api/openapi.yaml.
	http *http.Client
}

func newSessionEnv(t *testing.T, e *dockertest.Engine, rt *docker.Runtime, image dockertest.Image, regHost string, opts platform.Options) *sessionEnv {
	t.Helper()
	v := &sessionEnv{t: t, e: e, rt: rt, image: image, regHost: regHost, org: "voice", log: &syncBuffer{}, contract: apitest.Load(t)}
	v.http = &http.Client{Transport: checked{t: t, c: v.contract, canary: sessionsCanary}}
	if opts.Runtimes == nil {
		opts.Runtimes = map[string]runtime.Runtime{"us-west": rt}
	}
	opts.AgentSettle = 300 * time.Millisecond
	opts.AllowPrivateRegistries = true
	opts.Logger = slog.New(slog.NewTextHandler(v.log, nil))
	if opts.SessionClaimTimeout == 0 {
		opts.SessionClaimTimeout = time.Minute
	}
	if opts.Store == nil {
		opts.DataDir = t.TempDir()
		v.dataDir = opts.DataDir
	}
	v.base, v.srv = platformtest.Start(t, opts)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server's log:\n%s", v.log.String())
		}
	})
	platformtest.CreateOrg(t, v.srv, v.org, "")
	v.tok = platformtest.CreateToken(t, v.srv, v.org, "ci")
	var err error
	if v.c, err = client.New(client.Options{BaseURL: v.base, Token: v.tok, Transport: checked{t: t, c: v.contract, canary: sessionsCanary}, Timeout: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k, err := v.c.CreatePublicKey(ctx, v.org, resources.PublicKeyRequest{Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	v.key = k.Key
	if _, _, err := v.c.Merge(ctx, v.org, "bot-secrets", resources.Patch{Set: map[string]string{"API_KEY": sessionsCanary, standinapi.PrintEnv: "API_KEY"}}, ""); err != nil {
		t.Fatal(err)
	}
	putPullSecret(t, v.c, v.org, regHost)
	if _, err := v.c.WaitAll(ctx, v.org, []string{"bot-secrets", "reg"}); err != nil {
		t.Fatal(err)
	}
	return v
}

// deploy deploys agent name with scaling min/max and waits for it to serve.
func (v *sessionEnv) deploy(name string, min, max int) resources.Deployment {
	v.t.Helper()
	ctx := context.Background()
	a := resources.Agent{Metadata: resources.ObjectMeta{Name: name}, Spec: resources.AgentSpec{Image: v.image.Ref, ImagePullSecret: "reg",
		SecretSet: "bot-secrets", Scaling: &resources.AgentScaling{MinAgents: min, MaxAgents: max}}}
	d, err := v.c.Deploy(ctx, v.org, name, resources.DeployRequest{Agent: &a})
	if err != nil {
		v.t.Fatal(err)
	}
	if d, err = v.c.WaitRollout(ctx, v.org, name, d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		v.t.Fatalf("rollout of %s: %+v %v", name, d, err)
	}
	return d
}

// public sends a request of the public API with the public key; the
// answer's body is returned whole.
func (v *sessionEnv) public(method, path string, body any, header http.Header) (*http.Response, []byte) {
	v.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			v.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, v.base+path, rd)
	if err != nil {
		v.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+v.key)
	for k, vs := range header {
		req.Header[k] = vs
	}
	hc := v.http
	if strings.Contains(path, "/..") || strings.Contains(path, "://") {
		hc = http.DefaultClient // a path the contract has no route for: sent as it is
	}
	resp, err := hc.Do(req)
	if err != nil {
		v.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		v.t.Fatal(err)
	}
	if strings.Contains(string(b), sessionsCanary) || strings.Contains(string(b), v.key) {
		v.t.Errorf("%s %s: the answer holds a secret", method, path)
	}
	return resp, b
}

// start starts a session through the public API and returns its answer.
func (v *sessionEnv) start(agent string, req resources.SessionStartRequest) (resources.SessionStarted, int) {
	v.t.Helper()
	resp, b := v.public(http.MethodPost, "/v1/public/"+agent+"/start", req, nil)
	var out resources.SessionStarted
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &out); err != nil {
			v.t.Fatal(err)
		}
	}
	return out, resp.StatusCode
}

// containers returns the engine's containers of agent name.
func (v *sessionEnv) containers(name string) []runtime.Agent {
	v.t.Helper()
	cs, err := v.rt.List(context.Background(), runtime.Selector{runtime.LabelOrganization: v.org, runtime.LabelAgent: name})
	if err != nil {
		v.t.Fatal(err)
	}
	return cs
}

// sessionAgent returns the stand-in that runs session id (its container
// is the one whose /bot received it).
func (v *sessionEnv) sessionAgent(name, id string) (dockertest.Standin, runtime.Agent) {
	v.t.Helper()
	ctx := context.Background()
	var found dockertest.Standin
	var agent runtime.Agent
	testenv.Eventually(v.t, "the agent that received session "+id, func() bool {
		for _, c := range v.containers(name) {
			if c.Endpoint == "" {
				continue
			}
			s := dockertest.Standin{Endpoint: c.Endpoint}
			got, err := s.Sessions(ctx)
			if err != nil {
				continue
			}
			if slices.ContainsFunc(got, func(r standinapi.Session) bool { return r.Kind == standinapi.KindBot && r.ID == id }) {
				found, agent = s, c
				return true
			}
		}
		return false
	})
	return found, agent
}

func (v *sessionEnv) session(name, id string) resources.Session {
	v.t.Helper()
	s, err := v.c.Session(context.Background(), v.org, name, id)
	if err != nil {
		v.t.Fatal(err)
	}
	return s
}

func (v *sessionEnv) waitSession(name, id, state string) resources.Session {
	v.t.Helper()
	var s resources.Session
	testenv.Eventually(v.t, "session "+id+" "+state, func() bool {
		s = v.session(name, id)
		return s.State == state
	})
	return s
}

// Sessions on a real engine: the stand-in of the base image receives POST
// /bot with the session's headers and the caller's body; the proxy reaches
// that agent only; the websocket goes both ways; the pool refills; capacity
// answers 429; a crash fails the session with its reason; a rollout cuts no
// call; a cold start with minAgents 0; nothing secret in any answer.
func TestSessionsOnTheEngine(t *testing.T) {
	e, rt, img, host := engineWithImage(t, "acme/pcc:1", dockertest.ImageOptions{Standin: true})
	v := newSessionEnv(t, e, rt, img, host, platform.Options{})
	ctx := context.Background()
	v.deploy("bot", 1, 2)

	// A warm start: the idle agent receives /bot with the session's
	// headers and the caller's body.
	started, code := v.start("bot", resources.SessionStartRequest{Body: json.RawMessage(`{"customer":"c-17"}`)})
	if code != http.StatusOK || !strings.HasPrefix(started.SessionID, "ses_") {
		t.Fatalf("start: %d %+v", code, started)
	}
	agent, c1 := v.sessionAgent("bot", started.SessionID)
	recs, err := agent.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bot := recs[slices.IndexFunc(recs, func(r standinapi.Session) bool { return r.ID == started.SessionID })]
	if bot.Headers["X-Daily-Transport-Type"] != "webrtc" || string(bot.Body) != `{"customer":"c-17"}` || bot.Headers["X-Pcc-Max-Session-Seconds"] != "7200" {
		t.Errorf("what /bot received: %+v", bot)
	}
	if s := v.waitSession("bot", started.SessionID, resources.SessionActive); s.Deployment != 1 || s.Transport != "webrtc" {
		t.Errorf("the session: %+v", s)
	}
	// The pool is refilled: one agent in the session, one idle.
	testenv.Eventually(t, "one agent in a session, one idle", func() bool {
		st, err := v.c.AgentStatus(ctx, v.org, "bot")
		return err == nil && st.Agent.Status.Pool != nil && *st.Agent.Status.Pool == resources.AgentPool{InSession: 1, Idle: 1, Max: 2}
	})

	// The proxy reaches the session's agent, without the key, with the
	// session's id.
	resp, b := v.public(http.MethodPost, "/v1/public/bot/sessions/"+started.SessionID+"/api/offer", map[string]any{"sdp": "x", "type": "offer", "pc_id": "pc-1"}, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "pc-1") {
		t.Errorf("offer through the platform: %d %s", resp.StatusCode, b)
	}
	if recs, err = agent.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(recs, func(r standinapi.Session) bool { return r.Kind == standinapi.KindOffer }); i < 0 || recs[i].ID != started.SessionID {
		t.Errorf("the agent's offer: %+v", recs)
	}
	// The logs of one session: its agent's lines only; an unknown
	// session of the agent is not found.
	sessionLogs := func(id string) (string, error) {
		var b strings.Builder
		err := v.c.AgentLogs(ctx, v.org, "bot", client.LogOptions{Session: id}, func(l resources.AgentLogLine) error {
			b.WriteString(l.Agent + " | " + l.Text + "\n")
			return nil
		})
		return b.String(), err
	}
	testenv.Eventually(t, "the session's agent's lines", func() bool {
		out, err := sessionLogs(started.SessionID)
		return err == nil && strings.Contains(out, "session "+started.SessionID+" started") && strings.Count(out, c1.Name+" | ") == strings.Count(out, "\n")
	})
	if _, err := sessionLogs("ses_aaaaaaaaaaaaaaaaaaaaaaaaaa"); !errors.Is(err, &resources.Error{Code: resources.CodeNotFound}) {
		t.Errorf("the logs of an unknown session: %v", err)
	}
	// Nothing else is reachable: another session's id, a path out of the
	// session, an absolute URL, without the key.
	for _, path := range []string{
		"/v1/public/bot/sessions/ses_aaaaaaaaaaaaaaaaaaaaaaaaaa/api/offer",
		"/v1/public/bot/sessions/" + started.SessionID + "/../x",
		"/v1/public/bot/sessions/" + started.SessionID + "/http://127.0.0.1:1/x",
		"/v1/public/other/sessions/" + started.SessionID + "/api/offer",
	} {
		if resp, _ := v.public(http.MethodGet, path, nil, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
	req, err := http.NewRequest(http.MethodPost, v.base+"/v1/public/bot/sessions/"+started.SessionID+"/api/offer", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := v.http.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the key: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// A websocket session: wsUrl reaches the agent's /ws, both ways; its
	// token works once.
	ws, code := v.start("bot", resources.SessionStartRequest{Transport: "websocket", Body: json.RawMessage(`{"n":1}`)})
	if code != http.StatusOK || !strings.HasPrefix(ws.WSURL, "ws://") {
		t.Fatalf("websocket start: %d %+v", code, ws)
	}
	// At capacity: both agents are in a session.
	if _, code := v.start("bot", resources.SessionStartRequest{}); code != http.StatusTooManyRequests {
		t.Errorf("a third start with maxAgents 2: %d, want 429", code)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, _, err := websocket.Dial(wctx, ws.WSURL, nil)
	if err != nil {
		t.Fatalf("dialing wsUrl: %v", err)
	}
	if err := conn.Write(wctx, websocket.MessageBinary, []byte("frame-1")); err != nil {
		t.Fatal(err)
	}
	if _, got, err := conn.Read(wctx); err != nil || string(got) != "frame-1" {
		t.Errorf("echo through the platform: %q %v", got, err)
	}
	conn.Close(websocket.StatusNormalClosure, "")
	if _, resp, err := websocket.Dial(wctx, ws.WSURL, nil); err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("a second use of wsUrl: %v", err)
	}

	// The session ends when its agent's /bot answers: the agent goes, the
	// pool is refilled with a fresh one.
	if _, err := agent.End(ctx, started.SessionID); err != nil {
		t.Fatal(err)
	}
	s := v.waitSession("bot", started.SessionID, resources.SessionEnded)
	if s.EndedAt == nil || !strings.Contains(s.EndReason, "ended") {
		t.Errorf("the ended session: %+v", s)
	}
	testenv.Eventually(t, "the agent of the ended session removed", func() bool {
		return !slices.ContainsFunc(v.containers("bot"), func(c runtime.Agent) bool { return c.ID == c1.ID })
	})
	if _, err := sessionLogs(started.SessionID); !errors.Is(err, &resources.Error{Code: resources.CodeUnprocessable}) || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("the logs of a session whose agent is gone: %v", err)
	}

	// A crash mid-session fails it with how the agent ended.
	wsAgent, _ := v.sessionAgent("bot", ws.SessionID)
	if err := wsAgent.Crash(ctx, 7); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Logf("crash: %v", err)
	}
	s = v.waitSession("bot", ws.SessionID, resources.SessionFailed)
	if !strings.Contains(s.EndReason, "exited 7") {
		t.Errorf("the crashed session: %+v", s)
	}
	testenv.Eventually(t, "the pool refilled: one idle agent", func() bool {
		st, err := v.c.AgentStatus(ctx, v.org, "bot")
		return err == nil && st.Agent.Status.Pool != nil && *st.Agent.Status.Pool == resources.AgentPool{Idle: 1, Max: 2}
	})

	// A rollout never cuts a call: the session's agent runs on, on the old
	// deployment, while the new one takes new sessions.
	keep, code := v.start("bot", resources.SessionStartRequest{})
	if code != http.StatusOK {
		t.Fatalf("start before the rollout: %d", code)
	}
	_, kc := v.sessionAgent("bot", keep.SessionID)
	v.deploy("bot", 1, 2)
	if !slices.ContainsFunc(v.containers("bot"), func(c runtime.Agent) bool { return c.ID == kc.ID && c.State == runtime.StateRunning }) {
		t.Fatalf("the rollout stopped the agent of a session in progress")
	}
	if s := v.session("bot", keep.SessionID); s.State != resources.SessionActive || s.Deployment != 1 {
		t.Errorf("the session during the rollout: %+v", s)
	}
	next, code := v.start("bot", resources.SessionStartRequest{})
	if code != http.StatusOK {
		t.Fatalf("start after the rollout: %d", code)
	}
	if s := v.waitSession("bot", next.SessionID, resources.SessionActive); s.Deployment != 2 {
		t.Errorf("a new session after the rollout runs on deployment %d, want 2", s.Deployment)
	}
	// Stopped through the private API: ended, its agent removed.
	if s, err := v.c.StopSession(ctx, v.org, "bot", keep.SessionID); err != nil || s.State != resources.SessionEnded || !strings.Contains(s.EndReason, "stopped by") {
		t.Errorf("stop: %+v %v", s, err)
	}
	testenv.Eventually(t, "the old deployment's agent removed once its session ended", func() bool {
		return !slices.ContainsFunc(v.containers("bot"), func(c runtime.Agent) bool { return c.ID == kc.ID })
	})
	list, err := v.c.Sessions(ctx, v.org, "bot")
	if err != nil || len(list) != 4 {
		t.Errorf("sessions: %d %v", len(list), err)
	}

	// A cold start: with minAgents 0 nothing runs until a session asks.
	v.deploy("cold", 0, 1)
	testenv.Eventually(t, "cold scaled to zero", func() bool { return len(v.containers("cold")) == 0 })
	cold, code := v.start("cold", resources.SessionStartRequest{Body: json.RawMessage(`{"cold":true}`)})
	if code != http.StatusOK {
		t.Fatalf("cold start: %d", code)
	}
	v.sessionAgent("cold", cold.SessionID)

	// A deleted key is refused at once.
	if _, err := v.c.DeletePublicKey(ctx, v.org, keyID(t, v)); err != nil {
		t.Fatal(err)
	}
	if _, code := v.start("bot", resources.SessionStartRequest{}); code != http.StatusUnauthorized {
		t.Errorf("a start with a deleted key: %d, want 401", code)
	}

	// The canary: never in the server's log nor the data directory.
	if strings.Contains(v.log.String(), sessionsCanary) || strings.Contains(v.log.String(), v.key) {
		t.Errorf("the server log holds a secret")
	}
}

// engineWithImage starts a private engine and a registry holding the test
// agent image built with opts as ref, and returns the engine, a runtime on
// it, the image and the registry's host.
func engineWithImage(t *testing.T, ref string, opts dockertest.ImageOptions) (*dockertest.Engine, *docker.Runtime, dockertest.Image, string) {
	t.Helper()
	e := dockertest.Start(t)
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), agentsRegUser, agentsRegPass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	img := e.PushAgent(t, host, ref, agentsRegUser, agentsRegPass, opts)
	rt, err := docker.NewRuntime(e.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	return e, rt, img, host
}

// keyID is the ID of the environment's public key.
func keyID(t *testing.T, v *sessionEnv) string {
	t.Helper()
	keys, err := v.c.PublicKeys(context.Background(), v.org)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys: %v %v", keys, err)
	}
	return keys[0].ID
}

package agentcall_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/agentcall"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
)

const (
	regUser = "bot"
	regPass = "registry-pass-2291"
)

func sessionsOf(t *testing.T, ctx context.Context, endpoint string) []standinapi.Session {
	t.Helper()
	out, err := dockertest.Standin{Endpoint: endpoint}.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// offer posts a SmallWebRTC offer to the agent at endpoint.
func offer(t *testing.T, ctx context.Context, endpoint, body string) (int, map[string]string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+endpoint+"/api/offer", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// TestEngine runs the base image's stand-in as agents on a real engine, on
// the network the runtime makes, and calls them at their endpoints from
// the host, as the platform does.
func TestEngine(t *testing.T) {
	e := dockertest.Start(t)
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), regUser, regPass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	img := e.PushAgent(t, host, "acme/pcc-agent:1", regUser, regPass, dockertest.ImageOptions{Standin: true})
	rt, err := docker.NewRuntime(e.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	if err := rt.Pull(ctx, img.Pinned(), &runtime.Credentials{Registry: host, Username: regUser, Password: regPass}); err != nil {
		t.Fatal(err)
	}

	// The network: made once, labelled, a bridge, reused.
	for range 2 {
		if err := rt.EnsureNetwork(ctx, runtime.DefaultNetwork); err != nil {
			t.Fatal(err)
		}
	}
	var nets []struct {
		Name    string
		Driver  string
		Labels  map[string]string
		Options map[string]string
	}
	filters, _ := json.Marshal(map[string][]string{"name": {runtime.DefaultNetwork}}) // error ignored: a map of strings always encodes
	if err := e.Client.Do(ctx, http.MethodGet, "/networks", url.Values{"filters": {string(filters)}}, nil, &nets); err != nil {
		t.Fatal(err)
	}
	if len(nets) != 1 || nets[0].Driver != "bridge" || nets[0].Labels[runtime.LabelManaged] != "true" || nets[0].Options["com.docker.network.bridge.enable_icc"] != "false" {
		t.Fatalf("networks named %s: %+v", runtime.DefaultNetwork, nets)
	}
	for _, bad := range []string{"host", "none", "", "container:x"} {
		var re *runtime.Error
		if err := rt.EnsureNetwork(ctx, bad); !errors.As(err, &re) || re.Reason != runtime.ReasonInvalid {
			t.Errorf("EnsureNetwork(%q): %v", bad, err)
		}
	}

	profile, _ := runtime.LookupProfile(runtime.ProfileAgent1x)
	o := runtime.Owner{Organization: "acme", Region: "local", Agent: "voice", Deployment: 1}
	// A PORT of the secret set does not move the agent: the platform's wins.
	agents, err := rt.Start(ctx, runtime.StartSpec{Owner: o, Image: img.Pinned(), Env: map[string]string{"PORT": "9999", standinapi.ReadyAfterEnv: "300ms"},
		Profile: profile, Restart: runtime.RestartPolicy{Name: runtime.RestartNever}, Network: runtime.DefaultNetwork, Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != 2 {
		t.Fatalf("%d agents started", len(agents))
	}
	for _, a := range agents {
		if !strings.HasSuffix(a.Endpoint, ":8080") {
			t.Fatalf("agent %s: endpoint %q, want ADDRESS:8080", a.Name, a.Endpoint)
		}
		testenv.Eventually(t, "agent "+a.Name+" ready at "+a.Endpoint, func() bool { return agentcall.Ready(ctx, a.Endpoint) == nil })

		// Reached on the network only: no port on the host, not the host's network.
		var c struct {
			HostConfig struct {
				NetworkMode     string
				PublishAllPorts bool
				PortBindings    map[string]any
			}
			NetworkSettings struct {
				Ports    map[string]any
				Networks map[string]any
			}
		}
		if err := e.Client.Do(ctx, http.MethodGet, "/containers/"+a.ID+"/json", nil, nil, &c); err != nil {
			t.Fatal(err)
		}
		// On the platform's network alone (joined by its ID: see
		// docker.networkID), never the host's.
		if c.HostConfig.NetworkMode == "host" || len(c.NetworkSettings.Networks) != 1 || c.NetworkSettings.Networks[runtime.DefaultNetwork] == nil {
			t.Errorf("agent %s: network mode %q, networks %v", a.Name, c.HostConfig.NetworkMode, c.NetworkSettings.Networks)
		}
		if c.HostConfig.PublishAllPorts || len(c.HostConfig.PortBindings) != 0 || len(c.NetworkSettings.Ports) != 0 {
			t.Errorf("agent %s publishes ports: %+v %+v", a.Name, c.HostConfig, c.NetworkSettings.Ports)
		}
	}
	listed, err := rt.List(ctx, runtime.ForOwner(o))
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range listed {
		if a.Endpoint == "" || (a.Endpoint != agents[0].Endpoint && a.Endpoint != agents[1].Endpoint) {
			t.Errorf("listed agent %d: endpoint %q, started at %q and %q", i, a.Endpoint, agents[0].Endpoint, agents[1].Endpoint)
		}
	}

	// An agent not ready yet answers 503: NotReady, not an error of the call.
	late, err := rt.Start(ctx, runtime.StartSpec{Owner: runtime.Owner{Organization: "acme", Region: "local", Agent: "late", Deployment: 1}, Image: img.Pinned(),
		Env: map[string]string{standinapi.ReadyAfterEnv: "1h"}, Profile: profile, Network: runtime.DefaultNetwork, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	var notReady *agentcall.Error
	testenv.Eventually(t, "the late agent answering /readyz", func() bool {
		err := agentcall.Ready(ctx, late[0].Endpoint)
		return errors.As(err, &notReady) && notReady.Status != 0
	})
	if !notReady.NotReady() {
		t.Errorf("late agent: %v", notReady)
	}

	// A session: the agent holds POST /bot open until the session ends.
	call, err := agentcall.StartBot(ctx, agents[0].Endpoint, agentcall.SessionStart{ID: "sess-1", Transport: "webrtc",
		Body: json.RawMessage(`{"customer":"c-42"}`), MaxSeconds: 600})
	if err != nil {
		t.Fatal(err)
	}
	got := sessionsOf(t, ctx, agents[0].Endpoint)
	if len(got) != 1 || got[0].Kind != standinapi.KindBot || got[0].ID != "sess-1" || got[0].State != standinapi.StateActive || got[0].Headers["X-Daily-Transport-Type"] != "webrtc" ||
		got[0].Headers["X-Pcc-Max-Session-Seconds"] != "600" || string(got[0].Body) != `{"customer":"c-42"}` {
		t.Errorf("the agent received %+v", got)
	}
	if other := sessionsOf(t, ctx, agents[1].Endpoint); len(other) != 0 {
		t.Errorf("the other agent received %+v", other)
	}
	select {
	case <-call.Done():
		t.Fatalf("the call ended while the session is open: %v", call.Err())
	default:
	}
	if n, err := (dockertest.Standin{Endpoint: agents[0].Endpoint}).End(ctx, "sess-1"); n != 1 || err != nil {
		t.Fatalf("ending the session: %d %v", n, err)
	}
	testenv.Within(t, "the call's end", call.Done())
	if err := call.Err(); err != nil {
		t.Errorf("a session ended by the agent: %v", err)
	}

	// A body that is not an object is refused at once: the start's error,
	// or, when the answer came after the accept window (a loaded machine),
	// the call's end.
	var refused *agentcall.Error
	bad, err := agentcall.StartBot(ctx, agents[0].Endpoint, agentcall.SessionStart{ID: "sess-bad", Body: json.RawMessage(`[1]`)})
	if err == nil {
		testenv.Within(t, "the refused call's end", bad.Done())
		err = bad.Err()
	}
	if !errors.As(err, &refused) || refused.Status != http.StatusUnprocessableEntity {
		t.Errorf("a body that is not an object: %v", err)
	}

	// /ws: a websocket at the endpoint, its body in the query.
	wsBody := base64.StdEncoding.EncodeToString([]byte(`{"from":"+15550100"}`))
	ws, _, err := websocket.Dial(ctx, "ws://"+agents[1].Endpoint+"/ws?body="+wsBody, &websocket.DialOptions{HTTPHeader: http.Header{"X-Daily-Session-Id": {"sess-ws"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Write(ctx, websocket.MessageBinary, []byte("audio-frame")); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := ws.Read(ctx); err != nil || !bytes.Equal(msg, []byte("audio-frame")) {
		t.Errorf("echo: %q %v", msg, err)
	}
	if err := ws.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Errorf("closing the websocket: %v", err)
	}

	// /api/offer answers.
	if code, answer := offer(t, ctx, agents[1].Endpoint, `{"sdp":"v=0","type":"offer","pc_id":"pc-1"}`); code != 200 || answer["type"] != "answer" || answer["pc_id"] != "pc-1" {
		t.Errorf("offer: %d %v", code, answer)
	}
	got = sessionsOf(t, ctx, agents[1].Endpoint)
	if len(got) != 2 || got[0].Kind != standinapi.KindWS || got[0].ID != "sess-ws" || string(got[0].Body) != `{"from":"+15550100"}` || got[1].Kind != standinapi.KindOffer {
		t.Errorf("the second agent received %+v", got)
	}

	// The agent exits in a session: the call ends with an error.
	call, err = agentcall.StartBot(ctx, agents[1].Endpoint, agentcall.SessionStart{ID: "sess-2", Transport: "websocket"})
	if err != nil {
		t.Fatal(err)
	}
	if err := (dockertest.Standin{Endpoint: agents[1].Endpoint}).Crash(ctx, standinapi.CrashCode); err != nil {
		t.Fatal(err)
	}
	testenv.Within(t, "the call's end", call.Done())
	var broken *agentcall.Error
	if err := call.Err(); !errors.As(err, &broken) || broken.Status != 0 {
		t.Errorf("the agent crashed in the session; the call ended with %v", err)
	}
	testenv.Eventually(t, "the crashed agent exited", func() bool {
		as, err := rt.List(ctx, runtime.Selector{runtime.LabelAgent: "voice"})
		for _, a := range as {
			if a.ID == agents[1].ID {
				return err == nil && a.State == runtime.StateExited && a.ExitCode == standinapi.CrashCode && a.Endpoint == ""
			}
		}
		return false
	})
}

package platform_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// iceCanary is a TURN server's credential.
const iceCanary = "turn-credential-canary-90c4"

// The operator's ICE servers: a webrtc session's start answer carries
// them (a websocket one's does not), and the agent reads them at its
// ICE_CONFIG_URL, which reaches the platform from the agents' network
// with a token of that agent's (a wrong token: 404); the TURN credential
// is in no line of the server's log.
func iceConfig(t *testing.T, e *dockertest.Engine, rt *docker.Runtime, img dockertest.Image, host string) {
	ctx := context.Background()
	// The platform as agents reach it: a listener on the gateway of their
	// network (the host's side of its bridge).
	if err := rt.EnsureNetwork(ctx, runtime.DefaultNetwork); err != nil {
		t.Fatal(err)
	}
	// Platforms of other tests may have made the network at the same
	// moment: the one agents join is the oldest of the name.
	type engineNetwork struct {
		Name, Created string
		IPAM          struct {
			Config []struct {
				Gateway string `json:"Gateway"`
			} `json:"Config"`
		} `json:"IPAM"`
	}
	var networks []engineNetwork
	if err := e.Client.Do(ctx, http.MethodGet, "/networks", url.Values{"filters": {`{"name":["` + runtime.DefaultNetwork + `"]}`}}, nil, &networks); err != nil {
		t.Fatal(err)
	}
	networks = slices.DeleteFunc(networks, func(n engineNetwork) bool { return n.Name != runtime.DefaultNetwork })
	if len(networks) == 0 {
		t.Fatal("no agents' network")
	}
	network := slices.MinFunc(networks, func(x, y engineNetwork) int {
		tx, _ := time.Parse(time.RFC3339Nano, x.Created) // error ignored: the engine's own timestamps
		ty, _ := time.Parse(time.RFC3339Nano, y.Created) // error ignored: as above
		return tx.Compare(ty)
	})
	if len(network.IPAM.Config) == 0 || network.IPAM.Config[0].Gateway == "" {
		t.Fatalf("the agents' network has no gateway: %+v", network)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(network.IPAM.Config[0].Gateway, "0"))
	if err != nil {
		t.Fatal(err)
	}
	servers := []resources.ICEServer{
		{URLs: []string{"stun:stun.example.test:3478"}},
		{URLs: []string{"turn:turn.example.test:3478?transport=udp", "turns:turn.example.test:5349"}, Username: "botkit", Credential: iceCanary},
	}
	v := newSessionEnv(t, e, rt, img, host, platform.Options{ICEServers: servers, AgentURL: "http://" + ln.Addr().String()})
	agentSide := &http.Server{Handler: v.srv.Handler()}
	go agentSide.Serve(ln) //nolint:errcheck // ends with the test: Close below
	t.Cleanup(func() { agentSide.Close() })
	v.deploy("ice", 1, 2)

	started, code := v.start("ice", resources.SessionStartRequest{EnableDefaultIceServers: true})
	if code != http.StatusOK {
		t.Fatalf("webrtc start: %d", code)
	}
	if started.ICEConfig == nil || !reflect.DeepEqual(started.ICEConfig.ICEServers, servers) {
		t.Errorf("the webrtc start's iceConfig: %+v, want %+v", started.ICEConfig, servers)
	}
	agent, _ := v.sessionAgent("ice", started.SessionID)
	got, err := agent.ICEConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var read resources.AgentICEConfig
	if !got.Set || got.Status != http.StatusOK || json.Unmarshal([]byte(got.Body), &read) != nil || !reflect.DeepEqual(read.ICEConfig.ICEServers, servers) {
		t.Errorf("what the agent read at its ICE_CONFIG_URL: %+v", got)
	}
	// Its URL, from the agent's environment: another token is not found.
	var inspect struct {
		Config struct{ Env []string } `json:"Config"`
	}
	_, c := v.sessionAgent("ice", started.SessionID)
	if err := e.Client.Do(ctx, http.MethodGet, "/containers/"+c.ID+"/json", nil, nil, &inspect); err != nil {
		t.Fatal(err)
	}
	var iceURL string
	for _, kv := range inspect.Config.Env {
		if v, ok := strings.CutPrefix(kv, "ICE_CONFIG_URL="); ok {
			iceURL = v
		}
	}
	u, err := url.Parse(iceURL)
	if err != nil || u.Path != "/v1/ice-config/"+v.org+"/ice" || u.Query().Get("token") == "" {
		t.Fatalf("the agent's ICE_CONFIG_URL: %q %v", iceURL, err)
	}
	for _, q := range []string{"token=" + strings.Repeat("A", len(u.Query().Get("token"))), u.RawQuery + "x"} {
		resp, err := v.http.Get(v.base + u.Path + "?" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("the ICE servers with token %q: %d, want 404", q, resp.StatusCode)
		}
	}
	if resp, err := v.http.Get(v.base + "/v1/ice-config/" + v.org + "/other?" + u.RawQuery); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("another agent's ICE servers with this agent's token: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	ws, code := v.start("ice", resources.SessionStartRequest{Transport: resources.TransportWebsocket})
	if code != http.StatusOK || ws.ICEConfig != nil {
		t.Errorf("a websocket start: %d, iceConfig %+v", code, ws.ICEConfig)
	}
	if strings.Contains(v.log.String(), iceCanary) || strings.Contains(v.log.String(), u.Query().Get("token")) {
		t.Errorf("the server's log holds the TURN credential or the agent's token")
	}
}

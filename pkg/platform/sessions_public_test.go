package platform_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The public API without an engine: a browser from one of the key's
// origins may read the answers, another origin may not; a preflight is
// answered; another organization's agent and an unknown one are the same
// 404; a token is no public key and a public key no token; a body that is
// not a JSON object, an unknown transport, a Daily room (no Daily here)
// are refused before anything starts. Every answer is what
// api/openapi.yaml describes.
func TestPublicAPIWithoutEngine(t *testing.T) {
	contract := apitest.Load(t)
	base, srv := platformtest.Start(t, platform.Options{DataDir: t.TempDir(), DisableProvisioner: true})
	platformtest.CreateOrg(t, srv, "acme", "")
	platformtest.CreateOrg(t, srv, "other", "")
	tok := platformtest.CreateToken(t, srv, "acme", "ci")
	otok := platformtest.CreateToken(t, srv, "other", "ci")
	ctx := context.Background()
	c, err := client.New(client.Options{BaseURL: base, Token: tok, Transport: checked{t: t, c: contract}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	oc, err := client.New(client.Options{BaseURL: base, Token: otok, Transport: checked{t: t, c: contract}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	key, err := c.CreatePublicKey(ctx, "acme", resources.PublicKeyRequest{AllowedOrigins: []string{"https://app.example"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := oc.PutAgent(ctx, "other", resources.Agent{Metadata: resources.ObjectMeta{Name: "theirs"}, Spec: resources.AgentSpec{Image: "registry.example/x:1"}}, ""); err != nil {
		t.Fatal(err)
	}
	checkedClient := &http.Client{Transport: checked{t: t, c: contract}}
	hc := checkedClient
	do := func(method, path, auth, origin, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	// CORS: the key's origin may read the answer, another may not.
	if resp := do("POST", "/v1/public/missing/start", key.Key, "https://app.example", "{}"); resp.StatusCode != 404 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("from the key's origin: %d, allowed %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	if resp := do("POST", "/v1/public/missing/start", key.Key, "https://evil.example", "{}"); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another origin may read the answer: %q", resp.Header.Get("Access-Control-Allow-Origin"))
	}
	if resp := do("OPTIONS", "/v1/public/missing/start", "", "https://app.example", ""); resp.StatusCode != 204 || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	// Another organization's agent is as missing as a missing one.
	if resp := do("POST", "/v1/public/theirs/start", key.Key, "", "{}"); resp.StatusCode != 404 {
		t.Errorf("another organization's agent: %d, want 404", resp.StatusCode)
	}
	// Credentials do not stand in for each other.
	if resp := do("POST", "/v1/public/missing/start", tok, "", "{}"); resp.StatusCode != 401 {
		t.Errorf("a token on the public API: %d, want 401", resp.StatusCode)
	}
	if resp := do("GET", "/v1/organizations/acme/agents", key.Key, "", ""); resp.StatusCode != 401 {
		t.Errorf("a public key on the private API: %d, want 401", resp.StatusCode)
	}
	if resp := do("POST", "/v1/public/missing/start", "", "", "{}"); resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("no key: %d", resp.StatusCode)
	}
	// Bad requests (which the contract refuses too: sent as they are) are
	// refused before anything starts.
	hc = http.DefaultClient
	if _, _, err := c.PutAgent(ctx, "acme", resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"}, Spec: resources.AgentSpec{Image: "registry.example/x:1"}}, ""); err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]int{
		`{"body": [1]}`:                   400,
		`{"transport": "carrier-pigeon"}`: 400,
		`{"createDailyRoom": true}`:       422,
		`{"unknown": 1}`:                  400,
		`{}`:                              422, // no runtime here: no agent can take it
	} {
		if resp := do("POST", "/v1/public/bot/start", key.Key, "", body); resp.StatusCode != want {
			t.Errorf("start %s: %d, want %d", body, resp.StatusCode, want)
		}
	}
	// A session of nobody: 404 through the proxy.
	hc = checkedClient
	if resp := do("POST", "/v1/public/bot/sessions/ses_aaaaaaaaaaaaaaaaaaaaaaaaaa/api/offer", key.Key, "", "{}"); resp.StatusCode != 404 {
		t.Errorf("an unknown session: %d", resp.StatusCode)
	}
	if list, err := c.Sessions(ctx, "acme", "bot"); err != nil || len(list) != 0 {
		t.Errorf("sessions after refused starts: %v %v", list, err)
	}
}

package platform_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform/httpapi"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The agents' routes on a platform without a runtime, every exchange
// checked against api/openapi.yaml: an agent is created, read, scaled and
// deleted; its spec is checked field by field; a deploy, a rollback, a
// restart and the logs say how to add a runtime (422); another
// organization gets the 404 of a missing agent on every route.
func TestAgentsRoutesWithoutRuntime(t *testing.T) {
	c := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		base, srv := platformtest.Start(t, storeOptions(t, db))
		platformtest.CreateOrg(t, srv, "acme", "")
		platformtest.CreateOrg(t, srv, "other", "")
		auth := map[string]string{"Authorization": "Bearer " + platformtest.CreateToken(t, srv, "acme", "ci")}
		otherAuth := map[string]string{"Authorization": "Bearer " + platformtest.CreateToken(t, srv, "other", "ci")}
		do := func(h map[string]string, method, path, body string, want int) apitest.Reply {
			t.Helper()
			r, err := c.Do(t, base, method, path, body, h)
			if err != nil && r.Status < 400 {
				t.Errorf("%s %s: accepted (%d) what api/openapi.yaml refuses: %v", method, path, r.Status, err)
			}
			if r.Status != want {
				t.Fatalf("%s %s %s: %d %s, want %d", method, path, body, r.Status, r.Body, want)
			}
			return r
		}
		errMessage := func(r apitest.Reply) string {
			t.Helper()
			var e resources.ErrorResponse
			if err := json.Unmarshal(r.Body, &e); err != nil {
				t.Fatal(err)
			}
			return e.Error.Code + ": " + e.Error.Message
		}
		const agent = "/v1/organizations/acme/agents/bot"
		const body = `{"apiVersion":"botkit.dev/v1","kind":"Agent","metadata":{"name":"bot","labels":{"team":"voice"}},` +
			`"spec":{"image":"registry.example/acme/bot:1","secretSet":"bot-secrets","scaling":{"minAgents":1,"maxAgents":3}}}`
		r := do(auth, "PUT", agent, body, 201)
		var a resources.Agent
		if err := json.Unmarshal(r.Body, &a); err != nil {
			t.Fatal(err)
		}
		if a.Metadata.Region != "us-west" || a.Spec.Profile != "agent-1x" || a.Status == nil || a.Status.State != resources.AgentStopped {
			t.Errorf("created agent: %s", r.Body)
		}
		if r.Header.Get("ETag") != `"`+a.Metadata.ResourceVersion+`"` {
			t.Errorf("ETag %q, resourceVersion %s", r.Header.Get("ETag"), a.Metadata.ResourceVersion)
		}
		do(auth, "PUT", agent, body, 200)
		do(auth, "PUT", agent, strings.Replace(body, `"metadata":{`, `"metadata":{"resourceVersion":"999",`, 1), 409)
		do(auth, "GET", agent, "", 200)
		if r := do(auth, "GET", "/v1/organizations/acme/agents?region=us-west", "", 200); !strings.Contains(string(r.Body), `"name":"bot"`) {
			t.Errorf("list: %s", r.Body)
		}
		if r := do(auth, "PATCH", agent, `{"scaling":{"minAgents":2}}`, 200); !strings.Contains(string(r.Body), `"minAgents":2`) {
			t.Errorf("scale: %s", r.Body)
		}

		// An empty patch: refused by the contract and the server alike.
		if r, err := c.Do(t, base, "PATCH", agent, `{}`, auth); err == nil || r.Status != 400 {
			t.Errorf("empty patch: %d %s (contract: %v)", r.Status, r.Body, err)
		}

		// The spec, field by field: each error names its field.
		for _, tc := range []struct{ spec, field string }{
			{`{"image":"registry.example/acme/bot"}`, "spec.image"},
			{`{"image":"registry.example/acme/bot:1","profile":"agent-9x"}`, "spec.profile"},
			{`{"image":"registry.example/acme/bot:1","scaling":{"minAgents":3,"maxAgents":2}}`, "spec.scaling.minAgents"},
			{`{"image":"registry.example/acme/bot:1","secretSet":"no_such"}`, "spec.secretSet"},
		} {
			r := do(auth, "PUT", "/v1/organizations/acme/agents/bad", `{"spec":`+tc.spec+`}`, 400)
			if msg := errMessage(r); !strings.HasPrefix(msg, "invalid: "+tc.field+":") {
				t.Errorf("spec %s: %s, want an error naming %s", tc.spec, msg, tc.field)
			}
		}
		do(auth, "PUT", "/v1/organizations/acme/agents/bad", `{"metadata":{"name":"bad"}}`, 400)
		do(auth, "GET", "/v1/organizations/acme/agents/bad", "", 404)

		// No runtime in the region: the 422 says how to add one.
		for _, rt := range []struct{ method, path, body string }{
			{"POST", agent + "/deployments", `{}`},
			{"POST", agent + "/rollback", `{}`},
			{"POST", agent + "/restart", `{}`},
			{"GET", agent + "/logs", ""},
		} {
			r := do(auth, rt.method, rt.path, rt.body, 422)
			if msg := errMessage(r); msg != "unprocessable: region us-west has no runtime: start botkit-platform serve with --runtime us-west=docker:///var/run/docker.sock" {
				t.Errorf("%s %s: %s", rt.method, rt.path, msg)
			}
		}
		if r := do(auth, "GET", agent+"/status", "", 200); !strings.Contains(string(r.Body), `"running":[]`) {
			t.Errorf("status: %s", r.Body)
		}
		if r := do(auth, "GET", agent+"/deployments", "", 200); string(r.Body) != "{\"items\":[]}\n" {
			t.Errorf("deployments: %s", r.Body)
		}
		do(auth, "GET", agent+"/deployments/1", "", 404)

		// Another organization: the 404 of a missing agent, on every route.
		fill := strings.NewReplacer("{org}", "acme", "{name}", "bot", "{number}", "1")
		for _, rt := range httpapi.Routes() {
			if !strings.Contains(rt.Path, "/agents") {
				continue
			}
			b := ""
			if rt.Body {
				b = `{}`
				if rt.Method == "PUT" {
					b = body
				}
			}
			r := do(otherAuth, rt.Method, fill.Replace(rt.Path), b, 404)
			if msg := errMessage(r); msg != `not_found: organization "acme" not found` {
				t.Errorf("other organization, %s %s: %s", rt.Method, rt.Path, msg)
			}
		}

		// The audit has the agents' writes, as the contract describes them.
		if r := do(auth, "GET", "/v1/organizations/acme/audit", "", 200); !strings.Contains(string(r.Body), `"kind":"Agent"`) ||
			!strings.Contains(string(r.Body), `"action":"scale"`) {
			t.Errorf("audit: %s", r.Body)
		}

		r = do(auth, "DELETE", agent, "", 200)
		if !strings.Contains(string(r.Body), `"name":"bot"`) {
			t.Errorf("delete: %s", r.Body)
		}
		do(auth, "GET", agent, "", 404)
		do(auth, "DELETE", agent, "", 404)
	})
}

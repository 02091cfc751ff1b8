package platform_test

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const preflightCanary = "CANARY-pr3fl1ght-0d9a"

// The platform's preflight on both stores, every exchange checked against
// api/openapi.yaml: a pending set warns, a failed one fails with its
// message, required and optional keys, the region (default: the
// organization's), a pull secret of the wrong kind. Nothing is written and
// no value is answered. (The image checks against a real registry are
// cmd/botkit's preflight scenario.)
func TestPreflight(t *testing.T) {
	c := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		bases, auth, other, _, _ := sealedReplicas(t, db) // provisioners off: writes stay pending
		do := func(method, path, body string, want int) apitest.Reply {
			t.Helper()
			r, err := c.Do(t, bases[0], method, path, body, auth)
			if err != nil && r.Status < 400 {
				t.Fatalf("%s %s: accepted (%d) what api/openapi.yaml forbids: %v", method, path, r.Status, err)
			}
			if r.Status != want {
				t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
			}
			if strings.Contains(string(r.Body), preflightCanary) {
				t.Fatalf("%s %s answered a value: %s", method, path, r.Body)
			}
			return r
		}
		preflight := func(req resources.PreflightRequest) map[string]resources.PreflightCheck {
			t.Helper()
			body, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			var res resources.PreflightResult
			if err := json.Unmarshal(do("POST", "/v1/organizations/acme/preflight", string(body), 200).Body, &res); err != nil {
				t.Fatal(err)
			}
			out := map[string]resources.PreflightCheck{}
			for _, ch := range res.Checks {
				out[ch.ID+"/"+ch.Result] = ch
			}
			return out
		}
		do("PATCH", "/v1/organizations/acme/secrets/bot", `{"set":{"A":"`+preflightCanary+`","B":"b"}}`, 201)
		do("PATCH", "/v1/organizations/acme/secrets/eu", `{"region":"eu-central","set":{"A":"a"}}`, 201)
		req := resources.PreflightRequest{SecretSet: "bot", RequiredKeys: []string{"A", "B"}, OptionalKeys: []string{"C"}}
		got := preflight(req)
		if _, ok := got["region/ok"]; !ok || !strings.Contains(got["region/ok"].Detail, "us-west, the organization's default region") {
			t.Errorf("region: %+v", got)
		}
		if ch, ok := got["secret-set/warning"]; !ok || !strings.Contains(ch.Detail, "bot is still pending") {
			t.Errorf("a pending set: %+v", got)
		}
		if ch, ok := got["secret-set-keys/ok"]; !ok || ch.Detail != "all 2 required keys present; optional keys not set: C" {
			t.Errorf("keys: %+v", got)
		}
		req.RequiredKeys = []string{"A", "D", "E"}
		if ch, ok := preflight(req)["secret-set-keys/fail"]; !ok || !strings.Contains(ch.Detail, "bot lacks D, E (from .env.example)") {
			t.Errorf("missing keys: %+v", ch)
		}
		// A required key stored empty (a copied .env.example) fails, named:
		// the platform knows the value's size without reading it, and says
		// "empty", never a length. An empty optional key is no failure.
		do("PATCH", "/v1/organizations/acme/secrets/bot", `{"set":{"E":"","C":""}}`, 200)
		req.RequiredKeys = []string{"A", "D", "E"}
		ch, ok := preflight(req)["secret-set-keys/fail"]
		if !ok || ch.Detail != "bot lacks D (from .env.example); E is empty in bot (required by .env.example); set them with botkit cloud secrets set bot KEY=..." {
			t.Errorf("a missing and an empty key: %+v", ch)
		}
		if want := map[string]string{"D": resources.KeyMissing, "E": resources.KeyEmpty}; !maps.Equal(ch.Keys, want) {
			t.Errorf("keys of the check: %v, want %v", ch.Keys, want)
		}
		if ch, ok := preflight(resources.PreflightRequest{SecretSet: "bot", RequiredKeys: []string{"A", "B"}, OptionalKeys: []string{"C"}})["secret-set-keys/ok"]; !ok || ch.Detail != "all 2 required keys present" || ch.Keys != nil {
			t.Errorf("an empty optional key: %+v", ch)
		}
		// A failed set fails, with the provisioner's message.
		obj, err := other.Object(ctx, orgID(t, other, "acme"), "bot")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.SetStatus(ctx, []store.StatusUpdate{{ObjectID: obj.ID, Generation: obj.Generation, State: resources.StateFailed, Message: "quota exceeded"}}); err != nil {
			t.Fatal(err)
		}
		if ch, ok := preflight(req)["secret-set/fail"]; !ok || ch.Detail != "bot failed: quota exceeded" {
			t.Errorf("a failed set: %+v", ch)
		}
		// Another region, an object of the other kind, none at all.
		if ch, ok := preflight(resources.PreflightRequest{SecretSet: "eu", Region: "us-east"})["secret-set/fail"]; !ok || !strings.Contains(ch.Detail, "eu is in region eu-central; the agent deploys to us-east") {
			t.Errorf("another region: %+v", ch)
		}
		if ch, ok := preflight(resources.PreflightRequest{ImagePullSecret: "bot", Image: "127.0.0.1:1/x/y:1"})["image-pull-secret/fail"]; !ok || ch.Detail != "bot is a secret set, not an image pull secret (image_credentials)" {
			t.Errorf("the wrong kind: %+v", ch)
		}
		if ch, ok := preflight(resources.PreflightRequest{RequiredKeys: []string{"A"}})["secret-set/fail"]; !ok || !strings.Contains(ch.Detail, "names no secret_set, and the project needs A") {
			t.Errorf("no set named: %+v", ch)
		}
		// The image's registry is asked through the provisioner's guarded
		// client: a server without --allow-private-registries never reaches
		// a loopback address.
		if ch, ok := preflight(resources.PreflightRequest{Image: "127.0.0.1:1/x/y:1"})["image/fail"]; !ok || !strings.Contains(ch.Detail, "registry not contacted: address 127.0.0.1 is not allowed") {
			t.Errorf("a loopback registry: %+v", ch)
		}
		// Bad input is a 400 naming it.
		r := do("POST", "/v1/organizations/acme/preflight", `{"requiredKeys":["1X"]}`, 400)
		if !strings.Contains(string(r.Body), `keys: key \"1X\"`) {
			t.Errorf("a bad key: %s", r.Body)
		}
		// Nothing was written: the set is still at version 1.
		if o, err := other.Object(ctx, obj.OrgID, "bot"); err != nil || o.Generation != obj.Generation {
			t.Errorf("after preflight: %+v, %v", o, err)
		}
	})
}

func orgID(t *testing.T, st store.Store, name string) int64 {
	t.Helper()
	o, err := st.Org(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

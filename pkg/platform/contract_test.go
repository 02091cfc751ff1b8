package platform_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The server accepts exactly what api/openapi.yaml allows: every request
// below goes to the real platform over HTTP on 127.0.0.1, the contract
// judges the request and the response, and the server's answer agrees with
// the contract's judgement (a request the contract refuses is a 400).
func TestServerAcceptsWhatTheContractAllows(t *testing.T) {
	c := apitest.Load(t)
	base, srv := platformtest.Start(t, platform.Options{DisableProvisioner: true})
	platformtest.CreateOrg(t, srv, "acme", "")
	platformtest.CreateOrg(t, srv, "other", "")
	tok := platformtest.CreateToken(t, srv, "acme", "ci")
	auth := map[string]string{"Authorization": "Bearer " + tok}
	with := func(h map[string]string) map[string]string {
		out := map[string]string{"Authorization": "Bearer " + tok}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	const set = "/v1/organizations/acme/secrets/bot"
	do := func(method, path, body string, h map[string]string) apitest.Reply {
		t.Helper()
		r, err := c.Do(t, base, method, path, body, h)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// refused: the contract refuses the request, and so does the server
	// (400, naming what is wrong).
	refused := func(what, method, path, body string, h map[string]string, msg string) {
		t.Helper()
		r, reqErr := c.Do(t, base, method, path, body, h)
		if reqErr == nil {
			t.Errorf("%s: api/openapi.yaml allows %s %s %s", what, method, path, body)
		}
		var e resources.ErrorResponse
		if err := json.Unmarshal(r.Body, &e); err != nil || r.Status != 400 || !strings.Contains(e.Error.Message, msg) {
			t.Errorf("%s: %d %s, want 400 saying %q", what, r.Status, r.Body, msg)
		}
	}
	version := func() string {
		t.Helper()
		r := do("GET", set, "", auth)
		if r.Status != 200 {
			t.Fatalf("GET: %d %s", r.Status, r.Body)
		}
		return strings.Trim(r.Header.Get("ETag"), `"`)
	}

	// The unauthenticated routes, as the contract describes them.
	if r := do("GET", "/healthz", "", nil); r.Status != 200 {
		t.Errorf("/healthz: %d", r.Status)
	}
	if r := do("GET", "/metrics", "", nil); r.Status != 200 || !strings.Contains(string(r.Body), "botkit_platform_http_requests_total") {
		t.Errorf("/metrics: %d", r.Status)
	}
	if r := do("PATCH", set, `{"set":{"A":"1","B":"2"}}`, auth); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	v1 := version()

	// 5: a SecretSet without spec never wipes the set.
	refused("PUT without spec", "PUT", set, `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot"}}`, auth, "spec is required")
	refused("PUT with spec null", "PUT", set, `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot"},"spec":null}`, auth, "null")
	refused("apply without spec", "POST", "/v1/organizations/acme/apply", `{"objects":[{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot"}}]}`, auth, "spec is required")
	if version() != v1 {
		t.Error("a refused PUT changed the set")
	}

	// 15: null is no value; apply and delete need objects.
	refused("PATCH set null", "PATCH", set, `{"set":null}`, auth, `"set" is null`)
	refused("PATCH labels null", "PATCH", set, `{"labels":null}`, auth, `"labels" is null`)
	refused("PATCH body null", "PATCH", set, `null`, auth, "null is not a request")
	refused("apply {}", "POST", "/v1/organizations/acme/apply", `{}`, auth, "objects is required")
	refused("delete {}", "POST", "/v1/organizations/acme/delete", `{}`, auth, "objects is required")
	refused("a key that is no environment variable name", "PATCH", set, `{"set":{"1BAD":"x"}}`, auth, "1BAD")
	refused("a label key with a space", "PATCH", set, `{"labels":{"bad key":"x"}}`, auth, "bad key")
	if r, reqErr := c.Do(t, base, "POST", "/v1/organizations/acme/apply", `{"objects":[],"prune":true,"applySet":"none","dryRun":true}`, auth); reqErr != nil || r.Status != 200 {
		t.Errorf("apply with no object and prune: %d %s (contract: %v)", r.Status, r.Body, reqErr)
	}

	// 16: the body's resourceVersion is a precondition; output-only
	// fields are refused, all of them.
	put := func(extraMeta, extraTop string) string {
		return `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot"` + extraMeta + `},"spec":{"data":{"A":"1","B":"2"}}` + extraTop + `}`
	}
	if r := do("PUT", set, put(`,"resourceVersion":"12345"`, ""), auth); r.Status != 409 || !strings.Contains(string(r.Body), "metadata.resourceVersion") {
		t.Errorf("PUT with a stale resourceVersion: %d %s, want 409", r.Status, r.Body)
	}
	if r := do("PUT", set, put(`,"resourceVersion":"`+v1+`"`, ""), auth); r.Status != 200 {
		t.Errorf("PUT with the current resourceVersion: %d %s", r.Status, r.Body)
	}
	for _, f := range []struct{ meta, top, name string }{
		{`,"creationTimestamp":"2026-01-01T00:00:00Z"`, "", "metadata.creationTimestamp"},
		{`,"managedBy":"apply"`, "", "metadata.managedBy"},
		{"", `,"status":{"state":"ready"}`, "status"},
	} {
		refused("output-only "+f.name, "PUT", set, put(f.meta, f.top), auth, f.name+": output only")
	}

	// 17: an empty merge writes nothing.
	audit := func() int {
		t.Helper()
		return strings.Count(string(do("GET", "/v1/organizations/acme/audit?limit=100", "", auth).Body), `"action":`)
	}
	records := audit()
	before := version()
	for _, body := range []string{`{}`, `{"set":{}}`, `{"remove":["NOT_THERE"]}`} {
		if r := do("PATCH", set, body, auth); r.Status != 200 {
			t.Errorf("empty merge %s: %d %s", body, r.Status, r.Body)
		}
		if v := version(); v != before {
			t.Errorf("empty merge %s: version %s -> %s", body, before, v)
		}
	}
	if n := audit(); n != records {
		t.Errorf("the empty merges wrote %d audit records", n-records)
	}

	// 18: 401 says how to authenticate; If-Match compares strongly and
	// takes lists.
	if r := do("GET", set, "", map[string]string{"Authorization": "Bearer bkp_wrong"}); r.Status != 401 || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("401: %d, WWW-Authenticate %q", r.Status, r.Header.Get("WWW-Authenticate"))
	}
	cur := version()
	body := put("", "")
	if r := do("PUT", set, body, with(map[string]string{"If-Match": `W/"` + cur + `"`})); r.Status != 409 {
		t.Errorf("weak If-Match: %d %s, want 409", r.Status, r.Body)
	}
	if r := do("PUT", set, body, with(map[string]string{"If-Match": `"1", "` + cur + `"`})); r.Status != 200 {
		t.Errorf("If-Match list holding the current version: %d %s", r.Status, r.Body)
	}
	if r := do("PUT", set, body, with(map[string]string{"If-Match": `*`})); r.Status != 200 {
		t.Errorf("If-Match *: %d %s", r.Status, r.Body)
	}

	// Another organization answers as a missing one, on every route.
	for _, org := range []string{"other", "nope"} {
		for _, rq := range []struct{ method, path, body string }{
			{"GET", "/v1/organizations/" + org + "/secrets", ""},
			{"GET", "/v1/organizations/" + org + "/secrets/bot", ""},
			{"PATCH", "/v1/organizations/" + org + "/secrets/bot", `{"set":{"A":"1"}}`},
			{"PUT", "/v1/organizations/" + org + "/secrets/bot", put("", "")},
			{"DELETE", "/v1/organizations/" + org + "/secrets/bot", ""},
			{"DELETE", "/v1/organizations/" + org + "/secrets/bot/keys/A", ""},
			{"POST", "/v1/organizations/" + org + "/apply", `{"objects":[]}`},
			{"POST", "/v1/organizations/" + org + "/delete", `{"objects":[]}`},
		} {
			r := do(rq.method, rq.path, rq.body, auth)
			if want := `organization \"` + org + `\" not found`; r.Status != 404 || !strings.Contains(string(r.Body), want) {
				t.Errorf("%s %s: %d %s, want 404 %s", rq.method, rq.path, r.Status, r.Body, want)
			}
		}
	}
}

// A platform without metrics (the CLI's embedded one) answers /metrics
// with the 404 the contract describes.
func TestNoMetricsIsA404(t *testing.T) {
	c := apitest.Load(t)
	srv := platformtest.Open(t, platform.Options{DisableProvisioner: true, Metrics: noMetricsForTest{}})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	if r, err := c.Do(t, hs.URL, "GET", "/metrics", "", nil); err != nil || r.Status != 404 {
		t.Errorf("/metrics without metrics: %d %s", r.Status, r.Body)
	}
}

// noMetricsForTest measures nothing and serves no /metrics.
type noMetricsForTest struct{}

func (noMetricsForTest) Request(string, string, int, time.Duration) {}
func (noMetricsForTest) Commit(int, time.Duration)                  {}
func (noMetricsForTest) Pass(string)                                {}
func (noMetricsForTest) Provisioned(string, string, string, int)    {}
func (noMetricsForTest) Handler() http.Handler                      { return nil }

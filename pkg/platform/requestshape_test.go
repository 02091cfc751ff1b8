package platform_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/httpapi"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The routes served are exactly the contract's operations, both ways; those
// that take a body are the operations with a requestBody, and each lists
// the 415.
func TestBodyRoutesMatchTheContract(t *testing.T) {
	c := apitest.Load(t)
	served := map[string]bool{}
	for _, rt := range httpapi.Routes() {
		served[rt.Method+" "+rt.Path] = true
	}
	for path, item := range c.Doc.Paths.Map() {
		for method := range item.Operations() {
			if !served[method+" "+path] {
				t.Errorf("api/openapi.yaml route %s %s is not served", method, path)
			}
		}
	}
	for _, rt := range httpapi.Routes() {
		item := c.Doc.Paths.Find(rt.Path)
		if item == nil {
			t.Errorf("%s %s is not in api/openapi.yaml", rt.Method, rt.Path)
			continue
		}
		op := item.GetOperation(rt.Method)
		if op == nil {
			t.Errorf("%s %s is not in api/openapi.yaml", rt.Method, rt.Path)
			continue
		}
		if got := op.RequestBody != nil; got != rt.Body {
			t.Errorf("%s %s: takes a body %v, api/openapi.yaml says %v", rt.Method, rt.Path, rt.Body, got)
		}
		if rt.Body && op.Responses.Status(415) == nil {
			t.Errorf("%s %s: api/openapi.yaml lists no 415", rt.Method, rt.Path)
		}
	}
}

// A body not sent as application/json is a JSON 415 and changes nothing; a
// lone surrogate escape is a 400 naming the field (it was stored as
// U+FFFD); every answer is one the contract describes.
func TestRequestBodiesAreJSONAndValidUTF16(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		c := apitest.Load(t)
		base, srv := platformtest.Start(t, storeOptions(t, db))
		platformtest.CreateOrg(t, srv, "acme", "")
		tok := "Bearer " + platformtest.CreateToken(t, srv, "acme", "ci")
		const set = "/v1/organizations/acme/secrets/bot"
		// do sends a request the contract allows (a lone surrogate is a valid
		// string to it: it decodes it as U+FFFD).
		do := func(method, path, body string) apitest.Reply {
			t.Helper()
			r, err := c.Do(t, base, method, path, body, map[string]string{"Authorization": tok})
			if err != nil {
				t.Errorf("api/openapi.yaml refuses %s %s %s: %v", method, path, body, err)
			}
			return r
		}
		errOf := func(r apitest.Reply) resources.ErrorDetail {
			var e resources.ErrorResponse
			if err := json.Unmarshal(r.Body, &e); err != nil {
				t.Errorf("not a JSON error: %s", r.Body)
			}
			return e.Error
		}
		for _, ct := range []string{"text/plain", "application/octet-stream", "", "application/json; charset=latin1", "application/jsonx", "json"} {
			for _, op := range []struct{ method, path, body string }{
				{"PATCH", set, `{"set":{"A":"1"}}`},
				{"PUT", set, `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot"},"spec":{"data":{"A":"1"}}}`},
				{"POST", "/v1/organizations/acme/apply", `{"objects":[{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot"},"spec":{"data":{"A":"1"}}}]}`},
			} {
				r, reqErr := c.Do(t, base, op.method, op.path, op.body, map[string]string{"Authorization": tok, "Content-Type": ct})
				// The contract's media types have no parameters: the charset
				// rule is in its description only.
				if reqErr == nil && !strings.Contains(ct, "charset") {
					t.Errorf("%s %s with Content-Type %q: api/openapi.yaml allows it", op.method, op.path, ct)
				}
				if e := errOf(r); r.Status != 415 || e.Code != resources.CodeInvalid || !strings.Contains(e.Message, "application/json") {
					t.Errorf("%s %s with Content-Type %q: %d %s, want 415 invalid", op.method, op.path, ct, r.Status, r.Body)
				}
			}
		}
		if r := do("GET", set, ""); r.Status != 404 {
			t.Fatalf("a body sent as another type was stored: GET %d %s", r.Status, r.Body)
		}
		r, err := c.Do(t, base, "PATCH", set, `{"set":{"A":"1"}}`, map[string]string{"Authorization": tok, "Content-Type": "Application/JSON; charset=UTF-8"})
		if err != nil {
			t.Errorf("api/openapi.yaml refuses application/json with charset utf-8: %v", err)
		}
		if r.Status != 201 {
			t.Fatalf("application/json with charset utf-8: %d %s", r.Status, r.Body)
		}

		for _, body := range []string{`{"set":{"B":"\udc00x"}}`, `{"set":{"B":"x\ud83d"}}`, `{"set":{"B":"\ud83d\u0041"}}`} {
			r := do("PATCH", set, body)
			if e := errOf(r); r.Status != 400 || e.Code != resources.CodeInvalid || !strings.Contains(e.Message, `"set.B"`) || !strings.Contains(e.Message, "surrogate") {
				t.Errorf("PATCH %s: %d %s, want 400 naming set.B", body, r.Status, r.Body)
			}
		}
		r = do("GET", set, "")
		if strings.Contains(string(r.Body), `"B"`) {
			t.Errorf("a lone surrogate was stored: %s", r.Body)
		}
		if r := do("PATCH", set, `{"set":{"C":"\ud83d\ude00"}}`); r.Status != 200 {
			t.Errorf("a surrogate pair: %d %s", r.Status, r.Body)
		}
	})
}

// A path that is not clean is a JSON 404, never a redirect.
func TestUncleanPathsAreNotFoundNeverRedirected(t *testing.T) {
	base, srv := platformtest.Start(t, platform.Options{DisableProvisioner: true})
	platformtest.CreateOrg(t, srv, "acme", "")
	tok := platformtest.CreateToken(t, srv, "acme", "ci")
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{
		"//v1//me", "/v1//me", "/v1/./me", "/v1/organizations/../../etc/passwd", "/v1/organizations/acme/secrets/x/..",
		"/v1/organizations/acme/secrets/../secrets", "/v1/organizations/acme/secrets/.", "/v1/me/.",
	} {
		for _, method := range []string{"GET", "PATCH"} {
			req, err := http.NewRequest(method, base+p, strings.NewReader(`{"set":{"A":"1"}}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			var e resources.ErrorResponse
			if resp.StatusCode != 404 || resp.Header.Get("Location") != "" || json.Unmarshal(data, &e) != nil || e.Error.Code != resources.CodeNotFound {
				t.Errorf("%s %s: %d (Location %q) %s, want a JSON 404", method, p, resp.StatusCode, resp.Header.Get("Location"), data)
			}
		}
	}
}

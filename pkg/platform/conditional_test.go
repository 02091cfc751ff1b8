package platform_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
)

// A PATCH with If-Match / If-None-Match is a compare-and-swap: `botkit cloud
// secrets set` confirms the overwrites it read and must not overwrite keys
// that appeared since.
func TestConditionalPatch(t *testing.T) {
	srv := platformtest.Open(t, platform.Options{DataDir: t.TempDir(), NoAuthOrg: "local"})
	h := srv.Handler()
	patch := func(body string, hdr ...string) *httptest.ResponseRecorder {
		req := jsonRequest("PATCH", "/v1/organizations/local/secrets/app", strings.NewReader(body))
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := patch(`{"set":{"A":"1"}}`, "If-Match", "*"); rec.Code != http.StatusConflict {
		t.Errorf("If-Match * on a missing object: %d %s", rec.Code, rec.Body)
	}
	rec := patch(`{"set":{"A":"1"}}`, "If-None-Match", "*")
	if rec.Code != http.StatusCreated {
		t.Fatalf("If-None-Match * on a missing object: %d %s", rec.Code, rec.Body)
	}
	etag := rec.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if rec := patch(`{"set":{"B":"2"}}`, "If-None-Match", "*"); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), `"conflict"`) {
		t.Errorf("If-None-Match * on an existing object: %d %s", rec.Code, rec.Body)
	}
	if rec := patch(`{"set":{"B":"2"}}`, "If-None-Match", `"3"`); rec.Code != http.StatusBadRequest {
		t.Errorf("If-None-Match with a version: %d %s", rec.Code, rec.Body)
	}
	rec = patch(`{"set":{"B":"2"}}`, "If-Match", etag)
	if rec.Code != http.StatusOK {
		t.Fatalf("If-Match current version: %d %s", rec.Code, rec.Body)
	}
	if rec := patch(`{"set":{"C":"3"}}`, "If-Match", etag); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "changed since") {
		t.Errorf("If-Match stale version: %d %s", rec.Code, rec.Body)
	}
	req := httptest.NewRequest("GET", "/v1/organizations/local/secrets/app", nil)
	got := httptest.NewRecorder()
	h.ServeHTTP(got, req)
	if !strings.Contains(got.Body.String(), `"keys":["A","B"]`) {
		t.Errorf("a refused conditional PATCH wrote: %s", got.Body)
	}
}

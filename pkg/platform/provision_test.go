package platform_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
)

// Provisioning passes through the platform: a lone write and a stream of
// writes become ready, and the passes show in /metrics. How the passes are
// timed (one debounce after a quiet spell, one pass per interval under a
// stream) is provision.TestPassTiming's, with the clock in its hand.
func TestProvisionPasses(t *testing.T) {
	srv := platformtest.Open(t, platform.Options{DataDir: t.TempDir(), NoAuthOrg: "local"})
	h := srv.Handler()
	do := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, jsonRequest(method, path, strings.NewReader(body)))
		return rec
	}
	passes := func() float64 {
		sc := bufio.NewScanner(do("GET", "/metrics", "").Body)
		total := 0.0
		for sc.Scan() {
			if name, val, ok := strings.Cut(sc.Text(), " "); ok && name == `botkit_platform_provision_passes_total{region="us-west"}` {
				v, err := strconv.ParseFloat(val, 64)
				if err != nil {
					t.Fatal(err)
				}
				total += v
			}
		}
		return total
	}
	ready := func(name string) func() bool {
		return func() bool {
			return strings.Contains(do("GET", "/v1/organizations/local/secrets/"+name, "").Body.String(), `"state":"ready"`)
		}
	}

	if rec := do("PATCH", "/v1/organizations/local/secrets/lone", `{"set":{"A":"1"}}`); rec.Code != http.StatusCreated {
		t.Fatalf("patch: %d %s", rec.Code, rec.Body)
	}
	testenv.Eventually(t, "a lone write to become ready", ready("lone"))

	before := passes()
	const writes = 50
	for i := range writes {
		if rec := do("PATCH", "/v1/organizations/local/secrets/stream", fmt.Sprintf(`{"set":{"K%d":"v"}}`, i)); rec.Code >= 300 {
			t.Fatalf("patch: %d %s", rec.Code, rec.Body)
		}
	}
	testenv.Eventually(t, "the streamed set to become ready", ready("stream"))
	if n := passes() - before; n < 1 {
		t.Errorf("%d writes were made ready by %.0f provisioning passes (/metrics)", writes, n)
	}
}

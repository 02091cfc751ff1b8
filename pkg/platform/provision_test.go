package platform_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
)

// Provisioning passes: a write after a quiet spell is ready at once (one
// pass ~25 ms later); a steady stream of writes is made ready by at most
// one pass per 100 ms, not one per write.
func TestProvisionPassRate(t *testing.T) {
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
	ready := func(name string, within time.Duration) bool {
		for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			if strings.Contains(do("GET", "/v1/organizations/local/secrets/"+name, "").Body.String(), `"state":"ready"`) {
				return true
			}
		}
		return false
	}

	if rec := do("PATCH", "/v1/organizations/local/secrets/lone", `{"set":{"A":"1"}}`); rec.Code != http.StatusCreated {
		t.Fatalf("patch: %d %s", rec.Code, rec.Body)
	}
	if !ready("lone", 2*time.Second) {
		t.Fatal("a lone write was not ready within 2 s")
	}

	before := passes()
	start := time.Now()
	writes := 0
	for time.Since(start) < time.Second {
		if rec := do("PATCH", "/v1/organizations/local/secrets/stream", fmt.Sprintf(`{"set":{"K%d":"v"}}`, writes)); rec.Code >= 300 {
			t.Fatalf("patch: %d %s", rec.Code, rec.Body)
		}
		writes++
		time.Sleep(2 * time.Millisecond)
	}
	elapsed := time.Since(start)
	n := passes() - before
	// One pass per 100 ms, plus the one under way when the stream began and
	// the poll (PollInterval, 1 s) that may fall in the second.
	if limit := elapsed.Seconds()*10 + 3; n < 1 || n > limit {
		t.Errorf("%d writes in %s took %.0f provisioning passes, want 1 to %.0f", writes, elapsed.Round(time.Millisecond), n, limit)
	}
	if !ready("stream", 2*time.Second) {
		t.Error("the streamed set was not ready within 2 s of its last write")
	}
}

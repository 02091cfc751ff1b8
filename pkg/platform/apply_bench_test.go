package platform_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// applyBody is an apply request of n secret sets of 5 keys each.
func applyBody(b *testing.B, prefix string, n int) []byte {
	b.Helper()
	req := resources.ApplyRequest{Objects: make([]resources.Object, 0, n)}
	for i := range n {
		kv := []string{}
		for k := range 5 {
			kv = append(kv, fmt.Sprintf("KEY_%d", k), fmt.Sprintf("value-%s-%d-%d-%s", prefix, i, k, strings.Repeat("x", 24)))
		}
		req.Objects = append(req.Objects, set(fmt.Sprintf("%s-%04d", prefix, i), map[string]string{"team": "voice"}, kv...))
	}
	data, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkApply1000 applies 1,000 secret sets in one request through the
// platform's HTTP handler over a real SQLite file: "first" creates them
// (new names every iteration), "unchanged" applies the same 1,000 again
// (nothing is written). bench/apply.sh compares the CLI against 1,000
// imperative calls.
func BenchmarkApply1000(b *testing.B) {
	srv := platformtest.Open(b, platform.Options{DataDir: b.TempDir(), NoAuthOrg: "local", DisableProvisioner: true})
	h := srv.Handler()
	do := func(body []byte) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/organizations/local/apply", strings.NewReader(string(body))))
		if rec.Code != 200 {
			b.Fatalf("apply: %d %s", rec.Code, rec.Body.String()[:min(300, rec.Body.Len())])
		}
	}
	b.Run("first", func(b *testing.B) {
		i := 0
		for b.Loop() {
			b.StopTimer()
			body := applyBody(b, fmt.Sprintf("first%d", i), 1000)
			i++
			b.StartTimer()
			do(body)
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		body := applyBody(b, "same", 1000)
		do(body)
		for b.Loop() {
			do(body)
		}
	})
}

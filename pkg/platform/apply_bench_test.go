package platform_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/sealed"
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
		h.ServeHTTP(rec, jsonRequest("POST", "/v1/organizations/local/apply", strings.NewReader(string(body))))
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

// BenchmarkApplySealed1000 is BenchmarkApply1000's "first" with every value
// sealed (strict scope) to the organization's key: the cost the platform
// adds for opening 5,000 sealed values in one apply ("literal" is the same
// request with the values themselves, measured in the same run).
func BenchmarkApplySealed1000(b *testing.B) {
	srv := platformtest.Open(b, platform.Options{DataDir: b.TempDir(), NoAuthOrg: "local", DisableProvisioner: true})
	h := srv.Handler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/organizations/local/sealing-key", nil))
	var key resources.SealingKey
	if err := json.Unmarshal(rec.Body.Bytes(), &key); err != nil {
		b.Fatal(err)
	}
	rcp, err := sealed.ParseRecipient(key.Recipient)
	if err != nil {
		b.Fatal(err)
	}
	body := func(prefix string, seal bool) []byte {
		req := resources.ApplyRequest{}
		for i := range 1000 {
			name := fmt.Sprintf("%s-%04d", prefix, i)
			obj := set(name, map[string]string{"team": "voice"})
			for k := range 5 {
				key, v := fmt.Sprintf("KEY_%d", k), fmt.Sprintf("value-%d-%d-%s", i, k, strings.Repeat("x", 24))
				src := resources.Literal(v)
				if seal {
					s, err := sealed.Seal(rcp, sealed.Binding{Scope: sealed.ScopeStrict, Organization: "local", Set: name, Key: key}, v)
					if err != nil {
						b.Fatal(err)
					}
					src = resources.ValueSource{Sealed: s}
				}
				obj.SecretSet.Spec.Data[key] = src
			}
			req.Objects = append(req.Objects, obj)
		}
		data, err := json.Marshal(req)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	for _, seal := range []bool{false, true} {
		name := "literal"
		if seal {
			name = "sealed"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				b.StopTimer()
				data := body(fmt.Sprintf("%s%d", name, i), seal)
				i++
				b.StartTimer()
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, jsonRequest("POST", "/v1/organizations/local/apply", strings.NewReader(string(data))))
				if rec.Code != 200 {
					b.Fatalf("apply: %d %s", rec.Code, rec.Body.String()[:min(300, rec.Body.Len())])
				}
			}
		})
	}
}

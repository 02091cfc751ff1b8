package platform_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/botkit-dev/botkit/internal/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// A deeply nested body costs the platform a small multiple of its size,
// whatever its depth: 1 MiB of "[" to PATCH, 8 MiB of "[" to /apply, and
// several at once are each a 400 naming the nesting, and the process's
// allocations while they are served stay within a few times the bytes sent
// (they were ~200 times: every level was a frame in the body's checks
// before the decoder's own depth limit).
func TestDeeplyNestedBodiesCostLittleMemory(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		base, srv := platformtest.Start(t, storeOptions(t, db))
		platformtest.CreateOrg(t, srv, "acme", "")
		tok := platformtest.CreateToken(t, srv, "acme", "ci")
		client := &http.Client{}
		send := func(method, path string, body []byte) {
			req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Error(err)
				return
			}
			var e resources.ErrorResponse
			if resp.StatusCode != 400 || json.Unmarshal(data, &e) != nil || !strings.Contains(e.Error.Message, "nested deeper than") {
				t.Errorf("%s %s (%d bytes of nesting): %d %s, want 400 naming the nesting", method, path, len(body), resp.StatusCode, data)
			}
		}
		const patch, apply = "/v1/organizations/acme/secrets/bot", "/v1/organizations/acme/apply"
		oneMiB := bytes.Repeat([]byte("["), 1<<20)
		eightMiB := bytes.Repeat([]byte("["), 8<<20)
		objects := append([]byte(`{"objects":[`), bytes.Repeat([]byte(`{"spec":`), 1<<20)...)
		cases := []struct {
			name   string
			method string
			path   string
			body   []byte
			n      int // sent at once
		}{
			{"PATCH 1 MiB of [", "PATCH", patch, oneMiB, 1},
			{"PATCH 1 MiB of [ x 8 at once", "PATCH", patch, oneMiB, 8},
			{"apply 8 MiB of [", "POST", apply, eightMiB, 1},
			{"apply 8 MiB of [ x 4 at once", "POST", apply, eightMiB, 4},
			{"apply 8 MiB of nested objects", "POST", apply, objects, 1},
		}
		for _, c := range cases {
			send(c.method, c.path, c.body) // warm up connections and pools
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var wg sync.WaitGroup
			for range c.n {
				wg.Go(func() { send(c.method, c.path, c.body) })
			}
			wg.Wait()
			runtime.ReadMemStats(&after)
			sent := uint64(c.n * len(c.body))
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: %d bytes sent, %d allocated (%.1fx), heap %d -> %d", c.name, sent, allocated, float64(allocated)/float64(sent), before.HeapAlloc, after.HeapAlloc)
			// Reading a body into memory costs up to ~3x its size (the buffer
			// grows by doubling); everything else must be small beside it.
			if allocated > 6*sent {
				t.Errorf("%s: serving %d bytes allocated %d bytes (%.0fx), want at most 6x", c.name, sent, allocated, float64(allocated)/float64(sent))
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			if after.HeapAlloc > before.HeapAlloc+sent {
				t.Errorf("%s: the heap holds %d bytes more after the requests, want at most the %d sent", c.name, after.HeapAlloc-before.HeapAlloc, sent)
			}
		}
	})
}

// storeOptions are the options of a platform on db: SQLite in a temporary
// directory, or a fresh PostgreSQL database with its master key file.
func storeOptions(t *testing.T, db testDB) platform.Options {
	t.Helper()
	opts := platform.Options{DisableProvisioner: true}
	if db.postgres {
		keyFile := filepath.Join(t.TempDir(), platform.MasterKeyFile)
		writeKey(t, keyFile, "5a")
		opts.Store = db.open(t)
		opts.MasterKeyFile = keyFile
	}
	return opts
}

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

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// A deeply nested body costs the platform a small multiple of its size,
// whatever its depth: 1 MiB of "[" to PATCH, 8 MiB of "[" to /apply, and
// several at once are each a 400 naming the nesting (an array of millions
// of empty objects a 413 naming it), and the process's
// allocations while they are served stay within a few times the bytes sent
// (they were ~200 times: every level was a frame in the body's checks
// before the decoder's own depth limit).
func TestDeeplyNestedBodiesCostLittleMemory(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		base, srv := platformtest.Start(t, storeOptions(t, db))
		platformtest.CreateOrg(t, srv, "acme", "")
		tok := platformtest.CreateToken(t, srv, "acme", "ci")
		client := &http.Client{}
		send := func(method, path string, body []byte, status int, says string) {
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
			if resp.StatusCode != status || json.Unmarshal(data, &e) != nil || !strings.Contains(e.Error.Message, says) {
				t.Errorf("%s %s (%d bytes): %d %.300s, want %d saying %q", method, path, len(body), resp.StatusCode, data, status, says)
			}
		}
		const patch, apply = "/v1/organizations/acme/secrets/bot", "/v1/organizations/acme/apply"
		oneMiB := bytes.Repeat([]byte("["), 1<<20)
		eightMiB := bytes.Repeat([]byte("["), 8<<20)
		objects := append([]byte(`{"objects":[`), bytes.Repeat([]byte(`{"spec":`), 1<<20)...)
		// Wide rather than deep: 2.8 million empty objects (~600 MB before).
		wide := append(append([]byte(`{"objects":[`), bytes.Repeat([]byte(`{},`), 8<<20/3-10)...), "{}]}"...)
		const deep = "nested deeper than 16 levels"
		cases := []struct {
			name   string
			method string
			path   string
			body   []byte
			n      int // sent at once
			status int
			says   string
		}{
			{"PATCH 1 MiB of [", "PATCH", patch, oneMiB, 1, 400, deep},
			{"PATCH 1 MiB of [ x 8 at once", "PATCH", patch, oneMiB, 8, 400, deep},
			{"apply 8 MiB of [", "POST", apply, eightMiB, 1, 400, deep},
			{"apply 8 MiB of [ x 4 at once", "POST", apply, eightMiB, 4, 400, deep},
			{"apply 8 MiB of nested objects", "POST", apply, objects, 1, 400, deep},
			{"apply 8 MiB of empty objects", "POST", apply, wide, 1, 413, `"objects": more than 10000 members`},
		}
		for _, c := range cases {
			send(c.method, c.path, c.body, c.status, c.says) // warm up connections and pools
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var wg sync.WaitGroup
			for range c.n {
				wg.Go(func() { send(c.method, c.path, c.body, c.status, c.says) })
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

package platform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/pgtest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/jackc/pgx/v5"
)

// On an 8 MiB volume, thousands of small writes from many clients keep
// working: the database stays small and its write-ahead log bounded. With
// an unbounded log the volume filled after a few hundred writes beside a
// database of 96 KB, and every later write failed.
func TestSmallVolumeKeepsWorking(t *testing.T) {
	dir := testenv.Tmpfs(t, "8m", "mode=0700")
	base, _ := platformtest.Start(t, platform.Options{DataDir: dir, NoAuthOrg: "local"})
	// Few clients: the fewer writes share a commit, the more log each
	// write takes.
	const clients, perClient = 4, 300
	var wg sync.WaitGroup
	failed := make(chan string, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range perClient {
				body := fmt.Sprintf(`{"set":{"K%d":"value %d of client %d"}}`, j%20, j, i)
				req, err := http.NewRequest("PATCH", fmt.Sprintf("%s/v1/organizations/local/secrets/c%d", base, i), strings.NewReader(body))
				if err != nil {
					failed <- err.Error()
					return
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					failed <- err.Error()
					return
				}
				msg, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					failed <- err.Error()
					return
				}
				if resp.StatusCode != 200 && resp.StatusCode != 201 {
					failed <- fmt.Sprintf("write %d of client %d: %d %s", j, i, resp.StatusCode, msg)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(failed)
	for msg := range failed {
		t.Fatal(msg)
	}
	var used int64
	for _, name := range []string{sqlite.DatabaseFile, sqlite.DatabaseFile + "-wal", sqlite.DatabaseFile + "-shm"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
			used += fi.Size()
		}
	}
	t.Logf("%d writes: database, log and index take %d bytes", clients*perClient, used)
	if used > 6<<20 {
		t.Errorf("after %d small writes the database and its log take %d bytes of the 8 MiB volume", clients*perClient, used)
	}
}

// A write the database cannot keep because its disk is full is a 503
// unavailable with Retry-After that says so (it was a bare 500 "internal
// error"), and nothing of it is kept; once space is freed writes work again
// and the objects left pending meanwhile are provisioned. On SQLite the
// data directory is the full volume; on PostgreSQL the platform's tables
// are in a tablespace on it.
func TestStorageFull(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		c := apitest.Load(t)
		var loc stores.Location
		var volume string
		if db.postgres {
			pgUser, err := user.Lookup("postgres")
			if err != nil {
				testenv.Missing(t, "no postgres user to own the tablespace: %v", err)
			}
			volume = testenv.Tmpfs(t, "4m", "mode=0700", "uid="+pgUser.Uid, "gid="+pgUser.Gid)
			// The server (user postgres) must reach it through the test's
			// temporary directory.
			if err := os.Chmod(filepath.Dir(volume), 0o711); err != nil {
				t.Fatal(err)
			}
			cluster := pgtest.Start(t) // stopped before the volume is unmounted
			loc.URL = cluster.Database(t)
			// The tables move once the store created them (below).
		} else {
			volume = testenv.Tmpfs(t, "8m", "mode=0700")
			loc.DataDir = volume
		}
		keyFile := filepath.Join(t.TempDir(), "master.key")
		writeKey(t, keyFile, "3d")
		open := func(o platform.Options) (string, *platform.Server) {
			st, err := stores.Open(ctx, loc, stores.Options{})
			if err != nil {
				t.Fatal(err)
			}
			o.Store, o.DataDir, o.MasterKeyFile, o.NoAuthOrg = st, loc.DataDir, keyFile, "local"
			return platformtest.Start(t, o)
		}
		// a serves the writes; b's provisioner runs only when the test
		// drains it, as its workers would.
		base, _ := open(platform.Options{DisableProvisioner: true})
		_, prov := open(platform.Options{LazyProvisioner: true})
		if db.postgres {
			conn, err := pgx.Connect(ctx, loc.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			for _, q := range []string{
				"CREATE TABLESPACE small LOCATION '" + volume + "'",
				"ALTER TABLE ALL IN TABLESPACE pg_default SET TABLESPACE small",
				"ALTER INDEX ALL IN TABLESPACE pg_default SET TABLESPACE small",
			} {
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
		}
		do := func(method, name, body string) apitest.Reply {
			t.Helper()
			r, err := c.Do(t, base, method, "/v1/organizations/local/secrets/"+name, body, nil)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		state := func(name string) string {
			t.Helper()
			var o struct {
				Status struct{ State string } `json:"status"`
			}
			r := do("GET", name, "")
			if err := json.Unmarshal(r.Body, &o); err != nil || r.Status != 200 {
				t.Fatalf("GET %s: %d %s", name, r.Status, r.Body)
			}
			return o.Status.State
		}
		if r := do("PATCH", "early", `{"set":{"A":"1"}}`); r.Status != 201 {
			t.Fatalf("first write: %d %s", r.Status, r.Body)
		}
		filler := testenv.FillDisk(t, volume)

		// Writes of sets of one 48 KiB value: the first whose pages find
		// no room fails. Until then (space left in the files' own pages)
		// writes succeed.
		value := strings.Repeat("v", 48<<10)
		var full apitest.Reply
		var failedName string
		for i := range 200 {
			name := fmt.Sprintf("s%d", i)
			r := do("PATCH", name, `{"set":{"V":"`+value+`"}}`)
			if r.Status == 201 {
				continue
			}
			full, failedName = r, name
			break
		}
		if failedName == "" {
			t.Fatal("200 writes of 48 KiB succeeded on a full volume")
		}
		var e resources.ErrorResponse
		if err := json.Unmarshal(full.Body, &e); err != nil || full.Status != 503 || e.Error.Code != resources.CodeUnavailable ||
			e.Error.Message != "the platform's storage is full; nothing was changed" {
			t.Fatalf("write on a full volume: %d %s, want 503 unavailable saying the storage is full", full.Status, full.Body)
		}
		if ra := full.Header.Get("Retry-After"); ra == "" {
			t.Errorf("503 of a full volume without Retry-After")
		}
		if r := do("GET", failedName, ""); r.Status != 404 {
			t.Errorf("the write refused on a full volume left %s behind: %d %s", failedName, r.Status, r.Body)
		}
		if r := do("GET", "early", ""); r.Status != 200 {
			t.Errorf("a read on a full volume: %d %s", r.Status, r.Body)
		}
		// The provisioner's pass on the full volume may fail; it must
		// not keep anything from working once space is freed.
		_ = prov.Drain(ctx) // error ignored: what it did is checked after space is freed

		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		if r := do("PATCH", failedName, `{"set":{"V":"`+value+`"}}`); r.Status != 201 {
			t.Fatalf("write after space was freed: %d %s", r.Status, r.Body)
		}
		if err := prov.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"early", failedName} {
			if s := state(name); s != "ready" {
				t.Errorf("%s is %q after space was freed and the provisioner ran, want ready", name, s)
			}
		}
	})
}

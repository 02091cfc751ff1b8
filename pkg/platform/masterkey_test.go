package platform_test

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/encryption"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
)

// A master key that is missing or not the one the values were encrypted
// with is refused, on both stores: no new key replaces a lost one, nothing
// is written, and the right key works again afterwards. A store written
// before key checks existed adopts the key that opens its values.
func TestMasterKeyCheck(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		dir := t.TempDir()
		keyFile := filepath.Join(dir, platform.MasterKeyFile)
		pgURL := ""
		if db.postgres {
			pgURL = pg.Database(t)
			writeKey(t, keyFile, "5a")
		}
		open := func() (*platform.Server, error) {
			t.Helper()
			opts := platform.Options{NoAuthOrg: "local", DisableProvisioner: true}
			var st store.Store
			var err error
			if db.postgres {
				st, err = stores.Open(ctx, stores.Location{URL: pgURL}, stores.Options{})
				opts.MasterKeyFile = keyFile
			} else {
				st, err = sqlite.OpenDir(ctx, dir, sqlite.Options{})
				opts.DataDir = dir
			}
			if err != nil {
				t.Fatal(err)
			}
			opts.Store = st
			return platform.Open(ctx, opts)
		}
		mustOpen := func() *platform.Server {
			t.Helper()
			srv, err := open()
			if err != nil {
				t.Fatal(err)
			}
			return srv
		}
		refused := func(missing bool) {
			t.Helper()
			srv, err := open()
			if err == nil {
				srv.Close()
				t.Fatal("the platform opened")
			}
			var mk *encryption.MasterKeyError
			if !errors.As(err, &mk) || mk.Missing != missing || mk.File != keyFile || !strings.Contains(err.Error(), keyFile) {
				t.Fatalf("error %v (%T), want a MasterKeyError (missing %v) naming %s", err, err, missing, keyFile)
			}
		}

		// A first write, with the key made (SQLite) or given (PostgreSQL).
		srv := mustOpen()
		patch(t, srv, "bot", `{"set":{"A":"value-1"}}`, http.StatusCreated)
		srv.Close()
		original, err := os.ReadFile(keyFile)
		if err != nil {
			t.Fatal(err)
		}

		// The key file lost: refused, and no new key takes its place.
		if err := os.Remove(keyFile); err != nil {
			t.Fatal(err)
		}
		refused(true)
		if _, err := os.Stat(keyFile); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a new key file was made: %v", err)
		}

		// Another key: refused.
		writeKey(t, keyFile, "77")
		refused(false)

		// The right key again: it works.
		if err := os.WriteFile(keyFile, original, 0o600); err != nil {
			t.Fatal(err)
		}
		srv = mustOpen()
		patch(t, srv, "bot", `{"set":{"B":"value-2"}}`, http.StatusOK)
		srv.Close()

		// A store written before checks existed: the key that opens its
		// values is adopted, another is refused.
		if !db.postgres {
			raw, err := sql.Open("sqlite", filepath.Join(dir, sqlite.DatabaseFile))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := raw.Exec(`DELETE FROM settings`); err != nil {
				t.Fatal(err)
			}
			raw.Close()
			writeKey(t, keyFile, "77")
			refused(false)
			if err := os.WriteFile(keyFile, original, 0o600); err != nil {
				t.Fatal(err)
			}
			mustOpen().Close()
			writeKey(t, keyFile, "77")
			refused(false) // the adopted key's check is stored now
		}
	})
}

// writeKey writes a key of 32 bytes, each hexByte, to path.
func writeKey(t *testing.T, path, hexByte string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Repeat(hexByte, 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// patch merges body into set name of organization local through srv's
// handler and checks the status.
func patch(t *testing.T, srv *platform.Server, name, body string, want int) {
	t.Helper()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, jsonRequest("PATCH", "/v1/organizations/local/secrets/"+name, strings.NewReader(body)))
	if rec.Code != want {
		t.Fatalf("PATCH %s: %d %s, want %d", name, rec.Code, rec.Body, want)
	}
}

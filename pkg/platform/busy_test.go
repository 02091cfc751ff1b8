package platform_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
)

// A write while another process holds the SQLite database's write lock
// waits the store's bound, then answers 503 unavailable saying so, with
// nothing written; once the lock is gone the same write goes through.
func TestBusyDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.OpenDir(ctx, dir, sqlite.Options{BusyTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := platformtest.Open(t, platform.Options{Store: st, DataDir: dir, NoAuthOrg: "local", DisableProvisioner: true})

	// Another "process": a connection of its own holding the write lock.
	other, err := sql.Open("sqlite", filepath.Join(dir, sqlite.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("PATCH", "/v1/organizations/local/secrets/bot", strings.NewReader(`{"set":{"A":"1"}}`)))
	took := time.Since(start)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"code":"unavailable"`) ||
		!strings.Contains(rec.Body.String(), "locked by another process") {
		t.Fatalf("write under another process's lock: %d %s", rec.Code, rec.Body)
	}
	if took < 300*time.Millisecond || took > 3*time.Second {
		t.Errorf("the write gave up after %s, want the store's bound (300ms)", took)
	}

	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	rec = httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("PATCH", "/v1/organizations/local/secrets/bot", strings.NewReader(`{"set":{"A":"1"}}`)))
	if rec.Code != http.StatusCreated {
		t.Fatalf("write after the lock was released: %d %s (the first write must have left nothing)", rec.Code, rec.Body)
	}
}

// A write waiting for another process's lock ends as soon as its request
// does (Ctrl-C of a command, a client gone), not after the bound.
func TestBusyWaitEndsWithTheRequest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.OpenDir(ctx, dir, sqlite.Options{BusyTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	srv := platformtest.Open(t, platform.Options{Store: st, DataDir: dir, NoAuthOrg: "local", DisableProvisioner: true})
	other, err := sql.Open("sqlite", filepath.Join(dir, sqlite.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("PATCH", "/v1/organizations/local/secrets/bot", strings.NewReader(`{"set":{"A":"1"}}`)).WithContext(rctx))
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("the write waited %s after its request ended (status %d)", took, rec.Code)
	}
}

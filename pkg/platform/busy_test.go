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

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
)

// lockedPlatform is a platform on SQLite whose writes wait at most bound,
// and a connection of "another process" holding its database's write lock;
// release ends the hold; busy receives a value each time a write found
// the database locked and is to try again (it is never full: a value is
// dropped when one is waiting).
func lockedPlatform(t *testing.T, bound time.Duration) (srv *platform.Server, release func(), busy <-chan struct{}) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	waiting := make(chan struct{}, 1)
	onBusy := func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	}
	st, err := sqlite.OpenDir(ctx, dir, sqlite.Options{BusyTimeout: bound, OnBusy: onBusy})
	if err != nil {
		t.Fatal(err)
	}
	srv = platformtest.Open(t, platform.Options{Store: st, DataDir: dir, NoAuthOrg: "local", DisableProvisioner: true})
	other, err := sql.Open("sqlite", filepath.Join(dir, sqlite.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	return srv, func() {
		if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
			t.Fatal(err)
		}
	}, waiting
}

// patchReq is a PATCH of set bot of organization local.
func patchReq(ctx context.Context) *http.Request {
	return jsonRequest("PATCH", "/v1/organizations/local/secrets/bot", strings.NewReader(`{"set":{"A":"1"}}`)).WithContext(ctx)
}

// serve serves req and returns its answer; the test fails if none came
// after testenv.Patience.
func serve(t *testing.T, srv *platform.Server, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { srv.Handler().ServeHTTP(rec, req); close(done) }()
	testenv.Within(t, req.Method+" "+req.URL.Path+" to be answered", done)
	return rec
}

// A write while another process holds the SQLite database's write lock
// past the store's bound answers 503 unavailable saying so, with nothing
// written; once the lock is gone the same write goes through. (That it
// waits for the lock until the bound: TestBusyWriteWaitsForTheLock.)
func TestBusyDatabase(t *testing.T) {
	srv, release, _ := lockedPlatform(t, 300*time.Millisecond)
	rec := serve(t, srv, patchReq(context.Background()))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"code":"unavailable"`) ||
		!strings.Contains(rec.Body.String(), "locked by another process") {
		t.Fatalf("write under another process's lock: %d %s", rec.Code, rec.Body)
	}
	release()
	rec = serve(t, srv, patchReq(context.Background()))
	if rec.Code != http.StatusCreated {
		t.Fatalf("write after the lock was released: %d %s (the first write must have left nothing)", rec.Code, rec.Body)
	}
}

// A write that finds the database locked waits for the lock: released
// while the write waits (seen through the store's busy hook, not a clock),
// the write goes through.
func TestBusyWriteWaitsForTheLock(t *testing.T) {
	srv, release, busy := lockedPlatform(t, 24*time.Hour)
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { srv.Handler().ServeHTTP(rec, patchReq(context.Background())); close(done) }()
	testenv.Within(t, "the write to find the database locked", busy)
	release()
	testenv.Within(t, "the write to be answered once the lock is gone", done)
	if rec.Code != http.StatusCreated {
		t.Fatalf("the write that waited for the lock: %d %s", rec.Code, rec.Body)
	}
}

// A write waiting for another process's lock ends as soon as its request
// does (Ctrl-C of a command, a client gone), not after the bound: the
// bound here outlasts the test's patience by far.
func TestBusyWaitEndsWithTheRequest(t *testing.T) {
	srv, _, _ := lockedPlatform(t, 24*time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if rec := serve(t, srv, patchReq(ctx)); rec.Code == http.StatusCreated {
		t.Errorf("the write went through under another process's lock: %d %s", rec.Code, rec.Body)
	}
}

package local_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform/local"
)

func TestDataDir(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.local/share/botkit"},
		{map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/d"}, "/d/botkit"},
		{map[string]string{"XDG_DATA_HOME": "/d"}, "/d/botkit"},
		// A relative XDG directory is ignored, as the spec says.
		{map[string]string{"HOME": "/h", "XDG_DATA_HOME": "rel"}, "/h/.local/share/botkit"},
	} {
		if got, err := local.DataDir(func(k string) string { return c.env[k] }); err != nil || got != c.want {
			t.Errorf("%v: %q %v, want %q", c.env, got, err, c.want)
		}
	}
	if _, err := local.DataDir(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "HOME") {
		t.Errorf("no HOME: %v", err)
	}
}

// The processes that share a data directory take turns for a region's
// reconcile pass: while one holds the lock, another waits (and gives up
// when its context ends); once released, the other takes it. Two holders
// in one process take it as two processes do (a file lock belongs to its
// open file).
func TestPassLockTakesTurns(t *testing.T) {
	dir := t.TempDir()
	lock := local.PassLock(dir)
	ctx := context.Background()
	release, err := lock(ctx, "us-west")
	if err != nil {
		t.Fatal(err)
	}
	// Another region is another lock.
	other, err := lock(ctx, "eu-central")
	if err != nil {
		t.Fatal(err)
	}
	other()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := lock(cctx, "us-west"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a second pass took a held lock: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		r, err := lock(ctx, "us-west")
		if err == nil {
			r()
		}
		got <- err
	}()
	release()
	if err := <-got; err != nil {
		t.Fatalf("after the release: %v", err)
	}
}

// One server per data directory: a second Claim is refused with the
// first's record; the record is 0600, found while /healthz answers, and
// removed by Release, after which the directory can be claimed again.
func TestClaimAnnounceRelease(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "botkit")
	ctx := context.Background()
	s, err := local.Claim(dir)
	if err != nil {
		t.Fatal(err)
	}
	var se *local.ServingError
	if _, err := local.Claim(dir); !errors.As(err, &se) || se.Record != nil || !strings.Contains(err.Error(), "starting") {
		t.Fatalf("a second claim before the record: %v", err)
	}
	ln := healthz(t, http.StatusOK)
	if err := s.Announce(ln.Addr(), "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, local.RecordFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record: %v %v", fi, err)
	}
	r, err := local.Serving(ctx, dir)
	if err != nil || r == nil || r.URL != "http://"+ln.Addr().String() || r.PID != os.Getpid() || r.Version != "v1.2.3" || r.Started.IsZero() {
		t.Fatalf("Serving: %+v %v", r, err)
	}
	if _, err := local.Claim(dir); !errors.As(err, &se) || se.Record == nil || se.Record.URL != r.URL || !strings.Contains(err.Error(), r.URL) {
		t.Fatalf("a second claim: %v", err)
	}
	if err := s.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, local.RecordFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the record outlived Release: %v", err)
	}
	if r, err := local.Serving(ctx, dir); r != nil || err != nil {
		t.Errorf("Serving after Release: %+v %v", r, err)
	}
	again, err := local.Claim(dir)
	if err != nil {
		t.Fatalf("a claim after the release: %v", err)
	}
	if err := again.Release(); err != nil {
		t.Fatal(err)
	}
}

// A record left behind is no server: its process gone, nothing answering
// /healthz at its address, /healthz failing, an address off the loopback,
// or a file that is no record.
func TestStaleRecords(t *testing.T) {
	ctx := context.Background()
	up := healthz(t, http.StatusOK).Addr().String()
	failing := healthz(t, http.StatusServiceUnavailable).Addr().String()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := closed.Addr().String()
	closed.Close()
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	me := os.Getpid()
	for name, c := range map[string]struct {
		record string
		live   bool
	}{
		"live":             {`{"url":"http://` + up + `","pid":` + itoa(me) + `}`, true},
		"process gone":     {`{"url":"http://` + up + `","pid":` + itoa(exited.Process.Pid) + `}`, false},
		"nothing listens":  {`{"url":"http://` + gone + `","pid":` + itoa(me) + `}`, false},
		"healthz fails":    {`{"url":"http://` + failing + `","pid":` + itoa(me) + `}`, false},
		"not loopback":     {`{"url":"http://192.0.2.1:8787","pid":` + itoa(me) + `}`, false},
		"https":            {`{"url":"https://` + up + `","pid":` + itoa(me) + `}`, false},
		"not a record":     {`serving`, false},
		"a record's shape": {`{"url":1}`, false},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, local.RecordFile), []byte(c.record), 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := local.Serving(ctx, dir)
		if err != nil || (r != nil) != c.live {
			t.Errorf("%s: %+v %v, want live %v", name, r, err, c.live)
		}
	}
}

// healthz serves /healthz with status on 127.0.0.1 until the test ends.
func healthz(t *testing.T, status int) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	})}
	go func() { _ = srv.Serve(ln) }() // error ignored: Serve returns when the test closes it
	t.Cleanup(func() { srv.Close() })
	return ln
}

func itoa(i int) string { return strconv.Itoa(i) }

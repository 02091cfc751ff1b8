// Package platformtest runs the real platform for tests: in process
// (pkg/platform served by net/http/httptest on 127.0.0.1, Start) or as the
// real botkit-platform binary (Build, Serve, CreateOrgToken).
package platformtest

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/prommetrics"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
)

// Start opens the platform with opts and serves its handler over real HTTP
// on 127.0.0.1. It returns the base URL and the server (for its Admin API);
// both are closed when the test ends. See Open for the store.
func Start(t testing.TB, opts platform.Options) (url string, srv *platform.Server) {
	t.Helper()
	srv = Open(t, opts)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL, srv
}

// StartTLS is Start over HTTPS, as botkit-platform serve --tls-cert-file
// certFile --tls-key-file keyFile serves (platform.TLSConfig,
// platform.HTTPServer); it returns https://127.0.0.1:PORT.
func StartTLS(t testing.TB, opts platform.Options, certFile, keyFile string) (url string, srv *platform.Server) {
	t.Helper()
	srv = Open(t, opts)
	cfg, err := platform.TLSConfig(certFile, keyFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := platform.HTTPServer(srv.Handler(), log.New(io.Discard, "", 0))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(tls.NewListener(ln, cfg)) // error ignored: http.ErrServerClosed once closed
	}()
	t.Cleanup(func() {
		_ = hs.Close() // error ignored: the test is over
		<-done
	})
	return "https://" + ln.Addr().String(), srv
}

// Open opens the platform with opts as botkit-platform serve does on
// SQLite: over the SQLite database of opts.DataDir (a fresh temporary
// directory when empty) unless opts.Store is set, with Prometheus metrics
// unless opts.Metrics is set. The server is closed when the test ends.
func Open(t testing.TB, opts platform.Options) *platform.Server {
	t.Helper()
	if opts.Metrics == nil {
		opts.Metrics = prommetrics.New()
	}
	if opts.Store == nil {
		if opts.DataDir == "" {
			opts.DataDir = t.TempDir()
		}
		st, err := sqlite.OpenDir(context.Background(), opts.DataDir, sqlite.Options{OnCommit: opts.Metrics.Commit})
		if err != nil {
			t.Fatal(err)
		}
		opts.Store = st
	}
	srv, err := platform.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// CreateOrg creates organization org in region ("" for the default).
func CreateOrg(t testing.TB, srv *platform.Server, org, region string) {
	t.Helper()
	if _, err := srv.Admin().CreateOrg(context.Background(), org, region); err != nil {
		t.Fatal(err)
	}
}

// CreateToken creates a token for organization org whose user is named user
// and returns it.
func CreateToken(t testing.TB, srv *platform.Server, org, user string) string {
	t.Helper()
	token, _, err := srv.Admin().CreateToken(context.Background(), org, user)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

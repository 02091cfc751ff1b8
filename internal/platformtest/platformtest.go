// Package platformtest runs the real platform for tests: in process
// (pkg/platform served by net/http/httptest on 127.0.0.1, Start) or as the
// real botkit-platform binary (Build, Serve, CreateOrgToken).
package platformtest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform"
)

// Start opens the platform with opts on a SQLite database (in a fresh
// temporary directory when opts.DataDir is empty) and serves its handler over
// real HTTP on 127.0.0.1. It returns the base URL and the server (for its
// Admin API); both are closed when the test ends.
func Start(t testing.TB, opts platform.Options) (url string, srv *platform.Server) {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	srv, err := platform.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return hs.URL, srv
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

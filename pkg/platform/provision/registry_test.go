package provision

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr         string
		allowPrivate bool
		blocked      bool
	}{
		{"169.254.169.254", true, true},
		{"169.254.1.1", true, true},
		{"100.100.100.200", true, true},
		{"fd00:ec2::254", true, true},
		{"fe80::1", true, true},
		{"::ffff:169.254.169.254", true, true},
		{"224.0.0.1", true, true},
		{"127.0.0.1", false, true},
		{"127.0.0.1", true, false},
		{"::1", false, true},
		{"10.1.2.3", false, true},
		{"172.16.0.1", false, true},
		{"192.168.1.1", false, true},
		{"100.64.0.1", false, true},
		{"fd12::1", false, true},
		{"0.0.0.0", false, true},
		{"::", false, true},
		{"10.1.2.3", true, false},
		{"140.82.112.3", false, false},
		{"2606:4700::1111", false, false},
	} {
		err := checkAddr(netip.MustParseAddr(tc.addr), tc.allowPrivate)
		if (err != nil) != tc.blocked {
			t.Errorf("checkAddr(%s, allowPrivate=%v) = %v, want blocked=%v", tc.addr, tc.allowPrivate, err, tc.blocked)
		}
	}
}

// The guarded client refuses a real loopback server unless private
// addresses are allowed.
func TestGuardedClientLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, err := newGuardedClient(false, 5*time.Second).Get(srv.URL)
	var be *blockedAddrError
	if !errors.As(err, &be) {
		t.Fatalf("loopback without allowPrivate: err %v, want blockedAddrError", err)
	}
	r, err := newGuardedClient(true, 5*time.Second).Get(srv.URL)
	if err != nil {
		t.Fatalf("loopback with allowPrivate: %v", err)
	}
	r.Body.Close()
}

// The guard also applies to redirects.
func TestGuardedClientRedirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	}))
	defer srv.Close()
	_, err := newGuardedClient(true, 5*time.Second).Get(srv.URL)
	var be *blockedAddrError
	if !errors.As(err, &be) {
		t.Fatalf("redirect to metadata: err %v, want blockedAddrError", err)
	}
}

// tokenRegistry imitates a registry that uses the bearer-token challenge
// (as Docker Hub and ghcr.io do). A fake, because no token-auth registry can
// be installed here; docker-registry with htpasswd (basic auth) is tested for
// real in cmd/botkit-platform.
func tokenRegistry(t *testing.T, user, pass string) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v2/":
			if r.Header.Get("Authorization") == "Bearer good-token" {
				w.WriteHeader(http.StatusOK)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+srv.URL+`/token",service="test-registry",scope="registry:catalog:*"`)
			w.WriteHeader(http.StatusUnauthorized)
		case "/token":
			u, p, ok := r.BasicAuth()
			if r.URL.Query().Get("service") != "test-registry" {
				t.Errorf("token request without service: %s", r.URL)
			}
			if !ok || u != user || p != pass {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"token":"good-token"}`)) // error ignored: the client reports a broken answer
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestVerifyRegistryBearer(t *testing.T) {
	srv := tokenRegistry(t, "bot", "pw")
	c := newGuardedClient(true, 5*time.Second)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	if res := verifyRegistry(context.Background(), c, srv.URL, b64("bot:pw")); !res.ok {
		t.Errorf("right credentials: %+v", res)
	}
	res := verifyRegistry(context.Background(), c, srv.URL, b64("bot:nope"))
	if res.ok || res.message != msgRejected || res.retryable {
		t.Errorf("wrong credentials: %+v", res)
	}
}

func TestVerifyRegistryStatuses(t *testing.T) {
	code := http.StatusServiceUnavailable
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }))
	defer srv.Close()
	c := newGuardedClient(true, 5*time.Second)
	if res := verifyRegistry(context.Background(), c, srv.URL, "eDp5"); res.ok || !res.retryable {
		t.Errorf("503: %+v", res)
	}
	code = http.StatusNotFound
	if res := verifyRegistry(context.Background(), c, srv.URL, "eDp5"); res.ok || res.retryable || !strings.Contains(res.message, "404") {
		t.Errorf("404: %+v", res)
	}
	code = http.StatusForbidden
	if res := verifyRegistry(context.Background(), c, srv.URL, "eDp5"); res.message != msgRejected {
		t.Errorf("403: %+v", res)
	}
}

func TestParseChallenge(t *testing.T) {
	scheme, p := parseChallenge(`Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push"`)
	if scheme != "Bearer" || p["realm"] != "https://auth.example/token" || p["service"] != "registry.example" || p["scope"] != "repository:a/b:pull,push" {
		t.Errorf("got %q %v", scheme, p)
	}
	if s, _ := parseChallenge(`Basic realm="x"`); s != "Basic" {
		t.Errorf("basic: %q", s)
	}
}

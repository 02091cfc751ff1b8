package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// startRegistry runs a real docker-registry (Debian package) on 127.0.0.1
// with htpasswd auth for user:pass and returns its base URL.
func startRegistry(t *testing.T, user, pass string) string {
	t.Helper()
	registrytest.Need(t)
	r, err := registrytest.Start(t.TempDir(), user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r.URL
}

func TestImagePullSecretVerification(t *testing.T) {
	reg := startRegistry(t, "robot", "s3cret-pass")
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme")
	s := startServer(t, dir, "--allow-private-registries")

	srv := s
	create := func(name, host, creds string, extra map[string]any) {
		t.Helper()
		body := map[string]any{"kind": "ImagePullSecret", "host": host, "credentials": creds}
		for k, v := range extra {
			body[k] = v
		}
		r := srv.call(tok, "PATCH", objPath("acme", name), body)
		if r.status != 201 && r.status != 200 {
			t.Fatalf("create %s: %d %s", name, r.status, r.body)
		}
	}
	create("good", reg, "robot:s3cret-pass", nil)
	create("good-b64", reg, "cm9ib3Q6czNjcmV0LXBhc3M=", map[string]any{"encode": false})
	create("wrong", reg, "robot:wrong-pass", nil)
	create("unreachable", fmt.Sprintf("http://127.0.0.1:%d", testenv.FreePort(t)), "robot:s3cret-pass", nil)
	create("metadata", "http://169.254.169.254", "robot:s3cret-pass", nil)

	for name, want := range map[string][2]string{
		"good":        {"ready", ""},
		"good-b64":    {"ready", ""},
		"wrong":       {"failed", "registry rejected the credentials"},
		"unreachable": {"failed", "registry unreachable"},
		"metadata":    {"failed", "cloud metadata"},
	} {
		st, msg := state(s.waitState(tok, "acme", name))
		if st != want[0] || !strings.Contains(msg, want[1]) {
			t.Errorf("%s: state %q message %q, want %q with %q", name, st, msg, want[0], want[1])
		}
	}

	// Fixing the credentials in place makes the secret ready.
	create("wrong", "", "robot:s3cret-pass", nil)
	if st, msg := state(s.waitState(tok, "acme", "wrong")); st != "ready" {
		t.Errorf("after fixing the credentials: %s %s", st, msg)
	}

	// Without --allow-private-registries a loopback registry is never contacted.
	s.stop()
	s2 := startServer(t, dir)
	srv = s2
	create("private", reg, "robot:s3cret-pass", nil)
	st, msg := state(s2.waitState(tok, "acme", "private"))
	if st != "failed" || !strings.Contains(msg, "--allow-private-registries") {
		t.Errorf("loopback registry without the flag: %s %q", st, msg)
	}
}

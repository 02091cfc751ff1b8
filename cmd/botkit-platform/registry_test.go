package main_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testenv"
)

// needTool returns the path of a program the test needs; without it the
// test fails under CI=true and is skipped otherwise.
func needTool(t *testing.T, name, apt string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required (apt-get install -y %s)", name, apt)
	}
	t.Skipf("%s not installed (apt-get install -y %s)", name, apt)
	return ""
}

// startRegistry runs a real docker-registry (Debian package) on 127.0.0.1
// with htpasswd auth for user:pass and returns its base URL.
func startRegistry(t *testing.T, user, pass string) string {
	t.Helper()
	reg := needTool(t, "docker-registry", "docker-registry")
	htpasswd := needTool(t, "htpasswd", "apache2-utils")
	dir := t.TempDir()
	out, err := exec.Command(htpasswd, "-Bbn", user, pass).Output()
	if err != nil {
		t.Fatalf("htpasswd: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "htpasswd"), out, 0o600); err != nil {
		t.Fatal(err)
	}
	port := testenv.FreePort(t)
	cfg := fmt.Sprintf(`version: 0.1
log:
  level: error
storage:
  filesystem:
    rootdirectory: %s
http:
  addr: 127.0.0.1:%d
auth:
  htpasswd:
    realm: botkit-test
    path: %s
`, filepath.Join(dir, "data"), port, filepath.Join(dir, "htpasswd"))
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(reg, "serve", cfgPath)
	logf, _ := os.Create(filepath.Join(dir, "registry.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(15 * time.Second)
	for {
		r, err := http.Get(base + "/v2/")
		if err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusUnauthorized {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("docker-registry did not answer on %s: %v\n%s", base, err, readFile(t, filepath.Join(dir, "registry.log")))
		}
		time.Sleep(100 * time.Millisecond)
	}
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

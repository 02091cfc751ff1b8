// Package registrytest runs a real docker-registry (the Debian package) on
// 127.0.0.1 with htpasswd authentication, for tests of image pull secrets.
package registrytest

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// Available returns nil when the programs Start needs are installed, or an
// error naming the one missing and its Debian package.
func Available() error {
	for _, p := range [...]struct{ prog, pkg string }{{"docker-registry", "docker-registry"}, {"htpasswd", "apache2-utils"}} {
		if _, err := exec.LookPath(p.prog); err != nil {
			return fmt.Errorf("%s is required (apt-get install -y %s)", p.prog, p.pkg)
		}
	}
	return nil
}

// Need skips the test without the programs Start needs (fails it in CI).
func Need(t testing.TB) {
	t.Helper()
	testenv.NeedInstalled(t, "docker-registry and htpasswd")
	if err := Available(); err != nil {
		testenv.Missing(t, "%v", err)
	}
}

// Registry is a running docker-registry.
type Registry struct {
	// URL is its base URL, http://127.0.0.1:PORT.
	URL  string
	cmd  *exec.Cmd
	logf *os.File
}

// Start runs docker-registry on a free port of 127.0.0.1 with its
// configuration, storage, htpasswd file and log in dir, accepting user:pass,
// and waits until it answers. The caller stops it.
func Start(dir, user, pass string) (*Registry, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	hash, err := exec.Command("htpasswd", "-Bbn", user, pass).Output()
	if err != nil {
		return nil, fmt.Errorf("htpasswd: %v", err)
	}
	htpasswd := filepath.Join(dir, "htpasswd")
	if err := os.WriteFile(htpasswd, hash, 0o600); err != nil {
		return nil, err
	}
	port, err := testenv.PickPort()
	if err != nil {
		return nil, err
	}
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
`, filepath.Join(dir, "data"), port, htpasswd)
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "registry.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("docker-registry", "serve", cfgPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	r := &Registry{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, logf: logf}
	deadline := time.Now().Add(testenv.Patience)
	for {
		resp, err := http.Get(r.URL + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return r, nil
			}
		}
		if time.Now().After(deadline) {
			r.Stop()
			log, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("docker-registry did not answer on %s: %v\n%s", r.URL, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// StartFor is Start for test t: a missing docker-registry skips it (fails
// it in CI), a registry that does not start fails it, and the test's
// cleanup stops it.
func StartFor(t testing.TB, dir, user, pass string) *Registry {
	t.Helper()
	Need(t)
	r, err := Start(dir, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}

// Host is the registry's host:port, as an image reference names it.
func (r *Registry) Host() string { return strings.TrimPrefix(r.URL, "http://") }

// Stop kills the registry and waits until it is gone.
func (r *Registry) Stop() {
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.logf.Close()
}

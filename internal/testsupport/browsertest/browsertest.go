// Package browsertest is what the tests of the generated web clients share:
// node, npm and Chromium found (a skip without them, a failure under CI), a
// client written to disk with its .env.local, npm run with a shared cache,
// and the playwright-core driver (driver/*.mjs) installed.
//
// Environment:
//
//	BOTKIT_NPM_CACHE  npm cache to use and keep (CI caches it); default a temp dir
package browsertest

import (
	"context"
	"embed"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// Chromium is the browser the tests drive.
const Chromium = "/usr/bin/chromium"

//go:embed driver/package.json driver/*.mjs
var driverFiles embed.FS

// Tools are node and npm, and the environment npm runs with.
type Tools struct {
	Node, NPM string
	// Env is npm's environment: its cache, no update notice, no telemetry.
	Env []string
}

// Require returns the tools; it skips the test when node, npm or Chromium
// are missing, or fails it in CI.
func Require(t *testing.T) Tools {
	t.Helper()
	var missing []string
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		missing = append(missing, "npm")
	}
	if _, err := os.Stat(Chromium); err != nil {
		missing = append(missing, Chromium+" (apt-get install chromium)")
	}
	if len(missing) > 0 {
		if testenv.InCI() {
			t.Fatalf("CI is set but %s missing", strings.Join(missing, ", "))
		}
		t.Skipf("%s missing", strings.Join(missing, ", "))
	}
	cache := os.Getenv("BOTKIT_NPM_CACHE")
	if cache == "" {
		cache = t.TempDir()
	}
	return Tools{Node: node, NPM: npm, Env: []string{
		"npm_config_cache=" + cache,
		"npm_config_update_notifier=false",
		"NEXT_TELEMETRY_DISABLED=1",
	}}
}

// Install runs npm install in dir.
func (tl Tools) Install(t *testing.T, dir string) {
	t.Helper()
	Run(t, 5*time.Minute, dir, tl.Env, tl.NPM, "install", "--no-audit", "--no-fund", "--prefer-offline")
}

// Driver returns a directory of the test's holding driver/'s scripts with
// playwright-core installed.
func (tl Tools) Driver(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := driverFiles.ReadDir("driver")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := driverFiles.ReadFile("driver/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tl.Install(t, dir)
	return dir
}

// Run runs a command in dir and fails the test with its output on error.
func Run(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", filepath.Base(name), strings.Join(args, " "), dir, err, Tail(out, 6000))
	}
	t.Logf("%s %s: %s", filepath.Base(name), strings.Join(args, " "), time.Since(start).Round(100*time.Millisecond))
	return string(out)
}

// Tail is the last n bytes of b.
func Tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// WriteClient writes a project's client files (paths from the project's
// root, under client/, as scaffold.ClientFiles returns them) into dir, and
// client/.env.local, made from env.example the way a user would: by
// editing its values. It returns dir/client.
func WriteClient(t *testing.T, dir string, files map[string][]byte, env map[string]string) string {
	t.Helper()
	for path, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	client := filepath.Join(dir, "client")
	WriteEnvLocal(t, client, env)
	return client
}

// WriteEnvLocal writes client/.env.local, made from client/env.example the
// way a user would: by editing the values of env's keys (each must have a
// line there).
func WriteEnvLocal(t *testing.T, client string, env map[string]string) {
	t.Helper()
	example, err := os.ReadFile(filepath.Join(client, "env.example"))
	if err != nil {
		t.Fatal(err)
	}
	local := string(example)
	for k, v := range env {
		line := regexp.MustCompile(`(?m)^` + k + `=.*$`)
		if !line.MatchString(local) {
			t.Fatalf("env.example has no %s= line", k)
		}
		local = line.ReplaceAllLiteralString(local, k+"="+v)
	}
	if err := os.WriteFile(filepath.Join(client, ".env.local"), []byte(local), 0o600); err != nil {
		t.Fatal(err)
	}
}

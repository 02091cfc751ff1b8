package main_test

// End-to-end tests: they build the real botkit-platform binary once, run it
// on 127.0.0.1 over a real SQLite file, and talk real HTTP to it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/pgtest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

var binary string

// pg is the PostgreSQL server of the tests on a PostgreSQL store (started on
// first use, one database per test).
var pg = pgtest.NewShared()

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "botkit-platform-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary, err = platformtest.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir) // error ignored: a temporary directory; nothing to assert
		os.Exit(1)
	}
	code := m.Run()
	pg.Stop()
	_ = os.RemoveAll(dir) // error ignored: a temporary directory; nothing to assert
	os.Exit(code)
}

// admin runs an admin command and returns stdout; it fails the test on a
// non-zero exit.
func admin(t testing.TB, args ...string) string {
	t.Helper()
	out, errOut, code := runCmd(args...)
	if code != 0 {
		t.Fatalf("botkit-platform %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func runCmd(args ...string) (stdout, stderr string, code int) {
	cmd := exec.Command(binary, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return o.String(), e.String(), code
}

// newOrg creates an organization and a token for it.
func newOrg(t testing.TB, dataDir, name string, extra ...string) string {
	t.Helper()
	tok, err := platformtest.CreateOrgToken(binary, dataDir, name, extra...)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// server is a running botkit-platform serve process.
type server struct {
	*platformtest.Server
	t       testing.TB
	url     string
	dataDir string
	logPath string
}

// startServer runs `serve` on a free port and waits until it listens; it
// stops when the test ends.
func startServer(t testing.TB, dataDir string, extra ...string) *server {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	ps, err := platformtest.Serve(binary, dataDir, logFile, extra...)
	if err != nil {
		t.Fatalf("%v; log:\n%s", err, readFile(t, logPath))
	}
	t.Cleanup(ps.Stop)
	return &server{Server: ps, t: t, url: ps.URL, dataDir: dataDir, logPath: logPath}
}

// stop shuts the server down gracefully.
func (s *server) stop() { s.Stop() }

// kill9 kills the server with SIGKILL.
func (s *server) kill9() { s.Kill() }

func (s *server) log() string {
	s.t.Helper()
	return readFile(s.t, s.logPath)
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// resp is an HTTP answer.
type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

func (r resp) errCode(t testing.TB) string {
	t.Helper()
	m := r.json(t)
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %s", r.body)
	}
	return e["code"].(string)
}

func (r resp) errMessage(t testing.TB) string {
	t.Helper()
	e, _ := r.json(t)["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

var httpClient = &http.Client{Timeout: 30 * time.Second}

// call sends a request; body may be nil, a string, []byte or a value to
// encode as JSON. headers are "Name: value" strings.
func (s *server) call(token, method, path string, body any, headers ...string) resp {
	s.t.Helper()
	return call(s.t, s.url, token, method, path, body, headers...)
}

func call(t testing.TB, base, token, method, path string, body any, headers ...string) resp {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	r, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer r.Body.Close()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp{status: r.StatusCode, header: r.Header, body: data}
}

func expectStatus(t testing.TB, r resp, want int, what string) {
	t.Helper()
	if r.status != want {
		t.Fatalf("%s: status %d, want %d; body: %s", what, r.status, want, r.body)
	}
}

// waitState polls an object until it leaves pending and returns it.
func (s *server) waitState(token, org, name string) map[string]any {
	s.t.Helper()
	var obj map[string]any
	testenv.Eventually(s.t, name+" to leave pending", func() bool {
		r := s.call(token, "GET", "/v1/organizations/"+org+"/secrets/"+name, nil)
		expectStatus(s.t, r, 200, "GET "+name)
		obj = r.json(s.t)
		st, _ := obj["status"].(map[string]any)
		return st != nil && st["state"] != "pending"
	})
	return obj
}

func keysOf(t testing.TB, obj map[string]any) []string {
	t.Helper()
	spec, _ := obj["spec"].(map[string]any)
	raw, _ := spec["keys"].([]any)
	out := make([]string, 0, len(raw))
	for _, k := range raw {
		out = append(out, k.(string))
	}
	return out
}

func state(obj map[string]any) (string, string) {
	st, _ := obj["status"].(map[string]any)
	s, _ := st["state"].(string)
	m, _ := st["message"].(string)
	return s, m
}

//go:build unix

package scaffold

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/browsertest"
)

// The slow tests of the generated clients: each variant is written to disk,
// installed with `npm install`, built with `npm run build`, served on
// 127.0.0.1 and opened in headless Chromium (browsertest's driver/load.mjs
// with playwright-core). `go test -short` skips them; with CI set, a missing node,
// npm or Chromium fails them.
//
// Environment:
//
//	BOTKIT_NPM_CACHE       npm cache to use and keep (CI caches it); default a temp dir (browsertest)
//	BOTKIT_SCREENSHOT_DIR  where to keep the screenshots; default the test's temp dir

// npmCanaryKey is the BOT_API_KEY of the Next.js client: it must reach the
// bot's endpoint and nothing the browser gets.
const npmCanaryKey = "canary-key-7f3e9b1d"

// fakeRunner stands in for the Pipecat development runner (POST /start,
// POST/PATCH /sessions/<id>/api/offer), which cannot run here: its Python
// packages come from PyPI, unreachable from this machine, and for the
// platform's public API (the same paths under /v1/public/<agent>). It answers
// with the shapes the runner answers with and records every request.
type fakeRunner struct {
	*httptest.Server
	mu       sync.Mutex
	requests []runnerRequest
}

type runnerRequest struct {
	Method, Path, Auth string
	Body               map[string]any
}

func newFakeRunner(t *testing.T) *fakeRunner {
	r := &fakeRunner{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Allow-Headers", "*")
		w.Header().Set("Access-Control-Allow-Methods", "*")
		if req.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		rec := runnerRequest{Method: req.Method, Path: req.URL.Path, Auth: req.Header.Get("Authorization")}
		_ = json.NewDecoder(req.Body).Decode(&rec.Body) // error ignored: a body that is not JSON is recorded empty, and the test compares the bodies
		r.mu.Lock()
		r.requests = append(r.requests, rec)
		r.mu.Unlock()

		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(req.URL.Path, "/start") && rec.Body["transport"] == "daily":
			_, _ = io.WriteString(w, `{"dailyRoom":"https://example.daily.co/room","dailyToken":"room-token","sessionId":"daily-1"}`) // error ignored: the client reports a broken answer
		case strings.HasSuffix(req.URL.Path, "/start") && rec.Body["transport"] == "webrtc" && rec.Body["enableDefaultIceServers"] == true:
			_, _ = io.WriteString(w, `{"sessionId":"abc-123","iceConfig":{"iceServers":[{"urls":["stun:stun.l.google.com:19302"]}]}}`) // error ignored: as above
		case strings.HasSuffix(req.URL.Path, "/start") && rec.Body["transport"] == "webrtc":
			_, _ = io.WriteString(w, `{"sessionId":"abc-123"}`) // error ignored: as above
		case strings.Contains(req.URL.Path, "/sessions/") && strings.HasSuffix(req.URL.Path, "/api/offer"):
			_, _ = io.WriteString(w, `{"sdp":"v=0","type":"answer","pc_id":"pc-1"}`) // error ignored: as above
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"detail":"not found"}`) // error ignored: as above
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *fakeRunner) take() []runnerRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.requests
	r.requests = nil
	return got
}

// writeClient writes the client of cfg into dir/client and its .env.local,
// made from env.example the way a user would: by editing its values.
func writeClient(t *testing.T, dir string, cfg Config, env map[string]string) string {
	t.Helper()
	files, err := ClientFiles(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, f := range files {
		m[f.Path] = f.Data
	}
	return browsertest.WriteClient(t, dir, m, env)
}

// loadResult is what load.mjs prints.
type loadResult struct {
	Status           int
	Title            string
	MicState         string
	TransportOptions []string
	ConsoleErrors    []string
	PageErrors       []string
}

func TestClientBuildsAndLoadsInChromium(t *testing.T) {
	h := newClientHarness(t)
	tools, shots := h.tools, h.shots
	runner := newFakeRunner(t)

	for _, tc := range []struct {
		name string
		cfg  Config
		// start is the body the first transport's start request must carry.
		start map[string]any
	}{
		// The React clients: TestReactClientsCallTheirTargetInChromium.
		{"vanilla", webConfig("vanilla", "", "daily"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.ProjectName = "bot-" + tc.name
			isNext := tc.cfg.ClientServer == "nextjs"
			env := map[string]string{"VITE_BOT_START_URL": runner.URL + "/start"}
			if isNext {
				env = map[string]string{"BOT_START_URL": runner.URL + "/start", "BOT_API_KEY": npmCanaryKey}
			}
			client := writeClient(t, t.TempDir(), tc.cfg, env)
			var tsconfig []byte
			if isNext {
				tsconfig = readFile(t, filepath.Join(client, "tsconfig.json"))
			}

			tools.Install(t, client)
			browsertest.Run(t, 5*time.Minute, client, tools.Env, tools.NPM, "run", "build")

			var url string
			var serverOutput func() string
			if isNext {
				if after := readFile(t, filepath.Join(client, "tsconfig.json")); !bytes.Equal(after, tsconfig) {
					t.Errorf("next build rewrote tsconfig.json:\n%s", after)
				}
				assertNotInTree(t, filepath.Join(client, ".next", "static"), npmCanaryKey)
				url, serverOutput = browsertest.StartNext(t, client, nil)
			} else {
				dist := filepath.Join(client, "dist")
				if _, err := os.Stat(filepath.Join(dist, "index.html")); err != nil {
					t.Fatalf("no dist/index.html after npm run build: %v", err)
				}
				// The start URL from .env.local is built into the page.
				assertInTree(t, dist, runner.URL+"/start")
				srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
				t.Cleanup(srv.Close)
				url = srv.URL + "/"
			}

			shot := filepath.Join(shots, tc.name+".png")
			var res loadResult
			runDriver(t, h, "load.mjs", &res,
				"--url", url, "--screenshot", shot, "--title", tc.cfg.ProjectName, "--chromium", browsertest.Chromium)
			if res.Status != http.StatusOK || res.Title != tc.cfg.ProjectName || len(res.ConsoleErrors)+len(res.PageErrors) > 0 {
				t.Errorf("page: %+v", res)
			}
			wantOptions := len(tc.cfg.Transports)
			if wantOptions == 1 {
				wantOptions = 0 // no selector
			}
			if len(res.TransportOptions) != wantOptions {
				t.Errorf("transport selector options %q for transports %q", res.TransportOptions, tc.cfg.Transports)
			}
			png, err := os.ReadFile(shot)
			if err != nil || len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatalf("screenshot %s: %d bytes, %v", shot, len(png), err)
			}
			t.Logf("screenshot: %s", shot)

			// The page connects only when Connect is clicked.
			if got := runner.take(); len(got) > 0 {
				t.Errorf("loading the page sent requests to the bot: %+v", got)
			}
			if isNext {
				checkNextProxy(t, url, runner, "", "Bearer "+npmCanaryKey, tc.start)
				if strings.Contains(serverOutput(), npmCanaryKey) {
					t.Error("next start printed BOT_API_KEY")
				}
			}
		})
	}
}

// clientHarness is what the browser tests share: node, npm and their
// environment, the driver (browsertest's scripts, installed) and where
// screenshots go.
type clientHarness struct {
	tools         browsertest.Tools
	driver, shots string
}

// newClientHarness skips the test under -short (or without node, npm or
// Chromium, outside CI), then installs the driver.
func newClientHarness(t *testing.T) clientHarness {
	t.Helper()
	if testing.Short() {
		t.Skip("npm install, npm run build and Chromium take minutes; run without -short")
	}
	h := clientHarness{tools: browsertest.Require(t), shots: screenshotDir(t)}
	h.driver = h.tools.Driver(t)
	return h
}

// screenshotDir is where the tests keep their screenshots:
// BOTKIT_SCREENSHOT_DIR, else a temporary directory.
func screenshotDir(t *testing.T) string {
	t.Helper()
	shots := os.Getenv("BOTKIT_SCREENSHOT_DIR")
	if shots == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	return shots
}

// checkNextProxy calls the Next.js client's API routes as its page does and
// checks what reaches the bot: the key is added on the server, the browser
// only picks the transport.
// root is the path of the bot's endpoints on the runner ("" for the local
// runner, /v1/public/<agent> for the platform) and auth the Authorization
// the bot must receive.
func checkNextProxy(t *testing.T, base string, runner *fakeRunner, root, auth string, wantStart map[string]any) {
	t.Helper()
	post := func(method, path, body string) (int, string) {
		req, err := http.NewRequest(method, strings.TrimSuffix(base, "/")+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s %s: reading the answer: %v", method, path, err)
		}
		if strings.Contains(string(b), npmCanaryKey) {
			t.Errorf("%s %s answered with BOT_API_KEY", method, path)
		}
		return resp.StatusCode, string(b)
	}

	// The browser's body may only choose the transport.
	status, body := post("POST", "/api/start", `{"transport":"webrtc","dailyRoomProperties":{"x":1}}`)
	if status != http.StatusOK || !strings.Contains(body, `"sessionId":"abc-123"`) {
		t.Errorf("POST /api/start: %d %s", status, body)
	}
	status, body = post("POST", "/api/start", `{"transport":"daily"}`)
	if status != http.StatusBadRequest || !strings.Contains(body, "transport must be one of: webrtc") {
		t.Errorf("POST /api/start for a transport the bot lacks: %d %s", status, body)
	}
	status, body = post("POST", "/api/start", `not json`)
	if status != http.StatusBadRequest {
		t.Errorf("POST /api/start with a bad body: %d %s", status, body)
	}
	status, body = post("POST", "/api/sessions/abc-123/api/offer", `{"sdp":"offer","type":"offer"}`)
	if status != http.StatusOK || !strings.Contains(body, `"type":"answer"`) {
		t.Errorf("POST offer: %d %s", status, body)
	}
	status, body = post("PATCH", "/api/sessions/abc-123/api/offer", `{"pc_id":"pc-1","candidates":[]}`)
	if status != http.StatusOK {
		t.Errorf("PATCH offer: %d %s", status, body)
	}
	status, body = post("POST", "/api/sessions/a.b/api/offer", `{}`)
	if status != http.StatusBadRequest {
		t.Errorf("POST offer with a bad session id: %d %s", status, body)
	}

	got := runner.take()
	want := []runnerRequest{
		{Method: "POST", Path: root + "/start", Auth: auth, Body: wantStart},
		{Method: "POST", Path: root + "/sessions/abc-123/api/offer", Auth: auth, Body: map[string]any{"sdp": "offer", "type": "offer"}},
		{Method: "PATCH", Path: root + "/sessions/abc-123/api/offer", Auth: auth, Body: map[string]any{"pc_id": "pc-1", "candidates": []any{}}},
	}
	gotJSON, wantJSON := mustJSON(t, got), mustJSON(t, want)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("the bot received\n %s\nwant\n %s", gotJSON, wantJSON)
	}
}

func assertInTree(t *testing.T, root, needle string) {
	t.Helper()
	if !treeContains(t, root, needle) {
		t.Errorf("no file under %s contains %q", root, needle)
	}
}

func assertNotInTree(t *testing.T, root, needle string) {
	t.Helper()
	if treeContains(t, root, needle) {
		t.Errorf("a file under %s contains %q", root, needle)
	}
}

func treeContains(t *testing.T, root, needle string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		found = bytes.Contains(data, []byte(needle))
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return found
}

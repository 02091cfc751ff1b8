//go:build unix

package scaffold

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/browsertest"
)

// connectResult is what connect.mjs prints.
type connectResult struct {
	Status           int
	Title            string
	TransportOptions []string
	Requests         []string
	ThirdParty       []string
	Authorized       []string
	ConsoleErrors    []string
	PageErrors       []string
	Problems         []string
	BeforeConnect    string
	Textboxes        int
	AfterConnect     string
}

// connectInChromium opens url with connect.mjs, picks
// transport when the page has a selector, clicks Connect and returns what the
// page did (checkPage reports what went wrong).
func connectInChromium(t *testing.T, h clientHarness, url, shot, transport string) connectResult {
	t.Helper()
	args := []string{"--url", url, "--screenshot", shot, "--chromium", browsertest.Chromium}
	if transport != "" {
		args = append(args, "--transport", transport)
	}
	var res connectResult
	runDriver(t, h, "connect.mjs", &res, args...)
	return res
}

// runDriver runs script of h's driver (browsertest's driver/) with args and decodes
// the JSON line it prints into res; it fails the test when the script
// fails.
func runDriver(t *testing.T, h clientHarness, script string, res any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.tools.Node, append([]string{filepath.Join(h.driver, script)}, args...)...)
	cmd.Dir = h.driver
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	t.Logf("chromium %s: %s", script, time.Since(start).Round(100*time.Millisecond))
	if err != nil {
		t.Fatalf("%s %q: %v\n%s\n%s", script, args, err, out, stderr.String())
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), res); err != nil {
		t.Fatalf("%s output %q: %v", script, out, err)
	}
}

// checkPage checks what a user of the page would: it loaded with its title
// and let Connect be clicked, logged no error, and reached no host but
// 127.0.0.1.
func checkPage(t *testing.T, res connectResult, title string) {
	t.Helper()
	if len(res.Problems) > 0 {
		t.Errorf("the page could not be used: %q\npage: %.500s", res.Problems, res.AfterConnect)
	}
	if res.Status != http.StatusOK || res.Title != title {
		t.Errorf("page: HTTP %d, title %q; want 200, %q", res.Status, res.Title, title)
	}
	if len(res.ConsoleErrors)+len(res.PageErrors) > 0 {
		t.Errorf("page errors: console %q, uncaught %q", res.ConsoleErrors, res.PageErrors)
	}
	if len(res.ThirdParty) > 0 {
		t.Errorf("the page tried to reach other hosts: %q", res.ThirdParty)
	}
	// The console's parts: the bot's audio, the transcript, metrics, the
	// devices, the event log, and a text input.
	for _, panel := range []string{"bot audio", "conversation", "metrics", "devices", "events"} {
		if !strings.Contains(strings.ToLower(res.BeforeConnect), panel) {
			t.Errorf("the page shows no %q:\n%s", panel, res.BeforeConnect)
		}
	}
	if res.Textboxes == 0 {
		t.Error("the page has no text input")
	}
}

// checkSession checks what the bot's side received from one Connect: the
// start (its body the platform's and the runner's webrtc start) and then
// only SmallWebRTC offers of that session, under root, each with auth as
// its Authorization.
func checkSession(t *testing.T, got []runnerRequest, root, auth string) {
	t.Helper()
	if len(got) < 2 {
		t.Fatalf("the bot received %d requests, want a start and an offer: %+v", len(got), got)
	}
	start := got[0]
	if start.Method != http.MethodPost || start.Path != root+"/start" || start.Auth != auth ||
		!bytes.Equal(mustJSON(t, start.Body), mustJSON(t, map[string]any{"transport": "webrtc"})) {
		t.Errorf("start: %s %s (Authorization %q) %v; want POST %s/start (Authorization %q) {transport: webrtc}",
			start.Method, start.Path, start.Auth, start.Body, root, auth)
	}
	for _, r := range got[1:] {
		if (r.Method != http.MethodPost && r.Method != http.MethodPatch) || r.Path != root+"/sessions/abc-123/api/offer" || r.Auth != auth {
			t.Errorf("after the start: %s %s (Authorization %q); want the session's offer under %s (Authorization %q)",
				r.Method, r.Path, r.Auth, root, auth)
		}
	}
}

// The React clients (Vite and Next.js) built and opened in Chromium with a
// fake microphone, every host but 127.0.0.1 blocked: Connect starts a
// session on the target .env.local names (the local runner, or a deployed
// agent through the platform with a public key) and sends the WebRTC offer
// to it, and nothing else is reached.
func TestReactClientsCallTheirTargetInChromium(t *testing.T) {
	h := newClientHarness(t)
	runner := newFakeRunner(t)
	const agent = "my-bot"
	platformRoot := "/v1/public/" + agent

	t.Run("react-vite", func(t *testing.T) {
		cfg := webConfig("react", "vite", "smallwebrtc", "daily")
		cfg.ProjectName = "bot-react-vite"
		client := writeClient(t, t.TempDir(), cfg, map[string]string{"VITE_BOT_START_URL": runner.URL + "/start"})
		h.tools.Install(t, client)

		for _, target := range []struct {
			name       string
			env        map[string]string
			root, auth string
		}{
			{"local runner", map[string]string{"VITE_BOT_START_URL": runner.URL + "/start"}, "", ""},
			{"platform", map[string]string{"VITE_AGENT_NAME": agent, "VITE_PLATFORM_URL": runner.URL, "VITE_PUBLIC_KEY": npmCanaryKey}, platformRoot, "Bearer " + npmCanaryKey},
		} {
			t.Run(target.name, func(t *testing.T) {
				browsertest.WriteEnvLocal(t, client, target.env)
				browsertest.Run(t, 5*time.Minute, client, h.tools.Env, h.tools.NPM, "run", "build")
				srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(client, "dist"))))
				defer srv.Close()

				res := connectInChromium(t, h, srv.URL+"/", filepath.Join(h.shots, "react-vite-"+strings.ReplaceAll(target.name, " ", "-")+".png"), "smallwebrtc")
				checkPage(t, res, cfg.ProjectName)
				if want := []string{"smallwebrtc", "daily"}; !slices.Equal(res.TransportOptions, want) {
					t.Errorf("transport selector %q, want %q", res.TransportOptions, want)
				}
				checkSession(t, runner.take(), target.root, target.auth)
				// The public key is in the page, by design: its requests carry it.
				if got := len(res.Authorized) > 0; got != (target.auth != "") {
					t.Errorf("the browser's requests with Authorization: %q", res.Authorized)
				}
			})
		}
	})

	t.Run("react-nextjs", func(t *testing.T) {
		cfg := webConfig("react", "nextjs", "smallwebrtc")
		cfg.ProjectName = "bot-react-nextjs"
		platformEnv := map[string]string{"AGENT_NAME": agent, "PLATFORM_URL": runner.URL, "PUBLIC_KEY": npmCanaryKey}
		client := writeClient(t, t.TempDir(), cfg, platformEnv)
		tsconfig := readFile(t, filepath.Join(client, "tsconfig.json"))
		h.tools.Install(t, client)
		browsertest.Run(t, 5*time.Minute, client, h.tools.Env, h.tools.NPM, "run", "build")
		if after := readFile(t, filepath.Join(client, "tsconfig.json")); !bytes.Equal(after, tsconfig) {
			t.Errorf("next build rewrote tsconfig.json:\n%s", after)
		}
		// The key was in .env.local at build time: none of it in what the
		// browser gets.
		assertNotInTree(t, filepath.Join(client, ".next", "static"), npmCanaryKey)

		t.Run("platform", func(t *testing.T) {
			url, serverOutput := browsertest.StartNext(t, client, nil)
			res := connectInChromium(t, h, url, filepath.Join(h.shots, "react-nextjs-platform.png"), "")
			checkPage(t, res, cfg.ProjectName)
			checkSession(t, runner.take(), platformRoot, "Bearer "+npmCanaryKey)
			if len(res.Authorized) > 0 {
				t.Errorf("the browser sent Authorization: %q", res.Authorized)
			}
			if strings.Contains(res.AfterConnect, npmCanaryKey) {
				t.Error("the page shows the public key")
			}
			checkNextProxy(t, url, runner, platformRoot, "Bearer "+npmCanaryKey, map[string]any{"transport": "webrtc"})
			if strings.Contains(serverOutput(), npmCanaryKey) {
				t.Error("next start printed the public key")
			}
		})
		t.Run("local runner", func(t *testing.T) {
			// .env.local is read by next start: no rebuild.
			browsertest.WriteEnvLocal(t, client, map[string]string{"BOT_START_URL": runner.URL + "/start"})
			url, _ := browsertest.StartNext(t, client, nil)
			checkNextProxy(t, url, runner, "", "", map[string]any{"transport": "webrtc"})
		})
	})
}

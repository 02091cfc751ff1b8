//go:build unix

package platform_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/browsertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// callResult is what browsertest's driver/call.mjs prints.
type callResult struct {
	LoadedMs, ConnectMs, ReadyMs float64
	Transcript                   []string
	AudioLevel                   float64
	Requests, Blocked            []string
	Authorized                   []string
	Console                      []string
	PageErrors                   []string
	Error                        *string
}

// A call from a browser to a deployed agent: the generated vanilla client,
// built with the platform's URL, the agent's name and a public key, served
// on 127.0.0.1 and opened in headless Chromium with a fake microphone. The
// page starts a session with the public key and its SmallWebRTC offer
// reaches the stand-in through the platform; the call reaches ready, the
// transcript shows the bot's lines, the bot's audio plays, typed text
// reaches the agent, Disconnect ends the session. The page logs no error,
// asks nothing of any host but its own and the platform, and neither the
// key nor the agent's secret shows in its console or the platform's log.
// The same client built for the development runner then calls an idle
// agent straight (the stand-in serves the runner's paths).
func TestBrowserCallsDeployedAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("npm, Chromium and an engine take minutes; run without -short")
	}
	r := newCallRig(t, 1)
	v, page, tools, driver := r.v, r.page, r.tools, r.driver
	page.serve(t, buildPage(t, tools, r.client))

	const typed = "deliver order 42"
	// While the page holds the call: what the agent received (it is
	// removed once its session ends).
	var offer *standinapi.Session
	res := call(t, tools, driver, page.url(), v.base, func() { offer = agentCall(t, v) },
		"--text", typed, "--expect", standinapi.UserLine, "--expect", standinapi.BotLine)
	t.Logf("page loaded at %.0f ms, ready at %.0f ms (%.0f ms after the load); bot audio peak %.3f", res.LoadedMs, res.ReadyMs, res.ReadyMs-res.LoadedMs, res.AudioLevel)
	r.checkCall(t, res, offer, typed, page.url(), v.base+"/")

	// The page built for the development runner calls the next idle
	// agent straight.
	agentURL := r.idleAgent(t)
	direct := r.servePageFor(t, agentURL)
	res = call(t, tools, driver, direct.url(), agentURL, nil, "--expect", standinapi.BotLine)
	if res.AudioLevel <= 0 || len(res.Blocked) > 0 {
		t.Errorf("the call straight to the agent: bot audio peak %v, other hosts tried %q", res.AudioLevel, res.Blocked)
	}
}

// checkCall checks what call returned, what the agent recorded of the call
// (offer, from agentCall) and the platform after it: the page logged no
// error, played the bot's audio, showed the transcript and the reply to the
// text typed, asked nothing of any host but origins (URL prefixes), and
// neither the key nor the agent's secret shows in its console or the
// platform's log; the agent received the typed text and the microphone's
// audio, and Disconnect ended the session.
func (r callRig) checkCall(t *testing.T, res callResult, offer *standinapi.Session, typed string, origins ...string) {
	t.Helper()
	for _, l := range res.Console {
		if strings.HasPrefix(l, "error: ") {
			t.Errorf("the page logged an error: %s", l)
		}
	}
	if res.AudioLevel <= 0 {
		t.Errorf("the bot's audio has no signal (peak %v)", res.AudioLevel)
	}
	if !containsAll(strings.Join(res.Transcript, "\n"), standinapi.UserLine, standinapi.BotLine, standinapi.TextReplyPrefix+typed) {
		t.Errorf("transcript %q", res.Transcript)
	}
	if len(res.Blocked) > 0 {
		t.Errorf("the page tried other hosts: %q", res.Blocked)
	}
	for _, req := range res.Requests {
		_, url, _ := strings.Cut(req, " ")
		if !slices.ContainsFunc(origins, func(o string) bool { return strings.HasPrefix(url, o) }) {
			t.Errorf("a request to none of %q: %s", origins, req)
		}
	}
	for _, secret := range []string{r.key.Key, r.v.key, sessionsCanary} {
		for _, l := range res.Console {
			if strings.Contains(l, secret) {
				t.Errorf("the page's console shows a secret: %s", strings.ReplaceAll(l, secret, "<secret>"))
			}
		}
		if strings.Contains(r.v.log.String(), secret) {
			t.Error("the platform's log holds a secret")
		}
	}

	// The agent: the typed text arrived on the data channel, the fake
	// microphone's audio too; Disconnect ended the session.
	if offer == nil {
		t.Fatal("the page did not hold the call")
	}
	if !sentText(offer.Messages, typed) || offer.AudioReceived == 0 || !offer.Connected {
		t.Errorf("the agent's record of the call: %d audio packets received, messages %s", offer.AudioReceived, offer.Messages)
	}
	r.v.waitSession("bot", offer.ID, resources.SessionEnded)
}

// servePageFor builds the client for the development runner (its default
// mode) at agentURL, whose /start and offer path the stand-in serves, and
// serves it: the page calls the agent straight, as it calls `uv run
// bot.py`.
func (r callRig) servePageFor(t *testing.T, agentURL string) *pageServer {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.client, ".env.local"), []byte("VITE_BOT_START_URL="+agentURL+"/start\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	page := listenPage(t)
	page.serve(t, buildPage(t, r.tools, r.client))
	return page
}

// idleAgent waits for the pool to hold one idle agent and no session, and
// returns that agent's URL (its address on the agents' network).
func (r callRig) idleAgent(t *testing.T) string {
	t.Helper()
	testenv.Eventually(t, "one idle agent, none in a session", func() bool {
		st, err := r.v.c.AgentStatus(context.Background(), r.v.org, "bot")
		return err == nil && st.Agent.Status.Pool != nil && st.Agent.Status.Pool.Idle == 1 && st.Agent.Status.Pool.InSession == 0
	})
	var agents []runtime.Agent
	testenv.Eventually(t, "the idle agent's address", func() bool {
		agents = r.v.containers("bot")
		return len(agents) == 1 && agents[0].Endpoint != ""
	})
	return "http://" + agents[0].Endpoint
}

// TestBrowserCallBench measures, with BOTKIT_BENCH_WEBCALL_ROUNDS=N
// (bench/webcall.sh), how long the vanilla client takes from its page's
// load to RTVI ready (Connect clicked at once): through the platform (a
// warm agent: the public start, the offer through the session's proxy)
// against the same page built to call an idle agent straight (the stand-in
// serves the development runner's /start and offer path). It prints the
// medians and their ratio; it judges nothing.
func TestBrowserCallBench(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("BOTKIT_BENCH_WEBCALL_ROUNDS")) // error ignored: not a number is 0 rounds, checked below
	if rounds <= 0 {
		t.Skip("a measurement: bench/webcall.sh")
	}
	r := newCallRig(t, 2)
	v, viaPlatform, tools, driver, client := r.v, r.page, r.tools, r.driver, r.client
	agentURL := r.idleAgent(t)

	start := time.Now()
	viaPlatform.serve(t, buildPage(t, tools, client))
	t.Logf("npm run build (vanilla): %s", time.Since(start).Round(10*time.Millisecond))
	direct := r.servePageFor(t, agentURL)

	// The straight calls first: the platform's sessions replace the agent
	// they call.
	var straight, through []time.Duration
	for range rounds {
		res := call(t, tools, driver, direct.url(), agentURL, nil)
		straight = append(straight, time.Duration((res.ReadyMs-res.LoadedMs)*float64(time.Millisecond)))
	}
	for range rounds {
		r.idleAgent(t)
		res := call(t, tools, driver, viaPlatform.url(), v.base, nil)
		through = append(through, time.Duration((res.ReadyMs-res.LoadedMs)*float64(time.Millisecond)))
	}
	med := func(ds []time.Duration) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2]
	}
	t.Logf("page load to RTVI ready (median of %d): through the platform %s, straight to the agent %s, ratio %.2f",
		rounds, med(through).Round(time.Millisecond), med(straight).Round(time.Millisecond), float64(med(through))/float64(med(straight)))
	t.Logf("through the platform: %v; straight: %v", through, straight)
}

// callRig is a platform on a real engine serving agent "bot" (the
// stand-in, one warm agent), a page server whose origin a public key lists,
// the vanilla client written for that platform, agent and key (installed),
// and the browser driver.
type callRig struct {
	tools          browsertest.Tools
	v              *sessionEnv
	page           *pageServer
	key            resources.CreatedPublicKey
	client, driver string
}

func newCallRig(t *testing.T, maxAgents int) callRig {
	t.Helper()
	r := newPageRig(t, maxAgents)
	r.client = writeVanilla(t, map[string]string{"VITE_PLATFORM_URL": r.v.base, "VITE_AGENT_NAME": "bot", "VITE_PUBLIC_KEY": r.key.Key})
	r.tools.Install(t, r.client)
	return r
}

// newPageRig is a callRig without its client: the platform, the agent,
// the driver, and a page server whose origin the public key lists.
func newPageRig(t *testing.T, maxAgents int) callRig {
	t.Helper()
	r := newCallPlatform(t, maxAgents)
	// The page's origin first: the key lists it.
	r.page = listenPage(t)
	var err error
	if r.key, err = r.v.c.CreatePublicKey(context.Background(), r.v.org, resources.PublicKeyRequest{Name: "page", AllowedOrigins: []string{r.page.origin()}}); err != nil {
		t.Fatal(err)
	}
	return r
}

// newCallPlatform is a callRig's platform, agent and browser driver, with
// no page of the test's (the platform's call page needs none).
func newCallPlatform(t *testing.T, maxAgents int) callRig {
	t.Helper()
	r := callRig{tools: browsertest.Require(t)}
	e, rt, img, host := engineWithImage(t, "acme/pcc:1", dockertest.ImageOptions{Standin: true})
	r.v = newSessionEnv(t, e, rt, img, host, platform.Options{})
	r.v.deploy("bot", 1, maxAgents)
	r.driver = r.tools.Driver(t)
	return r
}

// pageServer serves a built page on 127.0.0.1; its address is known
// before the page is built.
type pageServer struct{ ln net.Listener }

func listenPage(t *testing.T) *pageServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() }) // error ignored: cleanup
	return &pageServer{ln: ln}
}

func (p *pageServer) origin() string { return "http://" + p.ln.Addr().String() }
func (p *pageServer) url() string    { return p.origin() + "/" }

// serve serves dir until the test ends.
func (p *pageServer) serve(t *testing.T, dir string) {
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(p.ln) }()   // error ignored: ends with Close
	t.Cleanup(func() { _ = srv.Close() }) // error ignored: cleanup
}

// writeVanilla writes the vanilla client of a web bot with both web
// transports, its .env.local set to env.
func writeVanilla(t *testing.T, env map[string]string) string {
	t.Helper()
	return writeWebClient(t, scaffold.Config{ProjectName: "web-call", BotType: "web", Transports: []string{"smallwebrtc", "daily"}, Mode: "cascade", ClientFramework: "vanilla"}, env)
}

// writeWebClient writes the client of cfg, its .env.local set to env.
func writeWebClient(t *testing.T, cfg scaffold.Config, env map[string]string) string {
	t.Helper()
	files, err := scaffold.ClientFiles(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, f := range files {
		m[f.Path] = f.Data
	}
	return browsertest.WriteClient(t, t.TempDir(), m, env)
}

// buildPage builds the client (installed) and returns a copy of its dist/
// of the test's: the next build replaces dist/.
func buildPage(t *testing.T, tools browsertest.Tools, client string) string {
	t.Helper()
	browsertest.Run(t, 5*time.Minute, client, tools.Env, tools.NPM, "run", "build")
	dir := filepath.Join(t.TempDir(), "dist")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(client, "dist"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// call runs driver/call.mjs on pageURL with allow as the one other origin
// (none: ""); with hold, the page holds the call before it hangs up until
// hold returns.
func call(t *testing.T, tools browsertest.Tools, driver, pageURL, allow string, hold func(), args ...string) callResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if allow != "" {
		args = append([]string{"--allow", allow}, args...)
	}
	args = append([]string{filepath.Join(driver, "call.mjs"), "--url", pageURL, "--chromium", browsertest.Chromium}, args...)
	if hold != nil {
		args = append(args, "--hold")
	}
	cmd := exec.CommandContext(ctx, tools.Node, args...)
	cmd.Dir = driver
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var last []byte
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() {
		last = append(last[:0], lines.Bytes()...)
		if lines.Text() == "HOLD" {
			hold()
			_, _ = io.WriteString(stdin, "\n") // error ignored: the page hangs up (a broken pipe: it has failed, and says so)
		}
	}
	_ = stdin.Close() // error ignored: the driver may have exited
	err = cmd.Wait()
	var res callResult
	if jerr := json.Unmarshal(last, &res); jerr != nil {
		t.Fatalf("call.mjs: %v %v\n%s\n%s", err, jerr, last, stderr.String())
	}
	if err != nil {
		t.Errorf("call.mjs: %v\n%s\nconsole:\n%s", err, stderr.String(), strings.Join(res.Console, "\n"))
	}
	return res
}

// agentCall returns the record of the WebRTC connection of the agent's one
// session.
func agentCall(t *testing.T, v *sessionEnv) *standinapi.Session {
	t.Helper()
	ctx := context.Background()
	all, err := v.c.Sessions(ctx, v.org, "bot")
	sessions := slices.DeleteFunc(slices.Clone(all), func(s resources.Session) bool { return s.State == resources.SessionEnded })
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %+v %v", all, err)
	}
	agent, _ := v.sessionAgent("bot", sessions[0].ID)
	var offer *standinapi.Session
	var recs []standinapi.Session
	for deadline := time.Now().Add(30 * time.Second); ; {
		recs, err = agent.Sessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			if r.Kind == standinapi.KindOffer && r.PCID != "" && r.ID == sessions[0].ID {
				offer = &recs[i]
			}
		}
		if offer != nil && len(offer.Messages) > 0 && offer.AudioReceived > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the agent's records: %+v", recs)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return offer
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// sentText tells whether an RTVI send-text message with content text is
// among msgs.
func sentText(msgs []json.RawMessage, text string) bool {
	for _, m := range msgs {
		var msg struct {
			Label, Type string
			Data        struct{ Content string }
		}
		if json.Unmarshal(m, &msg) == nil && msg.Label == "rtvi-ai" && msg.Type == "send-text" && msg.Data.Content == text {
			return true
		}
	}
	return false
}

// The platform's call page, /call/bot#key=pk_…, opened in headless Chromium
// with a fake microphone: with nothing built or served by the test, the
// page starts a session on the platform with the key of its URL's fragment
// (a key listing no origin: the page is the platform's own), its offer
// reaches the stand-in through the session proxy, the call reaches ready
// and the bot's audio plays; Disconnect ends the session. The page asks
// nothing of any host but the platform, logs no error, and the key is in
// no request, no console line and not in the platform's log.
func TestBrowserCallPage(t *testing.T) {
	if testing.Short() {
		t.Skip("Chromium and an engine take minutes; run without -short")
	}
	r := newCallPlatform(t, 1)
	key, err := r.v.c.CreatePublicKey(context.Background(), r.v.org, resources.PublicKeyRequest{Name: "call-page"})
	if err != nil {
		t.Fatal(err)
	}
	var offer *standinapi.Session
	res := call(t, r.tools, r.driver, r.v.base+"/call/bot#key="+key.Key, "", func() { offer = agentCall(t, r.v) },
		"--expect", standinapi.BotLine)
	t.Logf("page loaded at %.0f ms, ready at %.0f ms", res.LoadedMs, res.ReadyMs)
	for _, l := range res.Console {
		if strings.HasPrefix(l, "error: ") {
			t.Errorf("the page logged an error: %s", strings.ReplaceAll(l, key.Key, "<key>"))
		}
	}
	if res.AudioLevel <= 0 {
		t.Errorf("the bot's audio has no signal (peak %v)", res.AudioLevel)
	}
	if len(res.Blocked) > 0 {
		t.Errorf("the page tried other hosts: %q", res.Blocked)
	}
	for _, req := range res.Requests {
		_, u, _ := strings.Cut(req, " ")
		if !strings.HasPrefix(u, r.v.base+"/") {
			t.Errorf("a request to another origin than the platform's: %s", req)
		}
		if strings.Contains(req, key.Key) {
			t.Errorf("a request's URL holds the key: %s", strings.ReplaceAll(req, key.Key, "<key>"))
		}
	}
	for _, l := range res.Console {
		if strings.Contains(l, key.Key) {
			t.Errorf("the page's console shows the key: %s", strings.ReplaceAll(l, key.Key, "<key>"))
		}
	}
	if strings.Contains(r.v.log.String(), key.Key) {
		t.Error("the platform's log holds the key")
	}
	if !strings.Contains(r.v.log.String(), "/call/bot") {
		t.Errorf("the platform's log shows no request of the page:\n%s", r.v.log.String())
	}
	if offer == nil || !offer.Connected || offer.AudioReceived == 0 {
		t.Fatalf("the agent's record of the call: %+v", offer)
	}
	r.v.waitSession("bot", offer.ID, resources.SessionEnded)
}

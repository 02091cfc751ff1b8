package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pion/webrtc/v4"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// The program's own check; the contract is tested on a real engine, with
// the program in its image, by pkg/platform/agentcall's engine test.

func start(t *testing.T, readyAfter time.Duration) (*server, *httptest.Server, chan int) {
	exits := make(chan int, 1)
	s := newServer(readyAfter, func(code int) { exits <- code })
	ts := httptest.NewServer(s.handler())
	t.Cleanup(ts.Close)
	return s, ts, exits
}

func standinOf(ts *httptest.Server) dockertest.Standin {
	return dockertest.Standin{Endpoint: strings.TrimPrefix(ts.URL, "http://")}
}

// sessions asks the program what it received, with the helper the engine
// tests use.
func sessions(t *testing.T, ts *httptest.Server) []standinapi.Session {
	t.Helper()
	out, err := standinOf(ts).Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func do(t *testing.T, method, url, body string, h http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestReadyz(t *testing.T) {
	s, ts, _ := start(t, time.Hour)
	if code, body := do(t, "GET", ts.URL+"/readyz", "", nil); code != 503 || !strings.Contains(body, "not ready") {
		t.Errorf("readyz before the delay: %d %s", code, body)
	}
	s.readyAfter = 0
	if code, body := do(t, "GET", ts.URL+"/readyz", "", nil); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Errorf("readyz: %d %s", code, body)
	}
	if code, _ := do(t, "GET", ts.URL+"/livez", "", nil); code != 200 {
		t.Errorf("livez: %d", code)
	}
}

func TestBotHeldUntilEnded(t *testing.T) {
	_, ts, _ := start(t, 0)
	h := http.Header{"X-Daily-Session-Id": {"s-1"}, "X-Daily-Transport-Type": {"webrtc"}, "X-Pcc-Max-Session-Seconds": {"600"}}
	type answer struct {
		code int
		body string
	}
	done := make(chan answer, 1)
	sent := time.Now()
	go func() {
		code, body := do(t, "POST", ts.URL+"/bot", `{"hello":"world"}`, h)
		done <- answer{code, body}
	}()
	testenv.Eventually(t, "the session recorded", func() bool { return len(sessions(t, ts)) == 1 })
	got := sessions(t, ts)[0]
	if got.Kind != "bot" || got.ID != "s-1" || got.State != standinapi.StateActive || got.Headers["X-Daily-Transport-Type"] != "webrtc" || string(got.Body) != `{"hello":"world"}` {
		t.Errorf("recorded %+v", got)
	}
	if got.Received.Before(sent.Round(0)) || got.Received.After(time.Now()) {
		t.Errorf("received at %s: not between the request's sending (%s) and now", got.Received, sent)
	}
	select {
	case a := <-done:
		t.Fatalf("/bot answered while the session is open: %+v", a)
	default:
	}
	if n, err := standinOf(ts).End(context.Background(), "s-1"); n != 1 || err != nil {
		t.Errorf("end: %d %v", n, err)
	}
	a := testenv.Within(t, "/bot's answer", done)
	if a.code != 200 || strings.TrimSpace(a.body) != "{}" {
		t.Errorf("/bot answered %d %s", a.code, a.body)
	}
	if got := sessions(t, ts)[0]; got.State != standinapi.StateEnded || got.Ended != standinapi.EndedTold {
		t.Errorf("after the end: %+v", got)
	}
	if code, _ := do(t, "POST", ts.URL+"/bot", `[1]`, nil); code != http.StatusUnprocessableEntity {
		t.Errorf("a body that is not an object: %d", code)
	}
	if code, _ := do(t, "POST", ts.URL+"/bot", `{"`+standinapi.EndAfterMsKey+`": 1}`, nil); code != 200 {
		t.Errorf("a session ending by its body: %d", code)
	}
}

func TestWebsocketOfferCrash(t *testing.T) {
	_, ts, exits := start(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	body := base64.StdEncoding.EncodeToString([]byte(`{"call":"x"}`))
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?body="+body,
		&websocket.DialOptions{HTTPHeader: http.Header{"X-Daily-Session-Id": {"w-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, websocket.MessageText, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := c.Read(ctx); err != nil || !bytes.Equal(msg, []byte("ping")) {
		t.Fatalf("echo: %q %v", msg, err)
	}
	if got := sessions(t, ts)[0]; got.Kind != "ws" || got.ID != "w-1" || string(got.Body) != `{"call":"x"}` {
		t.Errorf("recorded %+v", got)
	}
	if n, err := standinOf(ts).End(ctx, ""); n != 1 || err != nil {
		t.Errorf("end: %d %v", n, err)
	}
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("after the end: %v", err)
	}

	code, b := do(t, "POST", ts.URL+"/api/offer", `{"sdp":"v=0","type":"offer","pc_id":"pc-7"}`, nil)
	var ans map[string]string
	if err := json.Unmarshal([]byte(b), &ans); code != 200 || err != nil || ans["type"] != "answer" || ans["pc_id"] != "pc-7" || ans["sdp"] == "" {
		t.Errorf("offer: %d %s", code, b)
	}
	if code, b := do(t, "PATCH", ts.URL+"/api/offer", `{"pc_id":"pc-7","candidates":[]}`, nil); code != 200 || !strings.Contains(b, "success") {
		t.Errorf("patch: %d %s", code, b)
	}
	if err := standinOf(ts).Crash(ctx, 9); err != nil {
		t.Error(err)
	}
	if code := testenv.Within(t, "the exit", exits); code != 9 {
		t.Errorf("exit code %d", code)
	}
}

// X-PCC-Max-Session-Seconds ends a session (its body's standinOverrun, which
// keeps it open past them, is seen on the engine: pkg/platform's sessions
// test).
func TestMaxSeconds(t *testing.T) {
	_, ts, _ := start(t, 0)
	h := http.Header{"X-Daily-Session-Id": {"m-1"}, "X-Pcc-Max-Session-Seconds": {"1"}}
	if code, _ := do(t, "POST", ts.URL+"/bot", `{}`, h); code != 200 {
		t.Errorf("a session past its max seconds: %d", code)
	}
	if got := sessions(t, ts)[0]; got.Ended != standinapi.EndedMaxSeconds {
		t.Errorf("ended %+v, want %s", got, standinapi.EndedMaxSeconds)
	}
}

// dialSession starts /bot session id and connects a SmallWebRTC caller for
// it (closed at the test's end); /bot's status arrives on the channel.
func dialSession(ctx context.Context, t *testing.T, ts *httptest.Server, id string) (*dockertest.Call, chan int) {
	t.Helper()
	h := http.Header{"X-Daily-Session-Id": {id}, "X-Daily-Transport-Type": {"webrtc"}}
	bot := make(chan int, 1)
	go func() {
		code, _ := do(t, "POST", ts.URL+"/bot", `{}`, h)
		bot <- code
	}()
	call, err := dockertest.Dial(ctx, nil, ts.URL+"/api/offer", h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = call.Close() }) // error ignored: cleanup, the call may have ended
	return call, bot
}

// A SmallWebRTC caller connects: it hears the tone, the RTVI exchange
// happens, what it sends is recorded, and its leaving ends the /bot
// session of the same id.
func TestWebRTC(t *testing.T) {
	s, ts, _ := start(t, 0)
	frames, err := splitFrames(dockertest.ToneFrames(t))
	if err != nil || len(frames) != 50 {
		t.Fatalf("tone: %d frames, %v", len(frames), err)
	}
	s.tone = frames
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	call, bot := dialSession(ctx, t, ts, "rtc-1")
	if err := call.Send(ctx, "client-ready", "r-1", map[string]any{"version": "2.1.0"}); err != nil {
		t.Fatal(err)
	}
	ready, err := call.Wait(ctx, "bot-ready", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ready["id"] != "r-1" {
		t.Errorf("bot-ready %v, want the id of client-ready", ready)
	}
	if _, err := call.Wait(ctx, "metrics", nil); err != nil {
		t.Error(err)
	}
	if err := call.Send(ctx, "send-text", "t-1", map[string]any{"content": "typed words"}); err != nil {
		t.Fatal(err)
	}
	if _, err := call.Wait(ctx, "bot-output", func(m map[string]any) bool {
		d, _ := m["data"].(map[string]any)
		return d["text"] == standinapi.TextReplyPrefix+"typed words"
	}); err != nil {
		t.Error(err)
	}
	for call.AudioPackets() < 10 {
		select {
		case <-ctx.Done():
			t.Fatalf("%d audio packets arrived", call.AudioPackets())
		case <-time.After(50 * time.Millisecond):
		}
	}
	var rec standinapi.Session
	for _, r := range sessions(t, ts) {
		if r.Kind == standinapi.KindOffer {
			rec = r
		}
	}
	if rec.PCID != call.PCID || !rec.Connected || rec.State != standinapi.StateActive || rec.ID != "rtc-1" || rec.AudioSent == 0 {
		t.Errorf("offer record %+v", rec)
	}
	if len(rec.Messages) != 2 || !strings.Contains(string(rec.Messages[1]), `"typed words"`) {
		t.Errorf("recorded messages %s", rec.Messages)
	}

	if err := call.Close(); err != nil {
		t.Error(err)
	}
	if code := testenv.Within(t, "the end of /bot", bot); code != 200 {
		t.Errorf("/bot answered %d", code)
	}
	for _, r := range sessions(t, ts) {
		if r.Ended != standinapi.EndedPeerLeft {
			t.Errorf("after the caller left: %+v", r)
		}
	}
}

// The development runner's paths: a page calls the agent straight.
func TestRunnerPaths(t *testing.T) {
	_, ts, _ := start(t, 0)
	code, b := do(t, "POST", ts.URL+standinapi.RunnerStartPath, `{"transport":"webrtc"}`, http.Header{"Origin": {"http://127.0.0.1:1"}})
	var started struct{ SessionID string }
	if err := json.Unmarshal([]byte(b), &started); code != 200 || err != nil || started.SessionID == "" {
		t.Fatalf("start: %d %s", code, b)
	}
	req, err := http.NewRequest(http.MethodOptions, ts.URL+"/sessions/"+started.SessionID+"/api/offer", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	call, err := dockertest.Dial(ctx, nil, ts.URL+"/sessions/"+started.SessionID+"/api/offer", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer call.Close()
	if got := sessions(t, ts); len(got) != 1 || got[0].ID != started.SessionID || got[0].PCID != call.PCID {
		t.Errorf("recorded %+v", got)
	}
}

// An offer with restart_pc replaces the connection; the session goes on.
func TestWebRTCRestart(t *testing.T) {
	_, ts, _ := start(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	call, bot := dialSession(ctx, t, ts, "rtc-2")
	h := http.Header{"X-Daily-Session-Id": {"rtc-2"}}

	pc, err := webrtc.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeAudio); err != nil {
		t.Fatal(err)
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(map[string]any{"sdp": offer.SDP, "type": "offer", "pc_id": call.PCID, "restart_pc": true})
	if err != nil {
		t.Fatal(err)
	}
	code, b := do(t, "POST", ts.URL+"/api/offer", string(body), h)
	var ans map[string]string
	if err := json.Unmarshal([]byte(b), &ans); code != 200 || err != nil || ans["pc_id"] == "" || ans["pc_id"] == call.PCID {
		t.Fatalf("restart: %d %s", code, b)
	}
	states := map[string]string{}
	for _, r := range sessions(t, ts) {
		states[r.Kind+" "+r.PCID] = r.State + " " + r.Ended
	}
	want := map[string]string{"bot ": "active ", "offer " + call.PCID: "ended restarted", "offer " + ans["pc_id"]: "active "}
	if !maps.Equal(states, want) {
		t.Errorf("after the restart: %v, want %v", states, want)
	}
	if _, err := standinOf(ts).End(ctx, "rtc-2"); err != nil {
		t.Fatal(err)
	}
	<-bot
}

package platform_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// twilioConnected is Twilio Media Streams' first message.
const twilioConnected = `{"event":"connected","protocol":"Call","version":"1.0.0"}`

// twilioStartMsg is a Twilio start message with these custom parameters.
func twilioStartMsg(t *testing.T, streamSid, callSid string, custom map[string]string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"event": "start", "sequenceNumber": "1", "streamSid": streamSid,
		"start": map[string]any{"accountSid": "AC0123", "streamSid": streamSid, "callSid": callSid, "tracks": []string{"inbound"},
			"customParameters": custom, "mediaFormat": map[string]any{"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// twilioMedia is a media message: 20 ms of μ-law (160 bytes), base64.
func twilioMedia(t *testing.T, streamSid string, seq int) []byte {
	t.Helper()
	audio := make([]byte, 160)
	_, _ = rand.Read(audio) // error ignored: crypto/rand.Read never fails (Go 1.24+)
	b, err := json.Marshal(map[string]any{"event": "media", "sequenceNumber": fmt.Sprint(seq + 2), "streamSid": streamSid,
		"media": map[string]any{"track": "inbound", "chunk": fmt.Sprint(seq + 1), "timestamp": fmt.Sprint(seq * 20), "payload": base64.StdEncoding.EncodeToString(audio)}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// closeOf returns the close status and reason a read ended with.
func closeOf(err error) (websocket.StatusCode, string) {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code, ce.Reason
	}
	return -1, ""
}

// Phone calls through the platform on a real engine: a Go client speaking
// Twilio Media Streams' framing reaches the stand-in's /ws through
// /ws/twilio, its first messages included (the public key taken out), and
// its μ-law media frames come back as they went; the session is recorded
// and ends with the socket; a second caller gets its own agent; at
// capacity the caller's socket is closed with 1013 and the reason; bad
// first frames close it with 1008 and start nothing; the generic relay
// answers refusals in HTTP; a caller that reads nothing does not make the
// platform buffer what the agent sends; the key is in no log.
func TestPhoneCallsOnTheEngine(t *testing.T) {
	e, rt, img, host := engineWithImage(t, "acme/pcc:1", dockertest.ImageOptions{Standin: true})
	v := newSessionEnv(t, e, rt, img, host, platform.Options{})
	ctx := context.Background()
	v.deploy("phone", 1, 2)
	wsBase := "ws" + strings.TrimPrefix(v.base, "http")
	wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()

	dial := func(path string, h http.Header) *websocket.Conn {
		t.Helper()
		c, _, err := websocket.Dial(wctx, wsBase+path, &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			t.Fatalf("dial %s: %v", path, err)
		}
		c.SetReadLimit(1 << 20)
		return c
	}
	send := func(c *websocket.Conn, msg []byte) {
		t.Helper()
		if err := c.Write(wctx, websocket.MessageText, msg); err != nil {
			t.Fatal(err)
		}
	}
	recv := func(c *websocket.Conn) []byte {
		t.Helper()
		_, got, err := c.Read(wctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return got
	}
	liveSessions := func() []resources.Session {
		t.Helper()
		list, err := v.c.Sessions(ctx, v.org, "phone")
		if err != nil {
			t.Fatal(err)
		}
		return slices.DeleteFunc(list, func(s resources.Session) bool { return s.State != resources.SessionActive })
	}
	count := func() int {
		t.Helper()
		list, err := v.c.Sessions(ctx, v.org, "phone")
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}

	// A Twilio call, the agent and the key as custom parameters: every
	// message reaches the agent and comes back (the stand-in echoes), the
	// key taken out of the start message.
	a := dial("/ws/twilio", nil)
	send(a, []byte(twilioConnected))
	send(a, twilioStartMsg(t, "MZa", "CAa", map[string]string{"_pipecatCloudServiceHost": "phone." + v.org, "_botkitPublicKey": v.key, "customer": "c-42"}))
	if got := recv(a); string(got) != twilioConnected {
		t.Errorf("the connected message the agent got: %s", got)
	}
	start := recv(a)
	if bytes.Contains(start, []byte(v.key)) || bytes.Contains(start, []byte("_botkitPublicKey")) || !bytes.Contains(start, []byte(`"customer":"c-42"`)) ||
		!bytes.Contains(start, []byte(`"callSid":"CAa"`)) {
		t.Errorf("the start message the agent got: %s", start)
	}
	for i := range 50 {
		m := twilioMedia(t, "MZa", i)
		send(a, m)
		if got := recv(a); !bytes.Equal(got, m) {
			t.Fatalf("media frame %d came back as %s", i, got)
		}
	}
	live := liveSessions()
	if len(live) != 1 || live[0].Transport != resources.TransportWebsocket {
		t.Fatalf("sessions during the call: %+v", live)
	}
	aID := live[0].ID
	agentA, cA := v.sessionAgent("phone", aID)
	recs, err := agentA.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(recs, func(r standinapi.Session) bool { return r.Kind == standinapi.KindWS && r.ID == aID }); i < 0 || recs[i].Echoed != 52 {
		t.Errorf("the agent's /ws: %+v", recs)
	}
	if i := slices.IndexFunc(recs, func(r standinapi.Session) bool { return r.Kind == standinapi.KindBot && r.ID == aID }); i < 0 || recs[i].Headers["X-Daily-Transport-Type"] != "websocket" {
		t.Errorf("the agent's /bot: %+v", recs)
	}

	// A second caller (the agent and the key in the URL) gets its own agent.
	b := dial("/ws/twilio?serviceHost=phone."+v.org+"&key="+v.key, nil)
	send(b, []byte(twilioConnected))
	send(b, twilioStartMsg(t, "MZb", "CAb", nil))
	recv(b)
	recv(b)
	m := twilioMedia(t, "MZb", 0)
	send(b, m)
	if got := recv(b); !bytes.Equal(got, m) {
		t.Errorf("the second call's media came back as %s", got)
	}
	live = liveSessions()
	if len(live) != 2 {
		t.Fatalf("sessions with two calls: %+v", live)
	}
	bID := live[slices.IndexFunc(live, func(s resources.Session) bool { return s.ID != aID })].ID
	if _, cB := v.sessionAgent("phone", bID); cB.ID == cA.ID {
		t.Errorf("both calls on agent %s", cA.Name)
	}

	// At capacity (maxAgents 2): closed with 1013 and why; nothing
	// recorded.
	c := dial("/ws/twilio?serviceHost=phone."+v.org+"&key="+v.key, nil)
	send(c, []byte(twilioConnected))
	send(c, twilioStartMsg(t, "MZc", "CAc", nil))
	_, _, err = c.Read(wctx)
	if code, reason := closeOf(err); code != 1013 || !strings.Contains(reason, "capacity") {
		t.Errorf("a third call with maxAgents 2: %v", err)
	}
	if n := count(); n != 2 {
		t.Errorf("sessions after a call refused at capacity: %d", n)
	}

	// Bad first frames: closed with 1008 and why, no session started.
	for name, msgs := range map[string][]string{
		"media first":        {string(twilioMedia(t, "MZd", 0))},
		"not JSON":           {"hello"},
		"start without sids": {twilioConnected, `{"event":"start","start":{"customParameters":{}}}`},
		"no serviceHost":     {twilioConnected, string(twilioStartMsg(t, "MZd", "CAd", map[string]string{"_botkitPublicKey": v.key}))},
		"a bad key":          {twilioConnected, string(twilioStartMsg(t, "MZd", "CAd", map[string]string{"_pipecatCloudServiceHost": "phone." + v.org, "_botkitPublicKey": "pk_nope"}))},
		"no key":             {twilioConnected, string(twilioStartMsg(t, "MZd", "CAd", map[string]string{"_pipecatCloudServiceHost": "phone." + v.org}))},
	} {
		d := dial("/ws/twilio", nil)
		for _, m := range msgs {
			if err := d.Write(wctx, websocket.MessageText, []byte(m)); err != nil {
				break // closed already
			}
		}
		_, _, err := d.Read(wctx)
		if code, reason := closeOf(err); code != websocket.StatusPolicyViolation || reason == "" {
			t.Errorf("%s: %v", name, err)
		} else {
			t.Logf("%s: %d %s", name, code, reason)
		}
		_ = d.CloseNow() // error ignored: cleanup, the socket may be closed
	}
	if n := count(); n != 2 {
		t.Errorf("sessions after bad first frames: %d", n)
	}

	// The caller hangs up: the session ends with the socket, its agent goes.
	a.Close(websocket.StatusNormalClosure, "")
	s := v.waitSession("phone", aID, resources.SessionEnded)
	if !strings.Contains(s.EndReason, "the caller closed the websocket") {
		t.Errorf("the ended call: %+v", s)
	}
	testenv.Eventually(t, "the agent of the ended call removed", func() bool {
		return !slices.ContainsFunc(v.containers("phone"), func(c runtime.Agent) bool { return c.ID == cA.ID })
	})

	// The generic relay: the agent in the path, the key in Authorization;
	// binary frames as they are. Refusals are HTTP answers.
	auth := http.Header{"Authorization": {"Bearer " + v.key}}
	g := dial("/ws/generic/phone."+v.org, auth)
	if err := g.Write(wctx, websocket.MessageBinary, []byte{0xff, 0x00, 0x7f}); err != nil {
		t.Fatal(err)
	}
	if typ, got, err := g.Read(wctx); err != nil || typ != websocket.MessageBinary || !bytes.Equal(got, []byte{0xff, 0x00, 0x7f}) {
		t.Errorf("generic echo: %v %v %v", typ, got, err)
	}
	refused := func(path string, h http.Header) int {
		t.Helper()
		_, resp, err := websocket.Dial(wctx, wsBase+path, &websocket.DialOptions{HTTPHeader: h, HTTPClient: v.http})
		if err == nil || resp == nil {
			t.Fatalf("%s: not refused (%v)", path, err)
		}
		return resp.StatusCode
	}
	if code := refused("/ws/generic?serviceHost=phone."+v.org, nil); code != http.StatusUnauthorized {
		t.Errorf("generic without a key: %d", code)
	}
	if code := refused("/ws/generic?serviceHost=phone."+v.org, auth); code != http.StatusTooManyRequests {
		t.Errorf("generic at capacity: %d", code)
	}
	if code := refused("/ws/generic?serviceHost=phone.other", auth); code != http.StatusNotFound {
		t.Errorf("generic, another organization: %d", code)
	}
	if code := refused("/ws/telnyx?serviceHost=phone."+v.org, auth); code != http.StatusNotFound {
		t.Errorf("an unknown provider: %d", code)
	}
	g.Close(websocket.StatusNormalClosure, "")
	b.Close(websocket.StatusNormalClosure, "")
	testenv.Eventually(t, "no call in progress", func() bool { return len(liveSessions()) == 0 })

	// Backpressure: a caller that sends and never reads. What the agent
	// echoes waits in the sockets, not in the platform: the caller's
	// writes stop being taken long before what it sent could be held.
	slow := dial("/ws/generic?serviceHost=phone."+v.org, auth)
	frame := make([]byte, 64<<10)
	const limit = 512 << 20
	var sent int
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for sent < limit && slow.Write(wctx, websocket.MessageBinary, frame) == nil {
			sent += len(frame)
		}
	}()
	// The platform cuts the peer that stalled once it took nothing for a
	// while; the caller's writes then fail.
	testenv.Eventually(t, "the stalled call ended", func() bool {
		list, err := v.c.Sessions(ctx, v.org, "phone")
		return err == nil && len(list) > 0 && list[0].State == resources.SessionEnded && strings.Contains(list[0].EndReason, "took no message")
	})
	testenv.Within(t, "the caller's writes to end", wrote)
	t.Logf("a caller that reads nothing could send %d KiB", sent>>10)
	if sent >= 128<<20 {
		t.Errorf("the platform took %d MiB from a caller that reads nothing", sent>>20)
	}
	_ = slow.CloseNow() // error ignored: the platform may have closed it

	if strings.Contains(v.log.String(), v.key) || strings.Contains(v.log.String(), sessionsCanary) {
		t.Errorf("the server log holds a secret")
	}
}

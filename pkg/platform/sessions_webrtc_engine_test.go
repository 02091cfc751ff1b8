package platform_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// A WebRTC call through the platform, as a web client makes one: a session
// started with the public key, the SmallWebRTC offer sent through the
// session's proxy to the stand-in, media straight between the caller (the
// host) and the agent on the agents' network; the bot's audio and RTVI
// messages arrive, what the caller types reaches the agent, and hanging up
// ends the session.
func TestWebRTCCallThroughThePlatform(t *testing.T) {
	e, rt, img, host := engineWithImage(t, "acme/pcc:1", dockertest.ImageOptions{Standin: true})
	v := newSessionEnv(t, e, rt, img, host, platform.Options{})
	v.deploy("bot", 1, 1)

	started, code := v.start("bot", resources.SessionStartRequest{Transport: "webrtc"})
	if code != http.StatusOK {
		t.Fatalf("start: %d", code)
	}
	agent, _ := v.sessionAgent("bot", started.SessionID)

	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	call, err := dockertest.Dial(ctx, v.http, v.base+"/v1/public/bot/sessions/"+started.SessionID+"/api/offer",
		http.Header{"Authorization": {"Bearer " + v.key}})
	if err != nil {
		t.Fatal(err)
	}
	defer call.Close()
	if err := call.Send(ctx, "client-ready", "ready-1", map[string]any{"version": "2.1.0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := call.Wait(ctx, "bot-ready", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := call.Wait(ctx, "user-transcription", nil); err != nil {
		t.Error(err)
	}
	if err := call.Send(ctx, "send-text", "text-1", map[string]any{"content": "order 42 please"}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the bot's audio", func() bool { return call.AudioPackets() >= 25 })
	var rec standinapi.Session
	testenv.Eventually(t, "the typed text at the agent", func() bool {
		recs, err := agent.Sessions(ctx)
		if err != nil {
			return false
		}
		for _, r := range recs {
			if r.Kind == standinapi.KindOffer && r.PCID == call.PCID {
				rec = r
				for _, m := range r.Messages {
					var msg struct{ Type string }
					if json.Unmarshal(m, &msg) == nil && msg.Type == "send-text" && strings.Contains(string(m), "order 42 please") {
						return true
					}
				}
			}
		}
		return false
	})
	// The offer reached the session's agent through the proxy, named by
	// the session's id; the public key did not.
	if rec.ID != started.SessionID || !rec.Connected || rec.Headers["Authorization"] != "" {
		t.Errorf("the agent's record of the call: %+v", rec)
	}

	start := time.Now()
	if err := call.Close(); err != nil {
		t.Error(err)
	}
	v.waitSession("bot", started.SessionID, resources.SessionEnded)
	t.Logf("the session ended %s after the caller hung up", time.Since(start).Round(10*time.Millisecond))
}

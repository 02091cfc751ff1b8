package platform_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// dailyCanary is the operator's Daily API key in these tests.
const dailyCanary = "daily-key-canary-5c21e9"

// dailyStandin stands for Daily's REST API (daily.co cannot be reached
// here): POST /rooms, POST /meeting-tokens and DELETE /rooms/{name} on
// 127.0.0.1, each request's shape and Authorization header checked as
// Daily's API reference describes them, and recorded.
type dailyStandin struct {
	t   *testing.T
	srv *httptest.Server

	mu           sync.Mutex
	rooms        map[string]map[string]any // name → properties
	tokens       map[string]map[string]any // token → properties
	deleted      []string
	refuseDelete bool
}

func newDailyStandin(t *testing.T) *dailyStandin {
	d := &dailyStandin{t: t, rooms: map[string]map[string]any{}, tokens: map[string]map[string]any{}}
	mux := http.NewServeMux()
	answer := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v) // error ignored: the platform may be gone
	}
	authorized := func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("Authorization") != "Bearer "+dailyCanary {
			t.Errorf("%s %s: Authorization is not the operator's key", r.Method, r.URL.Path)
			answer(w, http.StatusUnauthorized, map[string]string{"error": "authorization-header-error"})
			return false
		}
		return true
	}
	mux.HandleFunc("POST /rooms", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(w, r) {
			return
		}
		var body struct {
			Name       string         `json:"name"`
			Privacy    string         `json:"privacy"`
			Properties map[string]any `json:"properties"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || !strings.HasPrefix(body.Name, "ses_") || body.Privacy != "private" || body.Properties == nil {
			t.Errorf("POST /rooms: %+v %v", body, err)
			answer(w, http.StatusBadRequest, map[string]string{"error": "invalid-request-error"})
			return
		}
		if _, ok := body.Properties["exp"].(float64); !ok {
			t.Errorf("POST /rooms: no exp: %v", body.Properties)
		}
		if body.Properties["lang"] == "xx" {
			answer(w, http.StatusBadRequest, map[string]string{"error": "invalid-request-error", "info": "lang: xx is not a language"})
			return
		}
		d.mu.Lock()
		d.rooms[body.Name] = body.Properties
		d.mu.Unlock()
		answer(w, http.StatusOK, map[string]any{"id": "5e3cf703", "name": body.Name, "api_created": true, "privacy": "private",
			"url": "https://botkit-test.daily.co/" + body.Name, "created_at": time.Now().UTC().Format(time.RFC3339), "config": body.Properties})
	})
	mux.HandleFunc("POST /meeting-tokens", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(w, r) {
			return
		}
		var body struct {
			Properties map[string]any `json:"properties"`
		}
		err := json.NewDecoder(r.Body).Decode(&body)
		room, _ := body.Properties["room_name"].(string)
		owner, isBool := body.Properties["is_owner"].(bool)
		d.mu.Lock()
		_, known := d.rooms[room]
		d.mu.Unlock()
		if _, ok := body.Properties["exp"].(float64); err != nil || !known || !isBool || !ok {
			t.Errorf("POST /meeting-tokens: %v %v", body.Properties, err)
			answer(w, http.StatusBadRequest, map[string]string{"error": "invalid-request-error"})
			return
		}
		tok := "tok-user-" + room
		if owner {
			tok = "tok-owner-" + room
		}
		d.mu.Lock()
		d.tokens[tok] = body.Properties
		d.mu.Unlock()
		answer(w, http.StatusOK, map[string]string{"token": tok})
	})
	mux.HandleFunc("DELETE /rooms/{name}", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(w, r) {
			return
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.refuseDelete {
			answer(w, http.StatusInternalServerError, map[string]string{"error": "server-error", "info": "try again later"})
			return
		}
		d.deleted = append(d.deleted, r.PathValue("name"))
		answer(w, http.StatusOK, map[string]any{"deleted": true, "name": r.PathValue("name")})
	})
	d.srv = httptest.NewServer(mux)
	t.Cleanup(d.srv.Close)
	return d
}

func (d *dailyStandin) wasDeleted(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.deleted, name)
}

// Daily rooms without an engine: without the operator's key a room is a
// 422 naming the setting; a property a caller may not set is a 400 before
// anything is asked of Daily.
func TestDailyRoomsRefused(t *testing.T) {
	d := newDailyStandin(t)
	for _, withKey := range []bool{false, true} {
		opts := platform.Options{DataDir: t.TempDir(), DisableProvisioner: true}
		if withKey {
			opts.DailyAPIKey, opts.DailyAPIURL = dailyCanary, d.srv.URL
		}
		base, srv := platformtest.Start(t, opts)
		platformtest.CreateOrg(t, srv, "acme", "")
		tok := platformtest.CreateToken(t, srv, "acme", "ci")
		start := func(body string) (int, string) {
			t.Helper()
			req, err := http.NewRequest(http.MethodPost, base+"/v1/organizations/acme/agents/bot/sessions", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e resources.ErrorResponse
			_ = json.NewDecoder(resp.Body).Decode(&e) // error ignored: the status says enough when it is not an error
			return resp.StatusCode, e.Error.Message
		}
		if code, msg := start(`{"createDailyRoom": true}`); !withKey && (code != 422 || !strings.Contains(msg, "--daily-api-key-file")) {
			t.Errorf("a room without the key: %d %s", code, msg)
		}
		if code, msg := start(`{"createDailyRoom": true, "dailyRoomProperties": {"enable_recording": "cloud"}}`); code != 400 || !strings.Contains(msg, "enable_recording") {
			t.Errorf("with key %v, a property a caller may not set: %d %s", withKey, code, msg)
		}
		if code, _ := start(`{"transport": "daily"}`); code != 400 {
			t.Errorf("with key %v, transport daily without a room: %d", withKey, code)
		}
		if code, _ := start(`{"transport": "websocket", "createDailyRoom": true}`); code != 400 {
			t.Errorf("with key %v, a room for a websocket session: %d", withKey, code)
		}
	}
	if len(d.rooms) != 0 {
		t.Errorf("rooms made for refused starts: %v", d.rooms)
	}
}

// Daily rooms on a real engine, against a stand-in of Daily's REST API:
// a start with createDailyRoom makes a private room named after the
// session (the caller's allowed properties merged, its exp the session's
// longest duration), the bot's owner token reaches the agent in
// X-Daily-Room-Token with the room's URL, the caller gets the room and its
// own token; the room is deleted when the session ends, and a room Daily
// would not delete is logged; a room Daily refuses is a 503 and no
// session; the key is in no answer, log or agent.
func TestDailyRoomsOnTheEngine(t *testing.T) {
	d := newDailyStandin(t)
	e, rt, img, host := engineWithImage(t, "acme/pcc:1", dockertest.ImageOptions{Standin: true})
	v := newSessionEnv(t, e, rt, img, host, platform.Options{DailyAPIKey: dailyCanary, DailyAPIURL: d.srv.URL})
	ctx := context.Background()
	v.deploy("video", 1, 2)

	before := time.Now()
	started, code := v.start("video", resources.SessionStartRequest{CreateDailyRoom: true,
		DailyRoomProperties: json.RawMessage(`{"enable_chat": true, "start_video_off": true}`)})
	after := time.Now()
	if code != http.StatusOK {
		t.Fatalf("start: %d", code)
	}
	id := started.SessionID
	if started.DailyRoom != "https://botkit-test.daily.co/"+id || started.DailyToken != "tok-user-"+id {
		t.Errorf("the answer: %+v", started)
	}
	d.mu.Lock()
	props, caller := d.rooms[id], d.tokens["tok-user-"+id]
	d.mu.Unlock()
	exp, _ := props["exp"].(float64)
	lo, hi := before.Add(7200*time.Second).Unix(), after.Add(7200*time.Second+2*time.Minute).Unix()
	if props["enable_chat"] != true || props["start_video_off"] != true || props["eject_at_room_exp"] != true || int64(exp) < lo || int64(exp) > hi {
		t.Errorf("the room's properties: %v (exp within %d..%d)", props, lo, hi)
	}
	if caller["is_owner"] != false || caller["room_name"] != id || caller["exp"] != props["exp"] {
		t.Errorf("the caller's token: %v", caller)
	}
	agent, _ := v.sessionAgent("video", id)
	recs, err := agent.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bot := recs[slices.IndexFunc(recs, func(r standinapi.Session) bool { return r.ID == id })]
	if bot.Headers["X-Daily-Room-Url"] != started.DailyRoom || bot.Headers["X-Daily-Room-Token"] != "tok-owner-"+id || bot.Headers["X-Daily-Transport-Type"] != "daily" {
		t.Errorf("what /bot received: %v", bot.Headers)
	}
	if strings.Contains(string(mustJSON(t, recs)), dailyCanary) {
		t.Errorf("the agent received the Daily key")
	}
	if s := v.session("video", id); s.Transport != resources.TransportDaily {
		t.Errorf("the session: %+v", s)
	}

	// Ended: the room is deleted.
	if _, err := v.c.StopSession(ctx, v.org, "video", id); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the ended session's room deleted", func() bool { return d.wasDeleted(id) })

	// Daily will not delete: the session ends all the same, the room is
	// logged (it expires).
	d.mu.Lock()
	d.refuseDelete = true
	d.mu.Unlock()
	second, code := v.start("video", resources.SessionStartRequest{CreateDailyRoom: true})
	if code != http.StatusOK {
		t.Fatalf("second start: %d", code)
	}
	agent2, _ := v.sessionAgent("video", second.SessionID)
	if _, err := agent2.End(ctx, second.SessionID); err != nil {
		t.Fatal(err)
	}
	v.waitSession("video", second.SessionID, resources.SessionEnded)
	testenv.Eventually(t, "the room Daily kept logged", func() bool {
		return strings.Contains(v.log.String(), "room="+second.SessionID) && strings.Contains(v.log.String(), "was not deleted")
	})

	// Daily refuses the room: 503, no session left running.
	resp, b := v.public(http.MethodPost, "/v1/public/video/start", resources.SessionStartRequest{CreateDailyRoom: true,
		DailyRoomProperties: json.RawMessage(`{"lang": "xx"}`)}, nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "xx is not a language") || strings.Contains(string(b), dailyCanary) {
		t.Errorf("a room Daily refuses: %d %s", resp.StatusCode, b)
	}
	list, err := v.c.Sessions(ctx, v.org, "video")
	if err != nil || len(list) != 2 {
		t.Errorf("sessions: %d %v", len(list), err)
	}

	if strings.Contains(v.log.String(), dailyCanary) {
		t.Errorf("the server log holds the Daily key")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

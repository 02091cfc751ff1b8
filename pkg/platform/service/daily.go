package service

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/agents"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Daily rooms (docs/sessions.md, "Daily rooms"): a start with
// createDailyRoom makes the session a private room and two meeting tokens
// with the operator's Daily API key — the bot's (an owner's), sent to the
// agent in X-Daily-Room-Token, and the caller's, in the answer. The room
// expires when the session's longest duration is over, and is deleted when
// the session ends.

// Rooms makes the Daily rooms of sessions (pkg/platform/daily, over
// HTTP: this package has none). Its errors never hold the API key.
type Rooms interface {
	// CreateRoom makes a private room named name with properties and
	// returns its URL.
	CreateRoom(ctx context.Context, name string, properties map[string]json.RawMessage) (string, error)
	// CreateToken makes a meeting token for room, good until exp, of an
	// owner or of a participant.
	CreateToken(ctx context.Context, room string, exp time.Time, owner bool) (string, error)
	// DeleteRoom deletes room name.
	DeleteRoom(ctx context.Context, name string) error
}

// DailyRoomKeys are the room properties a caller may give in
// dailyRoomProperties: how the room looks and starts. The platform sets
// privacy (private: only token holders join), exp and eject_at_room_exp
// (the session's longest duration); what costs the operator beyond the
// call itself (recording, transcription, dial-in and dial-out, SIP) or
// opens the room to others (knocking) is not a caller's to ask.
var DailyRoomKeys = []string{
	"enable_chat", "enable_emoji_reactions", "enable_hand_raising", "enable_noise_cancellation_ui",
	"enable_people_ui", "enable_pip_ui", "enable_prejoin_ui", "enable_screenshare",
	"lang", "max_participants", "start_audio_off", "start_video_off",
}

// errNoDaily is a Daily room asked of a platform without a Daily API key.
var errNoDaily = resources.Errorf(resources.CodeUnprocessable,
	"this platform makes no Daily rooms: its operator gives botkit-platform serve a Daily API key (--daily-api-key-file)")

// dailyRequest checks the Daily part of a start: createDailyRoom with
// transport daily (or none), properties a caller may set. It returns the
// caller's room properties.
func (s *Service) dailyRequest(req resources.SessionStartRequest) (map[string]json.RawMessage, error) {
	if !req.CreateDailyRoom {
		if len(req.DailyRoomProperties) > 0 {
			return nil, errInvalid("dailyRoomProperties: only with createDailyRoom")
		}
		return nil, errInvalid("transport daily: the session needs a room; send createDailyRoom: true")
	}
	if req.Transport != "" && req.Transport != resources.TransportDaily {
		return nil, errInvalid("createDailyRoom: only with transport daily (or none), not %q", req.Transport)
	}
	props := map[string]json.RawMessage{}
	if raw := strings.TrimSpace(string(req.DailyRoomProperties)); raw != "" && raw != "null" {
		if err := json.Unmarshal(req.DailyRoomProperties, &props); err != nil {
			return nil, errInvalid("dailyRoomProperties: want a JSON object")
		}
	}
	for k := range props {
		if !slices.Contains(DailyRoomKeys, k) {
			return nil, errInvalid("dailyRoomProperties: %q is not a property a caller may set (allowed: %s)", k, strings.Join(DailyRoomKeys, ", "))
		}
	}
	if s.rooms == nil {
		return nil, errNoDaily
	}
	return props, nil
}

// dailyRoom is a session's room: its URL and tokens.
type dailyRoom struct {
	url, botToken, callerToken string
}

// makeRoom makes session id's room (named after it) on agent a, expiring
// when the session's longest duration is over.
func (s *Service) makeRoom(ctx context.Context, a store.Agent, id string, props map[string]json.RawMessage) (dailyRoom, error) {
	maxSeconds := agents.DefaultMaxSessionSeconds
	if spec, err := agents.SpecOf(a); err == nil && spec.MaxSessionSeconds() > 0 {
		maxSeconds = spec.MaxSessionSeconds()
	}
	// The claim's wait, then the session's longest duration.
	exp := time.Now().Add(agents.DefaultClaimTimeout + time.Duration(maxSeconds)*time.Second).Truncate(time.Second)
	props["exp"] = json.RawMessage(strconv.FormatInt(exp.Unix(), 10))
	props["eject_at_room_exp"] = json.RawMessage("true")
	fail := func(what string, err error) (dailyRoom, error) {
		return dailyRoom{}, resources.Errorf(resources.CodeUnavailable, "the session's Daily %s could not be made: %v", what, err)
	}
	var room dailyRoom
	var err error
	if room.url, err = s.rooms.CreateRoom(ctx, id, props); err != nil {
		return fail("room", err)
	}
	if room.botToken, err = s.rooms.CreateToken(ctx, id, exp, true); err == nil {
		room.callerToken, err = s.rooms.CreateToken(ctx, id, exp, false)
	}
	if err != nil {
		s.dropRoom(id)
		return fail("meeting token", err)
	}
	return room, nil
}

// dropRoom deletes room name; when Daily refuses, the room's exp ends it
// (the Rooms logs why).
func (s *Service) dropRoom(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = s.rooms.DeleteRoom(ctx, name) // error ignored: logged by the Rooms; the room expires anyway
}

package resources

import (
	"encoding/json"
	"time"
)

// The states of a session.
const (
	SessionStarting = "starting"
	SessionActive   = "active"
	SessionEnded    = "ended"
	SessionFailed   = "failed"
)

// The transports of a session (Pipecat Cloud's names).
const (
	TransportWebRTC    = "webrtc"
	TransportWebsocket = "websocket"
	TransportDaily     = "daily"
)

// SessionStartRequest is the body of POST /v1/public/{agent}/start (and of
// the private start): Pipecat Cloud's shape.
type SessionStartRequest struct {
	// Transport is webrtc (the default), websocket or daily.
	Transport string `json:"transport,omitempty"`
	// Body is handed to the agent as the body of its POST /bot.
	Body json.RawMessage `json:"body,omitempty"`
	// CreateDailyRoom asks for a Daily room (and token) for the session.
	CreateDailyRoom     bool            `json:"createDailyRoom,omitempty"`
	DailyRoomProperties json.RawMessage `json:"dailyRoomProperties,omitempty"`
	// EnableDefaultIceServers is what Pipecat's web clients send with a
	// SmallWebRTC start: accepted; a webrtc session's answer carries the
	// platform's ICE servers (its operator's, none by default) either way.
	EnableDefaultIceServers bool `json:"enableDefaultIceServers,omitempty"`
}

// SessionStarted is the answer of a start: the session's id and, per
// transport, how to reach it.
type SessionStarted struct {
	SessionID string `json:"sessionId"`
	// WSURL reaches the agent's /ws (transport websocket), with a
	// one-time token.
	WSURL      string `json:"wsUrl,omitempty"`
	DailyRoom  string `json:"dailyRoom,omitempty"`
	DailyToken string `json:"dailyToken,omitempty"`
	// ICEConfig is the platform's ICE servers, for a webrtc session when
	// its operator gave some.
	ICEConfig *ICEConfig `json:"iceConfig,omitempty"`
}

// Session is a session as the private API shows it.
type Session struct {
	ID         string     `json:"id"`
	Agent      string     `json:"agent"`
	Deployment int64      `json:"deployment"`
	Container  string     `json:"container"`
	Transport  string     `json:"transport"`
	State      string     `json:"state"`
	CreatedAt  time.Time  `json:"createdAt"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	EndedAt    *time.Time `json:"endedAt,omitempty"`
	EndReason  string     `json:"endReason,omitempty"`
	MaxSeconds int64      `json:"maxSeconds,omitempty"`
}

// SessionList is GET .../agents/{name}/sessions.
type SessionList struct {
	Items []Session `json:"items"`
}

// AgentPool is how an agent's agents are used, in its status: ready ones
// in a session or idle, and the most that may run.
type AgentPool struct {
	InSession int `json:"inSession"`
	Idle      int `json:"idle"`
	Max       int `json:"max,omitempty"`
}

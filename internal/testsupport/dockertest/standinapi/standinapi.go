// Package standinapi is what the stand-in of Pipecat Cloud's base image
// (dockertest/pccagent) and the tests that call it share: the record of a
// request it received, its test-only paths and the environment variables
// it reads beyond the contract's.
package standinapi

import (
	"encoding/json"
	"time"
)

// The stand-in's test-only endpoints, none of them the contract's.
const (
	// SessionsPath (GET) answers []Session: what /bot, /ws and /api/offer
	// received, in order.
	SessionsPath = "/_standin/sessions"
	// EndPath (POST, ?session=ID) ends that open session, or every open
	// one; it answers {"ended": N}.
	EndPath = "/_standin/end"
	// CrashPath (POST, ?code=N) makes the process exit with N (3 when
	// unset) at once, open sessions included.
	CrashPath = "/_standin/crash"
	// CrashCode is the exit code of CrashPath without ?code=.
	CrashCode = 3
	// RunnerStartPath (POST) is the Pipecat development runner's start:
	// it answers {"sessionId": ID}, and POST|PATCH
	// /sessions/ID/api/offer is then /api/offer for that session, both
	// with CORS for any origin: a web page calls the agent straight.
	RunnerStartPath = "/start"
	// ICEConfigPath (GET) reads $ICE_CONFIG_URL then and answers
	// ICEConfigRead.
	ICEConfigPath = "/_standin/ice-config"
)

// ICEConfigRead is what the stand-in got from its ICE_CONFIG_URL: whether
// the variable is set, the answer's status and body, or why there was
// none.
type ICEConfigRead struct {
	Set    bool   `json:"set"`
	Status int    `json:"status,omitempty"`
	Body   string `json:"body,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ReadyAfterEnv names the variable (a Go duration) that keeps /readyz at
// 503 for that long after the start.
const ReadyAfterEnv = "BOTKIT_TEST_READY_AFTER"

// PrintEnv names the variable whose value is the name of another one: the
// stand-in prints that variable's value at its start (the masking of its
// log lines is checked with it).
const PrintEnv = "BOTKIT_TEST_PRINT"

// TonePath is where the stand-in's image holds the audio it sends on a
// WebRTC connection: Opus frames of 20 ms, each its length (2 bytes, big
// endian) then its bytes, played in a loop (dockertest.ToneFrames). Without
// the file it sends no audio.
const TonePath = "/standin-tone"

// The RTVI exchange of the stand-in's WebRTC connections (data channel
// messages labelled "rtvi-ai"): it answers client-ready with bot-ready and
// then sends UserLine as a final user-transcription, BotLine as bot-output
// and bot-transcription, and a metrics message whose ttfb names
// TTFBProcessor; it answers send-text with bot-output TextReplyPrefix +
// the text.
const (
	UserLine        = "Hello from the caller."
	BotLine         = "Hello, this is the stand-in bot."
	TTFBProcessor   = "StandinLLMService#0"
	TextReplyPrefix = "You wrote: "
)

// EndAfterMsKey, a number in a /bot body, ends the session that many
// milliseconds after it started.
const EndAfterMsKey = "standinEndAfterMs"

// OverrunKey, true in a /bot body, makes the session outlast
// X-PCC-Max-Session-Seconds (a bot that does not keep to its limit: the
// platform's own enforcement is what ends it).
const OverrunKey = "standinOverrun"

// The kinds of Session.
const (
	KindBot   = "bot"   // POST /bot
	KindWS    = "ws"    // GET /ws
	KindOffer = "offer" // POST /api/offer
	KindICE   = "ice"   // PATCH /api/offer
)

// The states of a Session, and why it ended.
const (
	StateActive = "active"
	StateEnded  = "ended"

	EndedBody       = "body"        // EndAfterMsKey
	EndedTold       = "told"        // EndPath
	EndedMaxSeconds = "max-seconds" // X-PCC-Max-Session-Seconds passed
	EndedClosed     = "closed"      // the websocket was closed
	EndedAnswered   = "answered"    // a patch, or an offer with no media section (a placeholder answer), answered
	EndedPeerLeft   = "peer-left"   // the WebRTC peer closed its data channel or connection
	EndedRestarted  = "restarted"   // the WebRTC peer offered again with restart_pc: a new connection replaced this one
)

// Session is one request of the contract the stand-in received.
type Session struct {
	Kind string `json:"kind"`
	// ID is its X-Daily-Session-Id.
	ID string `json:"id"`
	// Headers are the contract's (X-Daily-*, X-Pcc-Max-Session-Seconds),
	// in Go's canonical form, as received.
	Headers map[string]string `json:"headers"`
	// Body is the JSON body (for /ws, the query's body decoded).
	Body  json.RawMessage `json:"body,omitempty"`
	State string          `json:"state"`
	Ended string          `json:"ended,omitempty"`
	// Echoed counts the websocket messages echoed.
	Echoed int `json:"echoed,omitempty"`
	// For an offer that opened a WebRTC connection: its pc_id, whether
	// it connected, every data channel message the peer sent (in order, as
	// received), the RTP packets of audio it received from the peer and
	// the tone packets it sent. Such a record is active until the peer
	// leaves (EndedPeerLeft), which also ends the /bot session of the same
	// id.
	PCID          string            `json:"pcId,omitempty"`
	Connected     bool              `json:"connected,omitempty"`
	Messages      []json.RawMessage `json:"messages,omitempty"`
	AudioReceived int               `json:"audioReceived,omitempty"`
	AudioSent     int               `json:"audioSent,omitempty"`
	// Received is when the stand-in had the request whole (for /bot and
	// /api/offer, its body read; for /ws, the socket accepted), by the
	// host's clock: a container reads the clock of the kernel it runs on.
	Received time.Time `json:"received"`
}

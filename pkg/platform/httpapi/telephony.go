package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Phone calls (docs/sessions.md, "Phone calls"): a telephony provider
// opens a websocket to /ws/{provider}; the platform starts a websocket
// session on the agent the socket names (serviceHost, AGENT.ORGANIZATION,
// Pipecat Cloud's form), connects the agent's /ws and relays every message
// both ways, the first ones included, until either side closes; the
// session ends with the socket.
//
// twilio: the first messages must be Twilio Media Streams' (connected,
// then start with its streamSid and callSid); anything else closes the
// socket with the reason, and no session is started. The agent's name and
// the public key may be custom parameters of the start message
// (_pipecatCloudServiceHost, _botkitPublicKey; the key is taken out of
// the message the agent receives). generic: no framing is read; the agent
// and the key are in the request, and a refusal is an HTTP answer.

// The telephony providers the platform reads the framing of, and the one
// it relays blind.
const (
	ProviderTwilio  = "twilio"
	ProviderGeneric = "generic"
)

// Custom parameters of a Twilio start message the platform reads.
const (
	twilioServiceHostParam = "_pipecatCloudServiceHost"
	twilioKeyParam         = "_botkitPublicKey"
)

const (
	// firstFramesTimeout bounds how long a provider takes to send its
	// first messages (Twilio's connected and start come at once).
	firstFramesTimeout = 10 * time.Second
	// relayWriteTimeout is how long a peer may take to take one message:
	// a peer that reads nothing for that long ends the call. Each way
	// holds one message at a time, so a slow peer slows its sender
	// (the socket's flow control) instead of growing the platform's
	// memory.
	relayWriteTimeout = 10 * time.Second
	// maxRelayMessage bounds one relayed message.
	maxRelayMessage = MaxSessionBody
)

// Close codes the platform sends a provider (RFC 6455).
const (
	closeInvalidFrames = websocket.StatusPolicyViolation // 1008: not the provider's framing, or no credential
	closeTryAgainLater = websocket.StatusCode(1013)      // at capacity, or no agent ready
	closeServerError   = websocket.StatusInternalError   // 1011
)

func (a *api) handleTelephony(w http.ResponseWriter, r *http.Request) {
	switch p := r.PathValue("provider"); p {
	case ProviderTwilio:
		a.twilioCall(w, r)
	case ProviderGeneric:
		a.genericCall(w, r, r.URL.Query().Get("serviceHost"))
	default:
		writeError(w, resources.Errorf(resources.CodeNotFound, "no telephony provider %q here: %s or %s", p, ProviderTwilio, ProviderGeneric))
	}
}

func (a *api) handleGenericHost(w http.ResponseWriter, r *http.Request) {
	a.genericCall(w, r, r.PathValue("serviceHost"))
}

// callKey is the public key of a call: the Authorization header (a
// server that can set one), else the query's key.
func callKey(r *http.Request) string {
	if raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(raw)
	}
	return r.URL.Query().Get("key")
}

// genericCall starts the session before the upgrade (a refusal is an HTTP
// answer: 401, 404, 429, …), then relays blind.
func (a *api) genericCall(w http.ResponseWriter, r *http.Request, serviceHost string) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		writeError(w, resources.Errorf(resources.CodeInvalid, "this route is a websocket: send an upgrade request"))
		return
	}
	key := callKey(r)
	if key == "" {
		writeError(w, service.ErrPublicKeyUnauthenticated)
		return
	}
	pp, err := a.svc.AuthenticatePublicKey(r.Context(), key)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	call, err := a.svc.StartCall(r.Context(), pp, serviceHost)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		a.svc.EndCall(context.WithoutCancel(r.Context()), call, "the caller's websocket did not open")
		return // Accept has answered
	}
	a.relayCall(r.Context(), conn, call, nil)
}

// twilioCall reads Twilio's first messages, starts the session they name
// and relays.
func (a *api) twilioCall(w http.ResponseWriter, r *http.Request) {
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered
	}
	conn.SetReadLimit(maxRelayMessage)
	first, start, err := readTwilioStart(r.Context(), conn)
	if err != nil {
		_ = conn.Close(closeInvalidFrames, closeReason(err.Error())) // error ignored: the provider may be gone
		return
	}
	serviceHost := r.URL.Query().Get("serviceHost")
	if serviceHost == "" {
		serviceHost = start.param(twilioServiceHostParam)
	}
	key := callKey(r)
	if key == "" {
		key = start.param(twilioKeyParam)
	}
	if serviceHost == "" {
		_ = conn.Close(closeInvalidFrames, "no serviceHost: give AGENT.ORGANIZATION in the URL or as _pipecatCloudServiceHost") // error ignored: as above
		return
	}
	if key == "" {
		_ = conn.Close(closeInvalidFrames, "no public key: give it as key in the URL or as the _botkitPublicKey parameter") // error ignored: as above
		return
	}
	pp, err := a.svc.AuthenticatePublicKey(r.Context(), key)
	if err != nil {
		a.closeRefused(conn, err)
		return
	}
	call, err := a.svc.StartCall(r.Context(), pp, serviceHost)
	if err != nil {
		a.closeRefused(conn, err)
		return
	}
	a.relayCall(r.Context(), conn, call, [][]byte{first, start.forward()})
}

// closeRefused closes a provider's socket whose call was refused, with
// the refusal's message as the reason: 1013 (try again later) at
// capacity or with no agent ready, 1008 else.
func (a *api) closeRefused(conn *websocket.Conn, err error) {
	re, _ := service.AsError(err)
	code := closeInvalidFrames
	switch re.Code {
	case resources.CodeAtCapacity, resources.CodeUnavailable:
		code = closeTryAgainLater
	case resources.CodeInternal:
		code = closeServerError
		a.log.Error("a call failed", "error", err.Error())
	}
	_ = conn.Close(code, closeReason(re.Message)) // error ignored: the provider may be gone
}

// closeReason fits a close frame's reason (at most 123 bytes).
func closeReason(s string) string {
	if len(s) <= 123 {
		return s
	}
	s = s[:120]
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 { // not in the middle of a character
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s + "..."
}

// twilioStart is a Twilio start message, as much as the platform reads,
// and the message whole (what the agent gets).
type twilioStart struct {
	raw   map[string]json.RawMessage
	start map[string]json.RawMessage
	// custom are its customParameters (string values).
	custom map[string]string
}

func (s twilioStart) param(name string) string { return s.custom[name] }

// forward is the start message the agent receives: as it came, but for
// the public key among its custom parameters, taken out.
func (s twilioStart) forward() []byte {
	if _, ok := s.custom[twilioKeyParam]; ok {
		var params map[string]json.RawMessage
		_ = json.Unmarshal(s.start["customParameters"], &params) // read once already
		delete(params, twilioKeyParam)
		s.start["customParameters"], _ = json.Marshal(params) // error ignored: raw messages marshal
		s.raw["start"], _ = json.Marshal(s.start)             // likewise
	}
	b, _ := json.Marshal(s.raw) // likewise
	return b
}

// twilioEvent is what the platform checks of a Twilio message.
type twilioEvent struct {
	Event string `json:"event"`
	Start *struct {
		StreamSid        string            `json:"streamSid"`
		CallSid          string            `json:"callSid"`
		CustomParameters map[string]string `json:"customParameters"`
	} `json:"start"`
}

// errFraming is a provider's first messages that are not its framing.
type errFraming struct{ msg string }

func (e *errFraming) Error() string { return e.msg }

// readTwilioStart reads Twilio's connected and start messages (within
// firstFramesTimeout) and returns the first as it came and the start.
func readTwilioStart(ctx context.Context, conn *websocket.Conn) ([]byte, twilioStart, error) {
	ctx, cancel := context.WithTimeout(ctx, firstFramesTimeout)
	defer cancel()
	read := func(what string) ([]byte, twilioEvent, error) {
		typ, msg, err := conn.Read(ctx)
		if err != nil {
			return nil, twilioEvent{}, &errFraming{"twilio: no " + what + " message"}
		}
		var ev twilioEvent
		if typ != websocket.MessageText || json.Unmarshal(msg, &ev) != nil {
			return nil, ev, &errFraming{"twilio: the " + what + " message is not JSON text (not Twilio Media Streams)"}
		}
		if ev.Event != what {
			return nil, ev, &errFraming{"twilio: the first messages must be connected, then start (not Twilio Media Streams)"}
		}
		return msg, ev, nil
	}
	first, _, err := read("connected")
	if err != nil {
		return nil, twilioStart{}, err
	}
	msg, ev, err := read("start")
	if err != nil {
		return nil, twilioStart{}, err
	}
	if ev.Start == nil || ev.Start.StreamSid == "" || ev.Start.CallSid == "" {
		return nil, twilioStart{}, &errFraming{"twilio: the start message has no start.streamSid or start.callSid"}
	}
	st := twilioStart{custom: ev.Start.CustomParameters}
	_ = json.Unmarshal(msg, &st.raw)               // an object: read above
	_ = json.Unmarshal(st.raw["start"], &st.start) // likewise
	return first, st, nil
}

// relayCall connects call's agent's /ws, sends it the messages already
// read, then relays both ways until either side closes; the session ends
// with it.
func (a *api) relayCall(ctx context.Context, caller *websocket.Conn, call *service.Call, first [][]byte) {
	caller.SetReadLimit(maxRelayMessage)
	reason := "the call ended: " + a.relay(ctx, caller, call, first)
	a.svc.EndCall(context.WithoutCancel(ctx), call, reason)
}

// relay returns why the call ended.
func (a *api) relay(ctx context.Context, caller *websocket.Conn, call *service.Call, first [][]byte) string {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	agent, resp, err := websocket.Dial(dctx, "ws://"+call.Endpoint+"/ws", &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: agentTransport},
		HTTPHeader: http.Header{"X-Daily-Session-Id": {call.SessionID}},
	})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		_ = caller.Close(closeTryAgainLater, "the agent's websocket did not open") // error ignored: the caller may be gone
		return "the agent's websocket did not open"
	}
	agent.SetReadLimit(maxRelayMessage)
	for _, m := range first {
		wctx, cancel := context.WithTimeout(ctx, relayWriteTimeout)
		err := agent.Write(wctx, websocket.MessageText, m)
		cancel()
		if err != nil {
			_ = caller.Close(closeTryAgainLater, "the agent did not take the call") // error ignored: as above
			_ = agent.CloseNow()                                                    // likewise
			return "the agent did not take the call's first messages"
		}
	}
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	ended := make(chan relayEnd, 2)
	go func() { ended <- pump(rctx, caller, agent, "the caller", "the agent") }()
	go func() { ended <- pump(rctx, agent, caller, "the agent", "the caller") }()
	end := <-ended
	// Tell the other side why (a peer that stalled is cut), then let the
	// other way go.
	if end.slow {
		_ = end.dst.CloseNow()                                             // error ignored: it stalled
		_ = end.src.Close(websocket.StatusGoingAway, closeReason(end.why)) // error ignored: it may be gone
	} else {
		_ = end.dst.Close(websocket.StatusNormalClosure, closeReason(end.why)) // error ignored: it may be gone
	}
	stop()
	<-ended
	_ = caller.CloseNow() // error ignored: closed already, usually
	_ = agent.CloseNow()  // likewise
	return end.why
}

// relayEnd is how one way of a relay ended.
type relayEnd struct {
	src, dst *websocket.Conn
	why      string
	slow     bool // dst took no message for relayWriteTimeout
}

// pump relays src's messages to dst, one at a time, until either fails;
// from and to name them.
func pump(ctx context.Context, src, dst *websocket.Conn, from, to string) relayEnd {
	end := relayEnd{src: src, dst: dst}
	for {
		typ, msg, err := src.Read(ctx)
		if err != nil {
			end.why = from + "'s websocket broke"
			if websocket.CloseStatus(err) != -1 {
				end.why = from + " closed the websocket"
			}
			return end
		}
		wctx, cancel := context.WithTimeout(ctx, relayWriteTimeout)
		err = dst.Write(wctx, typ, msg)
		end.slow = errors.Is(wctx.Err(), context.DeadlineExceeded)
		cancel()
		if err != nil {
			end.why = to + "'s websocket broke"
			if end.slow {
				end.why = to + " took no message for " + relayWriteTimeout.String()
			}
			return end
		}
	}
}

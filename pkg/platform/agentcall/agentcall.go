// Package agentcall is the platform's client of the agent side of Pipecat
// Cloud's session contract, the one an image built FROM dailyco/pipecat-base
// serves on its PORT: readiness (GET /readyz) and the start of a session
// (POST /bot), whose request stays open for the whole session; its answer
// is the session's end.
//
// An endpoint is host:port on the agents' network (runtime.Agent.Endpoint).
// No proxy from the environment is used, no redirect is followed, every
// answer is read to a bound.
package agentcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"time"
)

// Defaults of a Client.
const (
	// DefaultReadyTimeout bounds one GET /readyz.
	DefaultReadyTimeout = 2 * time.Second
	// DefaultAcceptWindow is how long StartBot waits, once the request is
	// sent, for an agent that refuses the session at once (an error, a
	// closed connection). The base image answers nothing while a session
	// runs, so an accepted session is one that got no answer within this
	// window. It is short: the caller's start waits for it, an agent on
	// the platform's network refuses within a millisecond or two, and
	// what the base image refuses at once (a body that is not an object)
	// the platform never sends; a refusal that comes later ends the call,
	// and the session fails with it.
	DefaultAcceptWindow = 10 * time.Millisecond
	// MaxAnswer bounds what is read of an agent's answer.
	MaxAnswer = 64 << 10
)

// The headers of POST /bot.
const (
	HeaderSessionID         = "X-Daily-Session-Id"
	HeaderTransport         = "X-Daily-Transport-Type"
	HeaderRoomURL           = "X-Daily-Room-Url"
	HeaderRoomToken         = "X-Daily-Room-Token"
	HeaderMaxSessionSeconds = "X-PCC-Max-Session-Seconds"
)

// Client calls agents. The zero value is ready to use, with the defaults.
type Client struct {
	// ReadyTimeout bounds one Ready (0: DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// AcceptWindow: see DefaultAcceptWindow (0: that).
	AcceptWindow time.Duration

	once sync.Once
	http *http.Client
}

var defaultClient = &Client{}

// Ready asks the agent at endpoint whether it takes a session, with the
// default client.
func Ready(ctx context.Context, endpoint string) error {
	return defaultClient.Ready(ctx, endpoint)
}

// StartBot starts a session on the agent at endpoint, with the default
// client.
func StartBot(ctx context.Context, endpoint string, s SessionStart) (*Call, error) {
	return defaultClient.StartBot(ctx, endpoint, s)
}

func (c *Client) client() *http.Client {
	c.once.Do(func() {
		c.http = &http.Client{
			Transport: &http.Transport{
				Proxy:                 nil, // agents are on the platform's network, never behind a proxy
				DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
				MaxIdleConnsPerHost:   1,
				IdleConnTimeout:       30 * time.Second,
				ResponseHeaderTimeout: 0, // POST /bot answers at the session's end
				DisableCompression:    true,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return c.http
}

// Error is a call to an agent that failed: no answer (Err), or an answer
// that is not what the contract says (Status, Detail).
type Error struct {
	// Op is "readyz" or "bot".
	Op       string
	Endpoint string
	// Status is the agent's HTTP status, 0 when it did not answer.
	Status int
	// Detail is the start of the agent's answer (at most 200 bytes).
	Detail string
	// Err is why there was no answer (the connection refused or broken:
	// the agent exited; a deadline).
	Err error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		msg := fmt.Sprintf("agent %s: %s answered %d", e.Endpoint, e.path(), e.Status)
		if e.Detail != "" {
			msg += ": " + e.Detail
		}
		return msg
	}
	return fmt.Sprintf("agent %s: %s: %v", e.Endpoint, e.path(), e.Err)
}

func (e *Error) path() string {
	if e.Op == "bot" {
		return "POST /bot"
	}
	return "GET /" + e.Op
}

func (e *Error) Unwrap() error { return e.Err }

// NotReady reports whether the agent answered that it is not ready (503),
// as opposed to not answering.
func (e *Error) NotReady() bool { return e.Op == "readyz" && e.Status == http.StatusServiceUnavailable }

func detail(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return string(bytes.TrimSpace(b))
}

// Ready asks GET /readyz once: nil when the agent answers 200, an *Error
// otherwise (NotReady for a 503). It is bounded by ReadyTimeout.
func (c *Client) Ready(ctx context.Context, endpoint string) error {
	d := c.ReadyTimeout
	if d <= 0 {
		d = DefaultReadyTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+endpoint+"/readyz", nil)
	if err != nil {
		return &Error{Op: "readyz", Endpoint: endpoint, Err: err}
	}
	resp, err := c.client().Do(req)
	if err != nil {
		return &Error{Op: "readyz", Endpoint: endpoint, Err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer)) // only its start is shown
	if resp.StatusCode != http.StatusOK {
		return &Error{Op: "readyz", Endpoint: endpoint, Status: resp.StatusCode, Detail: detail(b)}
	}
	return nil
}

// SessionStart is what POST /bot carries.
type SessionStart struct {
	// ID is the session's id (X-Daily-Session-Id).
	ID string
	// Transport is "webrtc", "websocket" or "daily" (X-Daily-Transport-Type).
	Transport string
	// Body is the caller's body, a JSON object (nil: {}).
	Body json.RawMessage
	// MaxSeconds is the session's longest duration (X-PCC-Max-Session-Seconds;
	// 0: not sent). The agent is told; the platform enforces it.
	MaxSeconds int
	// RoomURL and RoomToken name a Daily room (both or neither).
	RoomURL   string
	RoomToken string
	// Sent, when set, is called once the request is sent (before the
	// accept window), if it is.
	Sent func()
}

// Call is an open POST /bot: a session in progress on one agent.
type Call struct {
	done   chan struct{}
	cancel context.CancelFunc
	err    error
}

// Done is closed when the request ends: the session's end.
func (c *Call) Done() <-chan struct{} { return c.done }

// Err says why the call ended, once Done is closed (nil before): nil when
// the agent answered 200 (its bot returned), an *Error otherwise (another
// status; the connection broken, as when the agent exits; Cancel, which
// errors.Is context.Canceled).
func (c *Call) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Cancel ends the call from the platform's side (the connection closed:
// a bot of the base image is not told, so the platform also stops the
// agent). It returns at once; Done follows.
func (c *Call) Cancel() { c.cancel() }

// StartBot sends POST /bot with the contract's headers and body and returns
// once the agent has taken the session: the request was sent and the agent
// did not refuse it within AcceptWindow. An agent that answers within the
// window refuses it (an *Error), unless it answers 200: the session then
// has ended already and the Call returned is done. ctx bounds the start
// only; the call lasts until the agent answers or Cancel.
func (c *Client) StartBot(ctx context.Context, endpoint string, s SessionStart) (*Call, error) {
	body := s.Body
	if len(body) == 0 {
		body = json.RawMessage("{}")
	}
	if (s.RoomURL == "") != (s.RoomToken == "") {
		return nil, errors.New("agentcall: a Daily room needs its URL and its token")
	}
	callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sent := make(chan struct{})
	var sentOnce sync.Once
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { sentOnce.Do(func() { close(sent) }) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(callCtx, trace), http.MethodPost, "http://"+endpoint+"/bot", bytes.NewReader(body))
	if err != nil {
		cancel()
		return nil, &Error{Op: "bot", Endpoint: endpoint, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderSessionID, s.ID)
	if s.Transport != "" {
		req.Header.Set(HeaderTransport, s.Transport)
	}
	if s.RoomURL != "" {
		req.Header.Set(HeaderRoomURL, s.RoomURL)
		req.Header.Set(HeaderRoomToken, s.RoomToken)
	}
	if s.MaxSeconds > 0 {
		req.Header.Set(HeaderMaxSessionSeconds, strconv.Itoa(s.MaxSeconds))
	}
	req.Close = true // the connection is the session's
	call := &Call{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(call.done)
		defer cancel()
		call.err = c.wait(req, endpoint)
	}()
	// Sent, then the window without an answer; or the answer; or ctx.
	window := c.AcceptWindow
	if window <= 0 {
		window = DefaultAcceptWindow
	}
	select {
	case <-sent:
		if s.Sent != nil {
			s.Sent()
		}
	case <-call.done:
		return nil, call.err
	case <-ctx.Done():
		cancel()
		<-call.done
		return nil, &Error{Op: "bot", Endpoint: endpoint, Err: ctx.Err()}
	}
	t := time.NewTimer(window)
	defer t.Stop()
	select {
	case <-t.C:
		return call, nil
	case <-call.done:
		if call.err != nil {
			return nil, call.err
		}
		return call, nil
	case <-ctx.Done():
		cancel()
		<-call.done
		return nil, &Error{Op: "bot", Endpoint: endpoint, Err: ctx.Err()}
	}
}

// wait makes the request and reads its answer: the session's end.
func (c *Client) wait(req *http.Request, endpoint string) error {
	resp, err := c.client().Do(req)
	if err != nil {
		return &Error{Op: "bot", Endpoint: endpoint, Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer))
	if resp.StatusCode != http.StatusOK {
		return &Error{Op: "bot", Endpoint: endpoint, Status: resp.StatusCode, Detail: detail(b)}
	}
	if err != nil {
		return &Error{Op: "bot", Endpoint: endpoint, Status: resp.StatusCode, Err: err}
	}
	return nil
}

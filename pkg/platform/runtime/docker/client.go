// Package docker is the platform's runtime over the Docker Engine API,
// spoken directly over HTTP on the engine's unix socket or TCP with TLS,
// the engine found as the docker CLI finds it (Resolve; no client
// library: docs/design-decisions.md says why). It is also the small engine
// client the tests' helpers build, push and clean up with.
package docker

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// The engine API versions this client speaks: it uses the engine's own
// version within these bounds (Debian's docker.io 20.10 speaks 1.41).
const (
	MinAPIVersion = "1.41"
	MaxAPIVersion = "1.47"
)

// Timeouts bound the engine's calls: no call waits on an engine that has
// stopped answering for longer than its bound.
type Timeouts struct {
	// Quick bounds a call that only reads (ping, list, inspect).
	Quick time.Duration
	// Call bounds a call that changes something (create, start, update,
	// remove; a stop or restart waits its grace period on top).
	Call time.Duration
	// Answer bounds the wait for the answer's start of a stream (pull,
	// push, build, logs).
	Answer time.Duration
	// StreamIdle bounds the silence within a stream that must keep coming
	// (a pull's progress, the lines of logs not followed). A followed log
	// may stay silent as long as its agent does.
	StreamIdle time.Duration
	// Pull bounds a whole pull.
	Pull time.Duration
}

// DefaultTimeouts are a client's bounds unless changed.
var DefaultTimeouts = Timeouts{
	Quick:      10 * time.Second,
	Call:       30 * time.Second,
	Answer:     30 * time.Second,
	StreamIdle: 2 * time.Minute,
	Pull:       30 * time.Minute,
}

// Client talks to one engine, over its unix socket or TCP (with TLS).
type Client struct {
	ep     Endpoint
	socket string // "" for a tcp:// engine
	http   *http.Client
	// Timeouts bound its calls (DefaultTimeouts); change them before the
	// first call.
	Timeouts Timeouts

	mu      sync.Mutex
	version string // negotiated at the first call
}

// New returns a client of the engine at host: unix:///path/to/docker.sock
// (or the socket's path) or tcp://HOST:PORT in plain HTTP. It does not
// connect yet.
func New(host string) (*Client, error) {
	return Open(Endpoint{Host: host})
}

// Open returns a client of the engine ep names (see Resolve). It reads the
// TLS files now, and does not connect yet.
func Open(ep Endpoint) (*Client, error) {
	network, addr, err := ep.parts()
	if err != nil {
		return nil, err
	}
	var tlsConf *tls.Config
	if network == "tcp" && ep.TLS != nil {
		if tlsConf, err = ep.TLS.config(addr); err != nil {
			return nil, invalid("engine %s: %v", ep, err)
		}
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil || tlsConf == nil {
				return conn, err
			}
			tc := tls.Client(conn, tlsConf)
			if err := tc.HandshakeContext(ctx); err != nil {
				conn.Close()
				return nil, &tlsError{err: err}
			}
			return tc, nil
		},
		MaxIdleConns:    8,
		IdleConnTimeout: 30 * time.Second,
	}
	c := &Client{ep: ep, http: &http.Client{Transport: tr}, Timeouts: DefaultTimeouts}
	if network == "unix" {
		c.socket = addr
	}
	return c, nil
}

// config is the TLS configuration of an engine at addr (HOST:PORT).
func (t *TLSFiles) config(addr string) (*tls.Config, error) {
	host, _, _ := net.SplitHostPort(addr) // addr is HOST:PORT, made by parts
	// InsecureSkipVerify only as the user's settings say (DOCKER_TLS
	// without DOCKER_TLS_VERIFY, a context's SkipTLSVerify).
	conf := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host, InsecureSkipVerify: t.SkipVerify}
	if t.CAFile != "" {
		b, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("%s holds no PEM certificate", t.CAFile)
		}
		conf.RootCAs = pool
	}
	switch {
	case t.CertFile != "" && t.KeyFile != "":
		pair, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("the client certificate %s and key %s: %v", t.CertFile, t.KeyFile, err)
		}
		conf.Certificates = []tls.Certificate{pair}
	case t.CertFile != "":
		return nil, fmt.Errorf("the client certificate %s has no key.pem beside it", t.CertFile)
	case t.KeyFile != "":
		return nil, fmt.Errorf("the client key %s has no cert.pem beside it", t.KeyFile)
	}
	return conf, nil
}

// tlsError is a failed TLS handshake with the engine.
type tlsError struct{ err error }

func (e *tlsError) Error() string {
	var unknown x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	switch {
	case refusedByPeer(e.err):
		return "TLS: the engine refused the connection (" + e.err.Error() + "): is botkit's client certificate (cert.pem) one the engine's CA signed?"
	case errors.As(e.err, &unknown), errors.As(e.err, &verify):
		return "TLS: the engine's certificate does not verify against the CA (" + e.err.Error() + ")"
	}
	return "TLS: " + e.err.Error()
}

func (e *tlsError) Unwrap() error { return e.err }

// refusedByPeer reports whether err is a TLS alert the engine sent (with
// TLS 1.3 a refused client certificate shows only at the first read).
func refusedByPeer(err error) bool {
	var alert tls.AlertError
	var op *net.OpError
	return errors.As(err, &alert) || errors.As(err, &op) && op.Op == "remote error"
}

// Socket returns the path of the engine's socket ("" for a tcp:// engine).
func (c *Client) Socket() string { return c.socket }

// Endpoint returns the engine the client talks to.
func (c *Client) Endpoint() Endpoint { return c.ep }

// Close releases the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// unreachable is the error of a call the engine did not complete.
func (c *Client) unreachable(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is the client's own (http://docker/…)
	}
	var te *tlsError
	if c.ep.TLS != nil && c.socket == "" && !errors.As(err, &te) && refusedByPeer(err) {
		err = &tlsError{err: err}
	}
	return &runtime.Error{Reason: runtime.ReasonUnreachable, Engine: c.ep.String(), Err: err}
}

// bound cancels a call once its time is up, and says it did.
type bound struct {
	cancel context.CancelFunc
	timer  *time.Timer
	fired  atomic.Bool
	wait   time.Duration // the bound last set
	what   string        // "GET /containers/json"
}

// newBound returns ctx cancelled d from now (d <= 0: never) and its bound.
func newBound(ctx context.Context, d time.Duration, what string) (context.Context, *bound) {
	ctx, cancel := context.WithCancel(ctx)
	b := &bound{cancel: cancel, wait: d, what: what}
	if d > 0 {
		b.timer = time.AfterFunc(d, func() { b.fired.Store(true); cancel() })
	}
	return ctx, b
}

// reset moves the bound to d from now (d <= 0: none); a bound already
// passed stays passed.
func (b *bound) reset(d time.Duration) {
	if b.timer != nil && !b.timer.Stop() {
		return
	}
	b.wait = d
	if d > 0 {
		if b.timer == nil {
			b.timer = time.AfterFunc(d, func() { b.fired.Store(true); b.cancel() })
		} else {
			b.timer.Reset(d)
		}
	}
}

// end releases the bound and cancels what is left of the call.
func (b *bound) end() {
	if b.timer != nil {
		b.timer.Stop()
	}
	b.cancel()
}

// err is err, or the engine's silence when the bound has passed.
func (c *Client) boundErr(b *bound, err error) error {
	if b.fired.Load() {
		return &runtime.Error{Reason: runtime.ReasonUnreachable, Engine: c.ep.String(), Message: fmt.Sprintf("no answer within %s to %s", b.wait, b.what)}
	}
	return err
}

// APIError is an engine's answer with an error status.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("engine: HTTP %d: %s", e.Status, e.Message)
}

// StatusOf returns the HTTP status of the *APIError in err's chain, 0 if
// none.
func StatusOf(err error) int {
	var e *APIError
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// Ping asks the engine whether it answers, and learns its API version
// (bounded by Timeouts.Quick).
func (c *Client) Ping(ctx context.Context) error {
	bctx, bd := newBound(ctx, c.Timeouts.Quick, "GET /_ping")
	defer bd.end()
	req, err := http.NewRequestWithContext(bctx, http.MethodGet, "http://docker/_ping", nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return c.boundErr(bd, c.unreachable(err))
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10)); err != nil {
		return c.boundErr(bd, c.unreachable(err))
	}
	if resp.StatusCode != http.StatusOK {
		return &runtime.Error{Reason: runtime.ReasonUnreachable, Engine: c.ep.String(), Message: fmt.Sprintf("ping: HTTP %d", resp.StatusCode)}
	}
	v := resp.Header.Get("Api-Version")
	if v == "" || versionLess(v, MinAPIVersion) {
		return &runtime.Error{Reason: runtime.ReasonEngine, Message: fmt.Sprintf("the engine at %s speaks API %q; botkit needs %s or later", c.ep, v, MinAPIVersion)}
	}
	if versionLess(MaxAPIVersion, v) {
		v = MaxAPIVersion
	}
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
	return nil
}

// versionLess compares API versions "1.41" < "1.47".
func versionLess(a, b string) bool {
	pa, pb := strings.SplitN(a, ".", 2), strings.SplitN(b, ".", 2)
	for i := 0; i < 2; i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i]) // a malformed part counts as 0
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i]) // idem
		}
		if x != y {
			return x < y
		}
	}
	return false
}

func (c *Client) apiVersion(ctx context.Context) (string, error) {
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	if v != "" {
		return v, nil
	}
	if err := c.Ping(ctx); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version, nil
}

// Call sends one request to the engine's API (path without the version:
// "/containers/json") whose answer is a stream. body is an io.Reader sent
// as is, or a value sent as JSON. The answer must start within
// Timeouts.Answer, and its body keep coming with no silence longer than
// Timeouts.StreamIdle. An error status becomes an *APIError; a failed
// connection or a bound passed an *runtime.Error with ReasonUnreachable.
// The caller closes the response's body.
func (c *Client) Call(ctx context.Context, method, path string, query url.Values, header http.Header, body any) (*http.Response, error) {
	return c.stream(ctx, method, path, query, header, body, c.Timeouts.StreamIdle)
}

// stream is Call with the body's idle bound given (0: none).
func (c *Client) stream(ctx context.Context, method, path string, query url.Values, header http.Header, body any, idle time.Duration) (*http.Response, error) {
	bctx, bd := newBound(ctx, c.Timeouts.Answer, method+" "+path)
	resp, err := c.send(ctx, bctx, bd, method, path, query, header, body)
	if err != nil {
		bd.end()
		return nil, err
	}
	bd.reset(idle)
	resp.Body = &boundedBody{ReadCloser: resp.Body, c: c, bd: bd, idle: idle}
	return resp, nil
}

// boundedBody is a stream's body under its idle bound.
type boundedBody struct {
	io.ReadCloser
	c    *Client
	bd   *bound
	idle time.Duration
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.idle > 0 {
		b.bd.reset(b.idle)
	}
	if err != nil && err != io.EOF {
		err = b.c.boundErr(b.bd, err)
	}
	return n, err
}

func (b *boundedBody) Close() error {
	b.bd.end()
	return b.ReadCloser.Close()
}

// send sends a request under bctx (ctx's bounded child) and returns the
// engine's answer, errors typed.
func (c *Client) send(ctx, bctx context.Context, bd *bound, method, path string, query url.Values, header http.Header, body any) (*http.Response, error) {
	v, err := c.apiVersion(ctx)
	if err != nil {
		return nil, err
	}
	var r io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case io.Reader:
		r = b
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		r, ctype = bytes.NewReader(buf), "application/json"
	}
	u := "http://docker/v" + v + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(bctx, method, u, r)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if ctype != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, c.boundErr(bd, c.unreachable(err))
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if err != nil {
			return nil, c.boundErr(bd, c.unreachable(err))
		}
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(b, &m) != nil || m.Message == "" {
			m.Message = strings.TrimSpace(string(b))
		}
		return nil, &APIError{Status: resp.StatusCode, Message: m.Message}
	}
	return resp, nil
}

// Do is a call whose answer is JSON (decoded into out when out is not nil)
// or nothing, bounded as a whole by Timeouts.Call.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	return c.do(ctx, c.Timeouts.Call, method, path, query, body, out)
}

// do is Do bounded by d.
func (c *Client) do(ctx context.Context, d time.Duration, method, path string, query url.Values, body, out any) error {
	bctx, bd := newBound(ctx, d, method+" "+path)
	defer bd.end()
	resp, err := c.send(ctx, bctx, bd, method, path, query, nil, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
	} else {
		err = json.NewDecoder(resp.Body).Decode(out)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return c.boundErr(bd, c.unreachable(err))
	}
	return nil
}

// Message is one message of the engine's JSON progress streams (pull,
// push, build).
type Message struct {
	Status      string `json:"status,omitempty"`
	Stream      string `json:"stream,omitempty"`
	ID          string `json:"id,omitempty"`
	Error       string `json:"error,omitempty"`
	ErrorDetail *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"errorDetail,omitempty"`
	Aux json.RawMessage `json:"aux,omitempty"`
}

// StreamError is an error the engine reported inside a progress stream.
type StreamError struct {
	Code    int
	Message string
}

func (e *StreamError) Error() string { return "engine: " + e.Message }

// DecodeStream reads a progress stream to its end, giving each message to
// fn (nil: discarded); a message with an error ends it with a
// *StreamError.
func DecodeStream(r io.Reader, fn func(Message) error) error {
	dec := json.NewDecoder(r)
	for {
		var m Message
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			var re *runtime.Error
			if errors.As(err, &re) {
				return err
			}
			return &runtime.Error{Reason: runtime.ReasonUnreachable, Err: err}
		}
		if m.Error != "" || m.ErrorDetail != nil {
			e := &StreamError{Message: m.Error}
			if m.ErrorDetail != nil {
				e.Code = m.ErrorDetail.Code
				if e.Message == "" {
					e.Message = m.ErrorDetail.Message
				}
			}
			return e
		}
		if fn != nil {
			if err := fn(m); err != nil {
				return err
			}
		}
	}
}

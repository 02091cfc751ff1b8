// Package docker is the platform's runtime over the Docker Engine API,
// spoken directly over HTTP on the engine's unix socket (no client
// library: docs/design-decisions.md says why). It is also the small engine
// client the tests' helpers build, push and clean up with.
package docker

import (
	"bytes"
	"context"
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
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// The engine API versions this client speaks: it uses the engine's own
// version within these bounds (Debian's docker.io 20.10 speaks 1.41).
const (
	MinAPIVersion = "1.41"
	MaxAPIVersion = "1.47"
)

// DefaultSocket is the engine's socket when DOCKER_HOST names none.
const DefaultSocket = "/var/run/docker.sock"

// HostFromEnv returns the engine address DOCKER_HOST gives, else the
// default socket's.
func HostFromEnv() string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	return "unix://" + DefaultSocket
}

// Client talks to one engine over its unix socket.
type Client struct {
	socket string
	http   *http.Client

	mu      sync.Mutex
	version string // negotiated at the first call
}

// New returns a client of the engine at host: unix:///path/to/docker.sock
// or the socket's path. It does not connect yet.
func New(host string) (*Client, error) {
	socket := host
	if rest, ok := strings.CutPrefix(host, "unix://"); ok {
		socket = rest
	} else if strings.Contains(host, "://") {
		return nil, &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf("engine address %q: only unix:// sockets are supported", host)}
	}
	if socket == "" || !strings.HasPrefix(socket, "/") {
		return nil, &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf("engine address %q: want unix:///absolute/path", host)}
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		MaxIdleConns:    8,
		IdleConnTimeout: 30 * time.Second,
	}
	return &Client{socket: socket, http: &http.Client{Transport: tr}}, nil
}

// Socket returns the path of the engine's socket.
func (c *Client) Socket() string { return c.socket }

// Close releases the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

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

// Ping asks the engine whether it answers, and learns its API version.
func (c *Client) Ping(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://docker/_ping", nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &runtime.Error{Reason: runtime.ReasonUnreachable, Err: err}
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10)); err != nil {
		return &runtime.Error{Reason: runtime.ReasonUnreachable, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		return &runtime.Error{Reason: runtime.ReasonUnreachable, Message: fmt.Sprintf("ping: HTTP %d", resp.StatusCode)}
	}
	v := resp.Header.Get("Api-Version")
	if v == "" || versionLess(v, MinAPIVersion) {
		return &runtime.Error{Reason: runtime.ReasonEngine, Message: fmt.Sprintf("the engine speaks API %q; botkit needs %s or later", v, MinAPIVersion)}
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
// "/containers/json"). body is an io.Reader sent as is, or a value sent as
// JSON. An error status becomes an *APIError; a failed connection an
// *runtime.Error with ReasonUnreachable. The caller closes the response's
// body.
func (c *Client) Call(ctx context.Context, method, path string, query url.Values, header http.Header, body any) (*http.Response, error) {
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
	req, err := http.NewRequestWithContext(ctx, method, u, r)
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
		return nil, &runtime.Error{Reason: runtime.ReasonUnreachable, Err: err}
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if err != nil {
			return nil, &runtime.Error{Reason: runtime.ReasonUnreachable, Err: err}
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

// Do is Call for the requests whose answer is JSON (decoded into out when
// out is not nil) or nothing.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	resp, err := c.Call(ctx, method, path, query, nil, body)
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
		return &runtime.Error{Reason: runtime.ReasonUnreachable, Err: err}
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

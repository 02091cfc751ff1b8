package client

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// EmbeddedOrg is the organization of the embedded local platform.
const EmbeddedOrg = resources.EmbeddedOrg

// EmbeddedHost is how messages name the embedded platform.
const EmbeddedHost = "the embedded local platform"

// InProcess is a platform that runs in this process (the embedded local
// platform, pkg/embedded).
type InProcess struct {
	// Handler serves the platform's API.
	Handler http.Handler
	// Host names the platform in messages.
	Host string
	// Settle provisions what is pending now and returns when that is done
	// (nil: nothing to do). Client.Settle calls it.
	Settle func(ctx context.Context) error
	// Close releases the platform. Client.Close calls it.
	Close func() error
}

// NewInProcess returns a client of the in-process platform p: every request
// goes through the same routing, authentication, validation and encoding as
// over the network, without a socket; no token is sent and nothing is
// retried.
//
// opts.BaseURL, opts.Token, opts.Transport and opts.Retries are ignored.
func NewInProcess(p InProcess, opts Options) *Client {
	opts.Transport = handlerTransport{h: p.Handler}
	opts.Token = ""
	opts.Retries = -1 // nothing to retry: no load balancer, no connection
	c := newClient(&url.URL{Scheme: "http", Host: "in-process.botkit.invalid"}, p.Host, opts)
	c.inProcess = &p
	return c
}

// Settle lets an in-process platform provision what is pending now, so that
// what the command prints is the state the object has when it exits (a
// remote platform provisions on its own time: --wait waits for it). A no-op
// for a remote platform.
func (c *Client) Settle(ctx context.Context) error {
	if c.inProcess == nil || c.inProcess.Settle == nil {
		return nil
	}
	return c.inProcess.Settle(ctx)
}

// handlerTransport is an http.RoundTripper that calls an http.Handler
// in-process: the request goes through the same routing, authentication,
// validation and encoding as over the network, without a socket.
type handlerTransport struct {
	h http.Handler
}

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(req.Context())
	r := req.Clone(ctx)
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RemoteAddr = "embedded"
	r.RequestURI = r.URL.RequestURI()
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	w := &bufferWriter{header: http.Header{}, streaming: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if w.pw != nil {
				w.pw.Close() // the stream's end: the reader gets EOF
			}
		}()
		t.h.ServeHTTP(w, r)
	}()
	select {
	case <-done:
	case <-w.streaming:
		// The handler flushed (the agents' logs): the answer is read as
		// it is written, and closing it ends the handler's request.
		return w.response(req, &streamBody{PipeReader: w.pr, cancel: cancel}, -1), nil
	}
	cancel()
	if req.Body != nil {
		req.Body.Close()
	}
	return w.response(req, io.NopCloser(bytes.NewReader(w.body.Bytes())), int64(w.body.Len())), nil
}

func (w *bufferWriter) response(req *http.Request, body io.ReadCloser, length int64) *http.Response {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.sent == nil {
		w.sent = w.header
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          body,
		ContentLength: length,
		Request:       req,
	}
}

// bufferWriter is the http.ResponseWriter of an in-process request: it
// keeps the answer whole, unless the handler flushes, which turns it into
// a stream (an io.Pipe) read as it is written.
type bufferWriter struct {
	header http.Header
	sent   http.Header // the header as it was when the answer started
	status int
	body   bytes.Buffer
	// streaming is closed at the first Flush; pr and pw carry the stream.
	streaming chan struct{}
	pr        *io.PipeReader
	pw        *io.PipeWriter
}

func (w *bufferWriter) Header() http.Header { return w.header }

func (w *bufferWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.sent = w.header.Clone()
	}
}

func (w *bufferWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.pw != nil {
		return w.pw.Write(b)
	}
	return w.body.Write(b)
}

// Flush starts the stream: what was written so far, then every write, goes
// to the reader as it comes.
func (w *bufferWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.pw == nil {
		w.pr, w.pw = io.Pipe()
		close(w.streaming)
	}
	if w.body.Len() > 0 {
		_, _ = w.pw.Write(w.body.Bytes()) // error ignored: the reader went away; the next Write tells the handler
		w.body.Reset()
	}
}

// streamBody is a streamed answer's body: closing it ends the handler's
// request (its context), so that a followed stream stops.
type streamBody struct {
	*io.PipeReader
	cancel context.CancelFunc
}

func (b *streamBody) Close() error {
	b.cancel()
	return b.PipeReader.Close()
}

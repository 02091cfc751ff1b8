package client

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// EmbeddedOrg is the organization of the embedded local platform.
const EmbeddedOrg = "local"

// EmbeddedHost is how messages name the embedded platform.
const EmbeddedHost = "the embedded local platform"

// NewInProcess returns a client of a platform whose HTTP handler h runs in
// this process (the embedded local platform, pkg/embedded): every request
// goes through the same routing, authentication, validation and encoding as
// over the network, without a socket; no token is sent and nothing is
// retried. host names the platform in messages; Close calls closeFn.
//
// opts.BaseURL, opts.Token, opts.Transport and opts.Retries are ignored.
func NewInProcess(h http.Handler, host string, opts Options, closeFn func() error) *Client {
	opts.Transport = handlerTransport{h: h}
	opts.Token = ""
	opts.Retries = -1 // nothing to retry: no load balancer, no connection
	c := newClient(&url.URL{Scheme: "http", Host: "in-process.botkit.invalid"}, host, opts)
	c.inProcess = &inProcess{close: closeFn}
	return c
}

// inProcess is what a client of an in-process platform holds.
type inProcess struct {
	close func() error
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
	r := req.Clone(req.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RemoteAddr = "embedded"
	r.RequestURI = r.URL.RequestURI()
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	w := &bufferWriter{header: http.Header{}}
	t.h.ServeHTTP(w, r)
	if req.Body != nil {
		req.Body.Close()
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}, nil
}

// bufferWriter is the http.ResponseWriter of an in-process request.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferWriter) Header() http.Header { return w.header }

func (w *bufferWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *bufferWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}

package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform"
)

// EmbeddedOrg is the organization of the embedded local platform.
const EmbeddedOrg = "local"

// EmbeddedHost is how messages name the embedded platform.
const EmbeddedHost = "the embedded local platform"

// DrainTimeout bounds how long closing the embedded platform waits for the
// provisioning of what is pending (image pull secrets are checked against
// their registry: at most 2 attempts of 5s, see OpenEmbedded).
const DrainTimeout = 15 * time.Second

// embedded is the in-process platform behind a Client.
type embedded struct {
	srv *platform.Server
	// ctx is the context the platform was opened with: the command's, so
	// that an interrupt also cuts the drain at close short.
	ctx context.Context
}

// close provisions what is pending (this command's writes, and anything an
// earlier process left pending), bounded by DrainTimeout and the command's
// context, then closes the database.
func (e *embedded) close() error {
	ctx, cancel := context.WithTimeout(e.ctx, DrainTimeout)
	defer cancel()
	_ = e.srv.Drain(ctx) // unfinished work stays pending for the next command
	return e.srv.Close()
}

// OpenEmbedded opens the embedded local platform over the SQLite database in
// dataDir (created 0700 if missing) and returns a client that serves its
// HTTP handler in-process: organization "local", no token, registries on
// private addresses allowed (they are the user's own). Close the client to
// let in-flight provisioning finish and close the database.
//
// opts.BaseURL and opts.Token are ignored; the other options apply.
func OpenEmbedded(ctx context.Context, dataDir string, opts Options) (*Client, error) {
	srv, err := platform.Open(ctx, platform.Options{
		DataDir:                dataDir,
		NoAuthOrg:              EmbeddedOrg,
		AllowPrivateRegistries: true,
		// No provisioning pass at open: close drains everything pending.
		LazyProvisioner: true,
		// A command waits for the check of what it wrote when it closes:
		// an unreachable registry fails it within about 11s.
		RegistryTimeout:    5 * time.Second,
		RegistryAttempts:   2,
		RegistryRetryDelay: 500 * time.Millisecond,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the embedded local platform in %s: %w", dataDir, err)
	}
	opts.Transport = handlerTransport{h: srv.Handler()}
	opts.Token = ""
	// Nothing to retry in-process: no load balancer, no connection.
	opts.Retries = -1
	if opts.PollInterval <= 0 {
		opts.PollInterval = 50 * time.Millisecond
	}
	c := newClient(&url.URL{Scheme: "http", Host: "embedded.botkit.invalid"}, EmbeddedHost, opts)
	c.embedded = &embedded{srv: srv, ctx: ctx}
	return c, nil
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

package platform

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// DrainGrace is how long a serving process, once told to stop, lets its
// kept-alive connections carry one more request (answered with
// "Connection: close") before it closes the ones still idle.
const DrainGrace = 2 * time.Second

// ShutdownTimeout bounds how long requests in flight may take to finish
// after DrainGrace.
const ShutdownTimeout = 10 * time.Second

// Serve serves hs on ln until ctx ends (botkit-platform serve: SIGTERM or
// Ctrl-C), then drains, so that no request a client sent gets a
// connection error:
//
//  1. it stops accepting (a client dialing now is refused: its request was
//     never sent, and it may retry elsewhere);
//  2. every response from then on says "Connection: close", and the
//     connection closes after it; idle kept-alive connections are left open
//     for up to DrainGrace, so that a request already on its way on one is
//     served (http.Server.Shutdown closes idle connections at once, and a
//     request arriving on one at that moment gets a reset or EOF);
//  3. once every connection is closed, or DrainGrace has passed, the idle
//     connections left are closed and requests in flight get up to
//     ShutdownTimeout to finish.
//
// onStop, when not nil, is called when ctx ends, before the drain. Serve
// returns nil after a drain, or the error that stopped serving. It wraps
// hs.Handler and hs.ConnState (calling the ones set); for TLS, pass a
// listener that speaks it (tls.NewListener).
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, onStop func()) error {
	return serve(ctx, hs, ln, onStop, DrainGrace, ShutdownTimeout)
}

func serve(ctx context.Context, hs *http.Server, ln net.Listener, onStop func(), grace, timeout time.Duration) error {
	d := &drainer{conns: map[net.Conn]struct{}{}, empty: make(chan struct{})}
	prevState := hs.ConnState
	hs.ConnState = func(c net.Conn, s http.ConnState) {
		d.track(c, s)
		if prevState != nil {
			prevState(c, s)
		}
	}
	h := hs.Handler
	hs.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.draining.Load() {
			w.Header().Set("Connection", "close") // net/http closes the connection after this response
		}
		h.ServeHTTP(w, r)
	})
	ln = &closeOnce{Listener: ln}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if onStop != nil {
		onStop()
	}
	// 1. Stop accepting: Serve returns once its Accept fails.
	_ = ln.Close() // error ignored: closing a listening socket only fails if it is closed already
	<-errc
	// 2. Responses from now on close their connection; wait for the
	// connections to go.
	d.startDraining()
	t := time.NewTimer(grace)
	select {
	case <-d.empty:
	case <-t.C:
	}
	t.Stop()
	// 3. Close what is left idle; let requests in flight finish.
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return hs.Shutdown(sctx)
}

// drainer tracks a server's connections, to tell when the last is closed.
type drainer struct {
	draining atomic.Bool
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	empty    chan struct{} // closed when draining and no connection is left
	closed   bool
}

func (d *drainer) track(c net.Conn, s http.ConnState) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch s {
	case http.StateNew:
		d.conns[c] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(d.conns, c)
		d.checkEmpty()
	}
}

func (d *drainer) startDraining() {
	d.draining.Store(true)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.checkEmpty()
}

// checkEmpty closes empty once draining with no connection left; d.mu is
// held.
func (d *drainer) checkEmpty() {
	if d.draining.Load() && len(d.conns) == 0 && !d.closed {
		d.closed = true
		close(d.empty)
	}
}

// closeOnce is a listener whose second Close is a no-op (Serve closes it
// to stop accepting, http.Server.Shutdown closes it again).
type closeOnce struct {
	net.Listener
	once sync.Once
	err  error
}

func (l *closeOnce) Close() error {
	l.once.Do(func() { l.err = l.Listener.Close() })
	return l.err
}

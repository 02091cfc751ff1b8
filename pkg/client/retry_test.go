package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// flaky is a FAKE server, on purpose: the real platform never answers 429,
// 502, 503 or 504 and never resets a connection on demand — those come from
// load balancers and proxies in front of it. It fails the first `failures`
// requests the way fail says, then answers like the platform would.
type flaky struct {
	failures int32
	fail     func(w http.ResponseWriter)
	calls    atomic.Int32
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := f.calls.Add(1); n <= f.failures {
		f.fail(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.Method {
	case http.MethodGet:
		_, _ = w.Write([]byte(`{"user":"ci","organizations":[{"name":"acme","defaultRegion":"us-west"}]}`)) // error ignored: the client reports a broken answer
	default:
		_, _ = w.Write([]byte(`{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"x"},"spec":{"keys":["A"]},"status":{"state":"pending"}}`)) // error ignored: the client reports a broken answer
	}
}

func status(code int, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body)) // error ignored: the client reports a broken answer
	}
}

// reset closes the connection without an answer (what a proxy restarting
// does to a request in flight).
func reset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func flakyClient(t *testing.T, f *flaky) *Client {
	t.Helper()
	hs := httptest.NewServer(f)
	t.Cleanup(hs.Close)
	c, err := New(Options{BaseURL: hs.URL, Retries: 3})
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = func(int) time.Duration { return time.Millisecond }
	return c
}

func TestRetries(t *testing.T) {
	ctx := context.Background()
	const secretBody = "<html>CANARY-proxy-body</html>"
	get := func(c *Client) error { _, err := c.Me(ctx); return err }
	patch := func(c *Client) error {
		_, _, err := c.Merge(ctx, "acme", "x", resources.Patch{Set: map[string]string{"A": "1"}}, "")
		return err
	}
	put := func(c *Client) error {
		_, _, err := c.Replace(ctx, "acme", resources.Object{SecretSet: &resources.SecretSet{Metadata: resources.ObjectMeta{Name: "x"}}}, "")
		return err
	}
	del := func(c *Client) error { _, err := c.Delete(ctx, "acme", "x"); return err }
	apply := func(c *Client) error {
		_, err := c.Apply(ctx, "acme", resources.ApplyRequest{})
		return err
	}
	deleteObjects := func(c *Client) error {
		_, err := c.DeleteObjects(ctx, "acme", resources.DeleteRequest{})
		return err
	}
	cases := []struct {
		name      string
		failures  int32
		fail      func(http.ResponseWriter)
		call      func(*Client) error
		wantCalls int32
		wantOK    bool
	}{
		{"GET 503 twice", 2, status(503, secretBody), get, 3, true},
		{"GET 429", 1, status(429, ""), get, 2, true},
		{"GET 502", 1, status(502, secretBody), get, 2, true},
		{"GET 504", 3, status(504, secretBody), get, 4, true},
		{"GET reset", 2, reset, get, 3, true},
		{"PUT 503", 1, status(503, ""), put, 2, true},
		{"DELETE reset", 1, reset, del, 2, true},
		// Bounded: 1 try + 3 retries, then the last answer.
		{"GET 503 always", 100, status(503, secretBody), get, 4, false},
		// Not a transient answer: no retry.
		{"GET 500", 1, status(500, secretBody), get, 1, false},
		{"GET 404", 1, status(404, secretBody), get, 1, false},
		// PATCH is not idempotent: never retried.
		{"PATCH 503", 1, status(503, secretBody), patch, 1, false},
		{"PATCH reset", 1, reset, patch, 1, false},
		// Nor are the POSTs of apply and delete.
		{"apply 503", 1, status(503, secretBody), apply, 1, false},
		{"apply reset", 1, reset, apply, 1, false},
		{"delete objects 503", 1, status(503, secretBody), deleteObjects, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &flaky{failures: tc.failures, fail: tc.fail}
			err := tc.call(flakyClient(t, f))
			if got := f.calls.Load(); got != tc.wantCalls {
				t.Errorf("%d requests, want %d", got, tc.wantCalls)
			}
			if (err == nil) != tc.wantOK {
				t.Fatalf("error %v, want ok=%v", err, tc.wantOK)
			}
			if err != nil && strings.Contains(err.Error(), "CANARY") {
				t.Errorf("error quotes the answer's body: %v", err)
			}
		})
	}
}

// An error answer that is not the API's error object gets its code from the
// status, and a message naming the host and status.
func TestUnparseableErrorBodies(t *testing.T) {
	for status, code := range map[int]string{400: resources.CodeInvalid, 401: resources.CodeUnauthenticated, 403: resources.CodeForbidden,
		404: resources.CodeNotFound, 409: resources.CodeConflict, 413: resources.CodeTooLarge, 500: resources.CodeInternal, 503: resources.CodeUnavailable, 502: resources.CodeUnavailable, 418: resources.CodeInternal} {
		f := &flaky{failures: 100, fail: func(w http.ResponseWriter) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"not":"the error object"}`)) // error ignored: the client reports a broken answer
		}}
		c := flakyClient(t, f)
		c.retries = 0
		_, err := c.Me(context.Background())
		var ae *resources.Error
		if !errors.As(err, &ae) || ae.Code != code || !strings.Contains(ae.Message, c.Host()) || !strings.Contains(ae.Message, "HTTP ") {
			t.Errorf("%d: %#v", status, err)
		}
	}
}

func TestBackoffBoundedAndJittered(t *testing.T) {
	distinct := map[time.Duration]bool{}
	for n := 1; n <= 12; n++ {
		ceil := min(250*time.Millisecond<<(n-1), 4*time.Second)
		if n > 5 {
			ceil = 4 * time.Second
		}
		for range 50 {
			d := backoff(n)
			if d < ceil/2 || d > ceil {
				t.Fatalf("backoff(%d) = %s, want within [%s, %s]", n, d, ceil/2, ceil)
			}
			distinct[d] = true
		}
	}
	if len(distinct) < 100 {
		t.Errorf("only %d distinct delays: not jittered", len(distinct))
	}
	if parseRetryAfter("3") != 3*time.Second || parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") != 0 || parseRetryAfter("-1") != 0 {
		t.Error("Retry-After parsing")
	}
}

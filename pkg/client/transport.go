package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// netErr turns a failed exchange into a *NetworkError naming the host (the
// cause without the URL), a *CertificateError when the platform's
// certificate was refused, or into ctx's error when the caller gave up (an
// interrupt stays an interrupt).
func (c *Client) netErr(ctx, attemptCtx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(attemptCtx.Err(), context.DeadlineExceeded) {
		return &NetworkError{Host: c.host, Err: fmt.Errorf("no answer within %s", c.timeout)}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if ce, ok := c.certificateError(err); ok {
		return ce
	}
	return &NetworkError{Host: c.host, Err: describeNetError(err)}
}

// describeNetError shortens a DNS failure; other errors (a dial's "connect:
// connection refused", a reset) say enough as they are.
func describeNetError(err error) error {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsNotFound {
			return fmt.Errorf("no such host %s", dnsErr.Name)
		}
		return fmt.Errorf("looking up %s: %s", dnsErr.Name, dnsErr.Err)
	}
	return err
}

// isReset reports a connection the peer reset or closed before answering.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// backoff is the delay before retry n (1-based): 250ms doubling, at most 4s,
// with full jitter over its upper half so that clients do not retry in step.
func backoff(n int) time.Duration {
	d := 250 * time.Millisecond << min(n-1, 4)
	if d > 4*time.Second {
		d = 4 * time.Second
	}
	return d/2 + rand.N(d/2+1)
}

// parseRetryAfter reads a Retry-After of delay seconds (an HTTP date is
// ignored: clocks differ).
func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

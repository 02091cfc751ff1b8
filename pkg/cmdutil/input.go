package cmdutil

import (
	"context"
	"io"
)

// ReadInput reads r to its end, at most limit+1 bytes (the caller decides
// what more than limit means), and gives up when ctx ends: Ctrl-C while a
// command waits on stdin ends it with exit 130 instead of hanging. The read
// itself goes on in the background until r ends; the process is about to
// exit then.
func ReadInput(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, limit+1))
		done <- result{b, err}
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case res := <-done:
		return res.b, res.err
	}
}

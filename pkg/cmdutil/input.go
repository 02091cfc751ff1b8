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
	return Interruptible(ctx, func() ([]byte, error) {
		return io.ReadAll(io.LimitReader(r, limit+1))
	})
}

// Interruptible runs read (a blocking read of stdin, say) in the background
// and returns its result, or ctx's error as soon as ctx ends. An abandoned
// read goes on until its reader ends; the process is about to exit then.
func Interruptible[T any](ctx context.Context, read func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	case res := <-done:
		return res.v, res.err
	}
}

// Package ctxio reads input in a way an interrupt can end: every place the
// CLI reads a user's input — stdin, a file named by a flag, a manifest, a
// fromFile value — goes through it, so that Ctrl-C or SIGTERM ends a command
// waiting on a terminal, a pipe or a FIFO nobody writes to (exit 130).
package ctxio

import (
	"context"
	"io"
	"os"
)

// Do runs read (a blocking open or read) in the background and returns its
// result, or ctx's error as soon as ctx ends. An abandoned read goes on
// until it returns by itself; the process is about to exit then.
func Do[T any](ctx context.Context, read func() (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
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

// ReadAll reads r to its end, at most limit+1 bytes (the caller decides
// what more than limit means), and gives up when ctx ends.
func ReadAll(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	return Do(ctx, func() ([]byte, error) {
		return io.ReadAll(io.LimitReader(r, limit+1))
	})
}

// ReadFile opens path and reads it to its end, at most limit+1 bytes, and
// gives up when ctx ends: opening a FIFO blocks until a writer opens it, and
// reading one blocks until its writer closes it. Errors are those of os
// (*fs.PathError), or ctx's error.
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	return Do(ctx, func() ([]byte, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, limit+1))
	})
}

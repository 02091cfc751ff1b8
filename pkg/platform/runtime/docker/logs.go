package docker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// Logs writes the agents' log lines to fn: agent after agent, or as they
// come with opts.Follow.
func (rt *Runtime) Logs(ctx context.Context, agents []runtime.Agent, opts runtime.LogOptions, fn func(runtime.LogLine) error) error {
	if !opts.Follow || len(agents) == 1 {
		for _, a := range agents {
			if err := rt.logs(ctx, a, opts, fn); err != nil {
				return err
			}
		}
		return nil
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make(chan runtime.LogLine)
	errs := make(chan error, len(agents))
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := rt.logs(ctx, a, opts, func(l runtime.LogLine) error {
				select {
				case lines <- l:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
			if err != nil {
				cancel() // one agent's failure ends the others' streams
			}
			errs <- err
		}()
	}
	go func() { wg.Wait(); close(lines) }()
	var ferr error
	for l := range lines {
		if ferr == nil {
			if ferr = fn(l); ferr != nil {
				cancel()
			}
		}
	}
	if ferr != nil {
		return ferr
	}
	for range agents {
		if err := <-errs; err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return parent.Err()
}

func (rt *Runtime) logs(ctx context.Context, a runtime.Agent, opts runtime.LogOptions, fn func(runtime.LogLine) error) error {
	q := url.Values{"stdout": {"1"}, "stderr": {"1"}, "timestamps": {"1"}, "tail": {"all"}}
	if opts.Follow {
		q.Set("follow", "1")
	}
	if opts.Tail > 0 {
		q.Set("tail", strconv.Itoa(opts.Tail))
	}
	if !opts.Since.IsZero() {
		q.Set("since", fmt.Sprintf("%d.%09d", opts.Since.Unix(), opts.Since.Nanosecond()))
	}
	// A followed log may be silent as long as its agent is; one read to
	// its end must keep coming.
	idle := rt.Timeouts.StreamIdle
	if opts.Follow {
		idle = 0
	}
	resp, err := rt.stream(ctx, http.MethodGet, "/containers/"+a.ID+"/logs", q, nil, nil, idle)
	if err != nil {
		if StatusOf(err) == http.StatusNotFound {
			return nil // removed: no more lines
		}
		return engineError(err)
	}
	defer resp.Body.Close()
	err = demux(resp.Body, func(s runtime.Stream, line []byte) error {
		l := runtime.LogLine{Agent: a, Stream: s}
		if ts, text, ok := bytes.Cut(line, []byte(" ")); ok {
			if t, err := time.Parse(time.RFC3339Nano, string(ts)); err == nil {
				l.Time, line = t, text
			}
		}
		l.Text = string(line)
		return fn(l)
	})
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// demux splits the engine's multiplexed log stream (an 8-byte header: the
// stream, three zero bytes, the big-endian length of the frame) into
// lines, per stream; a last line without its end is given too.
func demux(r io.Reader, fn func(runtime.Stream, []byte) error) error {
	br := bufio.NewReaderSize(r, 32<<10)
	var partial [3][]byte
	var hdr [8]byte
	flush := func(i int, s runtime.Stream) error {
		if len(partial[i]) == 0 {
			return nil
		}
		line := partial[i]
		partial[i] = nil
		return fn(s, line)
	}
	streams := [3]runtime.Stream{runtime.Stdout, runtime.Stdout, runtime.Stderr}
	for {
		if _, err := io.ReadFull(br, hdr[:]); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		i := int(hdr[0])
		if i > 2 {
			return fmt.Errorf("engine log stream: unknown stream %d", hdr[0])
		}
		frame := make([]byte, binary.BigEndian.Uint32(hdr[4:]))
		if _, err := io.ReadFull(br, frame); err != nil {
			return err
		}
		for len(frame) > 0 {
			nl := bytes.IndexByte(frame, '\n')
			if nl < 0 {
				partial[i] = append(partial[i], frame...)
				break
			}
			line := append(partial[i], frame[:nl]...)
			partial[i] = nil
			frame = frame[nl+1:]
			if err := fn(streams[i], line); err != nil {
				return err
			}
		}
	}
	for i, s := range streams {
		if err := flush(i, s); err != nil {
			return err
		}
	}
	return nil
}

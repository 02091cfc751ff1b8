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
	"unicode/utf8"

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
	err = demux(resp.Body, runtime.MaxLogLine, func(l runtime.LogLine) error {
		l.Agent = a
		return fn(l)
	})
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// demux splits the engine's multiplexed log stream (an 8-byte header: the
// stream, three zero bytes, the big-endian length of the frame) into the
// lines the agent wrote, per stream. Each frame is one message of the
// engine, its timestamp first: a line the engine split (at 16 KiB) comes
// as several messages, each with its timestamp and only the last with the
// line's end; the messages are joined again, each timestamp taken out, and
// the line carries its first message's time. A line is kept up to max bytes
// (cut at a UTF-8 boundary; LogLine.Size says how long it was); a last line
// without its end is given too.
func demux(r io.Reader, max int, fn func(runtime.LogLine) error) error {
	br := bufio.NewReaderSize(r, 32<<10)
	type pending struct {
		text    []byte
		size    int
		time    time.Time
		started bool
	}
	var lines [3]pending
	streams := [3]runtime.Stream{runtime.Stdout, runtime.Stdout, runtime.Stderr}
	emit := func(i int) error {
		p := &lines[i]
		l := runtime.LogLine{Stream: streams[i], Time: p.time, Text: string(p.text)}
		if p.size > len(p.text) {
			l.Size = p.size
		}
		*p = pending{text: p.text[:0]}
		return fn(l)
	}
	var hdr [8]byte
	var frame []byte
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
		n := int(binary.BigEndian.Uint32(hdr[4:]))
		if cap(frame) < n {
			frame = make([]byte, n)
		}
		frame = frame[:n]
		if _, err := io.ReadFull(br, frame); err != nil {
			return err
		}
		p := &lines[i]
		rest := frame
		if ts, text, ok := bytes.Cut(rest, []byte(" ")); ok {
			if t, err := time.Parse(time.RFC3339Nano, string(ts)); err == nil {
				rest = text
				if !p.started {
					p.time = t
				}
			}
		}
		for {
			nl := bytes.IndexByte(rest, '\n')
			chunk := rest
			if nl >= 0 {
				chunk = rest[:nl]
			}
			p.started = true
			p.size += len(chunk)
			if room := max - len(p.text); room > 0 {
				if len(chunk) > room {
					chunk = chunk[:room]
				}
				p.text = append(p.text, chunk...)
				if p.size > max {
					p.text = trimRune(p.text)
				}
			}
			if nl < 0 {
				break
			}
			if err := emit(i); err != nil {
				return err
			}
			rest = rest[nl+1:]
			if len(rest) == 0 {
				break
			}
		}
	}
	for i := range lines {
		if lines[i].started {
			if err := emit(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// trimRune drops an incomplete UTF-8 sequence at b's end (a line cut in
// the middle of a character).
func trimRune(b []byte) []byte {
	for k := 1; k <= utf8.UTFMax && k <= len(b); k++ {
		c := b[len(b)-k]
		if !utf8.RuneStart(c) {
			continue
		}
		if !utf8.FullRune(b[len(b)-k:]) {
			return b[:len(b)-k]
		}
		break
	}
	return b
}

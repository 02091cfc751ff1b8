package prompter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// linePrompter is the accessible mode: one plain prompt at a time on
// stderr, numbered menus, one answer per line from stdin, no redrawing, so
// screen readers and scripts can follow it. It prints what huh's accessible
// mode prints, but is its own code: huh's takes a default silently when the
// input ends, cannot be interrupted, refuses an empty line in a
// multi-select and reads passwords only from a terminal.
//
//   - Select: a number; Enter takes the default.
//   - MultiSelect: a number toggles an option, 0 confirms; an empty line
//     accepts the selection shown.
//   - Input: a line; Enter takes the default.
//   - Confirm: y/yes or n/no; Enter takes the default.
//   - Password: a line, read without echo when stdin is a terminal.
type linePrompter struct {
	ios *iostreams.IOStreams
	ctx context.Context
	in  *lineSource // shared by every copy made by WithContext
}

func newLinePrompter(ios *iostreams.IOStreams, ctx context.Context) *linePrompter {
	return &linePrompter{ios: ios, ctx: ctx, in: newLineSource(ios.In)}
}

func (p *linePrompter) WithContext(ctx context.Context) Prompter {
	c := *p
	c.ctx = ctx
	return &c
}

func (p *linePrompter) printf(format string, args ...any) {
	fmt.Fprintf(p.ios.ErrOut, format, args...)
}

// line reads one answer, trimmed of surrounding space.
func (p *linePrompter) line(title, flag string) (string, error) {
	s, err := p.in.next(p.ctx, nil)
	if err != nil {
		return "", p.fail(title, flag, err)
	}
	return strings.TrimSpace(s), nil
}

func (p *linePrompter) fail(title, flag string, err error) error {
	if errors.Is(err, io.EOF) {
		p.printf("\n")
		return &InputEndedError{Title: title, Flag: flag}
	}
	return interruptedOr(p.ctx, title, err)
}

func (p *linePrompter) Select(title, flag, def string, options []Option) (string, error) {
	if err := p.ctx.Err(); err != nil {
		return "", interruptedOr(p.ctx, title, err)
	}
	defIdx := slices.IndexFunc(options, func(o Option) bool { return o.Value == def })
	if defIdx < 0 && len(options) > 0 {
		defIdx = 0
	}
	if defIdx >= 0 {
		p.printf("%s (Enter for %s)\n", title, options[defIdx].Label)
	} else {
		p.printf("%s\n", title)
	}
	for i, o := range options {
		p.printf("%d. %s\n", i+1, o.Label)
	}
	for {
		p.printf("Enter a number between 1 and %d: ", len(options))
		s, err := p.line(title, flag)
		if err != nil {
			return "", err
		}
		if s == "" && defIdx >= 0 {
			return options[defIdx].Value, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > len(options) {
			p.printf("Invalid: must be a number between 1 and %d\n", len(options))
			continue
		}
		return options[n-1].Value, nil
	}
}

func (p *linePrompter) MultiSelect(title, flag string, defs []string, options []Option, atLeastOne bool) ([]string, error) {
	if err := p.ctx.Err(); err != nil {
		return nil, interruptedOr(p.ctx, title, err)
	}
	selected := make([]bool, len(options))
	for i, o := range options {
		selected[i] = slices.Contains(defs, o.Value)
	}
	p.printf("%s (a number selects or unselects an option; 0 or Enter accepts the selection shown)\n", title)
	for {
		for i, o := range options {
			if selected[i] {
				p.printf("%d. ✓ %s\n", i+1, o.Label)
			} else {
				p.printf("%d.   %s\n", i+1, o.Label)
			}
		}
		p.printf("0.   Confirm selection\n")
		p.printf("Enter a number between 0 and %d: ", len(options))
		s, err := p.line(title, flag)
		if err != nil {
			return nil, err
		}
		n := 0
		if s != "" {
			n, err = strconv.Atoi(s)
			if err != nil || n < 0 || n > len(options) {
				p.printf("Invalid: must be a number between 0 and %d\n\n", len(options))
				continue
			}
		}
		if n > 0 {
			selected[n-1] = !selected[n-1]
			p.printf("\n")
			continue
		}
		chosen := []string{}
		for i, o := range options {
			if selected[i] {
				chosen = append(chosen, o.Value)
			}
		}
		if atLeastOne && len(chosen) == 0 {
			p.printf("Choose at least one.\n\n")
			continue
		}
		return chosen, nil
	}
}

func (p *linePrompter) Input(title, flag, def string, validate func(string) error) (string, error) {
	if err := p.ctx.Err(); err != nil {
		return "", interruptedOr(p.ctx, title, err)
	}
	prompt := title
	if def != "" {
		prompt += " (Enter for " + def + ")"
	}
	for {
		p.printf("%s: ", prompt)
		s, err := p.line(title, flag)
		if err != nil {
			return "", err
		}
		if s == "" {
			s = def
		}
		if validate != nil {
			if err := validate(s); err != nil {
				p.printf("%v\n", err)
				continue
			}
		}
		return s, nil
	}
}

func (p *linePrompter) Password(title, flag string) (string, error) {
	if err := p.ctx.Err(); err != nil {
		return "", interruptedOr(p.ctx, title, err)
	}
	p.printf("%s: ", title)
	var s string
	var err error
	if f, ok := p.ios.In.(*os.File); ok && p.ios.IsStdinTTY() {
		s, err = p.in.password(p.ctx, int(f.Fd()))
	} else {
		// Not a terminal: nothing echoes what is piped in.
		s, err = p.in.next(p.ctx, nil)
	}
	p.printf("\n")
	if err != nil {
		return "", p.fail(title, flag, err)
	}
	return strings.TrimRight(s, "\r"), nil
}

func (p *linePrompter) Confirm(title, flag string, def bool) (bool, error) {
	if err := p.ctx.Err(); err != nil {
		return false, interruptedOr(p.ctx, title, err)
	}
	hint := "[y/N]"
	if def {
		hint = "[Y/n]"
	}
	for {
		p.printf("%s %s ", title, hint)
		s, err := p.line(title, flag)
		if err != nil {
			return false, err
		}
		switch strings.ToLower(s) {
		case "":
			return def, nil
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		p.printf("Invalid: answer y or n\n")
	}
}

// lineSource reads stdin one line per request, a byte at a time, so that it
// never consumes input beyond the answer it was asked for (what follows may
// be read by someone else). Reads run on a goroutine so that a question ends
// at once when its context does; the read then stays pending and its line
// goes to the next question.
type lineSource struct {
	r       io.Reader
	mu      sync.Mutex
	pending chan lineResult // a read in flight, or nil
}

type lineResult struct {
	line string
	err  error
}

func newLineSource(r io.Reader) *lineSource { return &lineSource{r: r} }

// next returns the next line without its newline. io.EOF means the input
// ended before any byte of a line; a last line without a newline is a line.
func (s *lineSource) next(ctx context.Context, read func() (string, error)) (string, error) {
	s.mu.Lock()
	if s.pending == nil {
		ch := make(chan lineResult, 1)
		if read == nil {
			read = s.readLine
		}
		go func() {
			l, err := read()
			ch <- lineResult{l, err}
		}()
		s.pending = ch
	}
	ch := s.pending
	s.mu.Unlock()
	select {
	case res := <-ch:
		s.mu.Lock()
		s.pending = nil
		s.mu.Unlock()
		return res.line, res.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (s *lineSource) readLine() (string, error) {
	var b []byte
	var c [1]byte
	for {
		n, err := s.r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return strings.TrimRight(string(b), "\r"), nil
			}
			b = append(b, c[0])
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) > 0 {
				return string(b), nil
			}
			return "", err
		}
	}
}

// password reads a line from the terminal fd with echo off. When ctx ends
// first, the terminal's state is restored (echo back on) before returning.
func (s *lineSource) password(ctx context.Context, fd int) (string, error) {
	state, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	line, err := s.next(ctx, func() (string, error) {
		b, err := term.ReadPassword(fd)
		if err != nil {
			return "", err
		}
		return string(b), nil
	})
	if ctx.Err() != nil {
		_ = term.Restore(fd, state)
	}
	return line, err
}

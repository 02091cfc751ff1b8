// Package prompter asks the user questions for every botkit command: with
// huh's full-screen forms on a terminal, with plain numbered line prompts in
// accessible mode (--accessible, ACCESSIBLE=1), and through a scripted fake
// in tests (NewFake).
//
// Callers decide whether they may prompt at all (iostreams.CanPrompt, or an
// explicit --accessible); a Prompter never checks that itself.
package prompter

import (
	"context"
	"errors"
	"fmt"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Option is one choice of a Select or MultiSelect: Value is what the answer
// holds (a flag value), Label what the user sees.
type Option struct {
	Value string
	Label string
}

// Prompter asks questions. flag names the command-line flag that answers the
// question without a prompt (for the error when input ends early). Every
// method returns an error matching context.Canceled (errors.Is) when the
// user pressed Ctrl-C or the context of WithContext ended, and an
// *InputEndedError naming flag (exit 2) when the input ended before an
// answer.
type Prompter interface {
	// Select asks for one of options; def is the value preselected.
	Select(title, flag, def string, options []Option) (string, error)
	// MultiSelect asks for any number of options; defs are preselected.
	// atLeastOne refuses an empty answer.
	MultiSelect(title, flag string, defs []string, options []Option, atLeastOne bool) ([]string, error)
	// Input asks for a line of text; an empty answer is def. validate (may
	// be nil) rejects answers with an error shown to the user, who is asked
	// again.
	Input(title, flag, def string, validate func(string) error) (string, error)
	// Password asks for a secret without echoing it. The answer is never
	// shown, logged or put into an error.
	Password(title, flag string) (string, error)
	// Confirm asks a yes/no question.
	Confirm(title, flag string, def bool) (bool, error)
	// WithContext returns a Prompter whose questions end at once with an
	// error matching context.Canceled when ctx is done. Commands pass the
	// context of their run (cancelled on SIGINT/SIGTERM): in accessible
	// mode the terminal is not in raw mode, so Ctrl-C reaches the process
	// as a signal, not as a key the prompt sees.
	WithContext(ctx context.Context) Prompter
}

// New returns the prompter of a command invocation: accessible line prompts
// when accessible is set, huh's full-screen forms otherwise. Prompts go to
// ios.ErrOut, answers come from ios.In.
func New(ios *iostreams.IOStreams, accessible bool) Prompter {
	if accessible {
		return newLinePrompter(ios, context.Background())
	}
	return &huhPrompter{ios: ios, ctx: context.Background()}
}

// InputEndedError is returned when the input ended (EOF, Ctrl-D) before a
// question was answered. It is invalid input: exit 2.
type InputEndedError struct {
	Title string // the question
	Flag  string // the flag(s) that answer it instead
}

func (e *InputEndedError) Error() string {
	if e.Flag == "" {
		return fmt.Sprintf("input ended before %q was answered", e.Title)
	}
	return fmt.Sprintf("input ended before %q was answered; answer every question, or give %s", e.Title, e.Flag)
}

// ErrorCode makes the error invalid input (cmdutil.Coded: exit 2).
func (e *InputEndedError) ErrorCode() string { return resources.CodeInvalid }

// InterruptedError is returned when the user interrupted a question (Ctrl-C,
// SIGTERM). It matches context.Canceled (exit 130).
type InterruptedError struct{ Title string }

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted at %q", e.Title)
}

// Is makes errors.Is(err, context.Canceled) true.
func (e *InterruptedError) Is(target error) bool { return target == context.Canceled }

// interruptedOr returns an InterruptedError when ctx is done, else err.
func interruptedOr(ctx context.Context, title string, err error) error {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return &InterruptedError{Title: title}
	}
	return err
}

// labelOf returns the label of the option whose value is v, or v.
func labelOf(options []Option, v string) string {
	for _, o := range options {
		if o.Value == v {
			return o.Label
		}
	}
	return v
}

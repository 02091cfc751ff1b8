// Package cmdutil holds what every botkit command shares: exit codes, error
// kinds that map to them, and the factory of dependencies.
package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/botkit-dev/botkit/pkg/dotenv"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// Exit codes of every command (DESIGN §3).
const (
	ExitOK          = 0
	ExitError       = 1 // runtime failure; diff: differences found
	ExitUsage       = 2 // usage or invalid input
	ExitNotFound    = 3
	ExitAuth        = 4
	ExitConflict    = 5
	ExitInterrupted = 130
)

// ExitError is an error that carries the exit code the process ends with.
// Problems, when set, are printed one per line instead of Err.
type exitError struct {
	code     int
	err      error
	problems []string
}

func (e *exitError) Error() string {
	if len(e.problems) > 0 {
		return strings.Join(e.problems, "; ")
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// WithCode wraps err so that the command exits with code.
func WithCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// UsageErrorf is an invalid-input error (exit 2).
func UsageErrorf(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// Problems is an invalid-input error made of several problems, each printed
// on its own line (exit 2).
func Problems(problems []string) error {
	p := append([]string(nil), problems...)
	return &exitError{code: ExitUsage, err: errors.New(strings.Join(p, "; ")), problems: p}
}

// SilentError ends the command with code and prints nothing more (the
// command already said what it had to say).
type SilentError struct{ Code int }

func (e SilentError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode returns the exit code for err.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var s SilentError
	if errors.As(err, &s) {
		return s.Code
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	if isInvalidInput(err) {
		return ExitUsage
	}
	return ExitError
}

// isInvalidInput reports whether err is one of the typed invalid-input errors
// of the leaf packages (exit 2): the one list of them.
func isInvalidInput(err error) bool {
	var (
		unknownFormat *printers.UnknownFormatError
		dotenvSyntax  *dotenv.ParseError
	)
	return errors.As(err, &unknownFormat) || errors.As(err, &dotenvSyntax)
}

// ErrorLines returns the lines to print for err, each without the "error: "
// prefix. A SilentError prints nothing.
func ErrorLines(err error) []string {
	if err == nil {
		return nil
	}
	var s SilentError
	if errors.As(err, &s) {
		return nil
	}
	var e *exitError
	if errors.As(err, &e) && len(e.problems) > 0 {
		return append([]string(nil), e.problems...)
	}
	return []string{err.Error()}
}

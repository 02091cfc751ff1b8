// Package cmdutil holds what every command shares — botkit's and
// botkit-platform's: exit codes, the typed errors that map to them, cobra
// argument validators, and the factory of dependencies.
package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// Exit codes of every command; what each means is ExitCodes (help.go).
const (
	ExitOK          = 0
	ExitError       = 1 // runtime failure; diff: differences found
	ExitUsage       = 2 // usage or invalid input
	ExitNotFound    = 3
	ExitAuth        = 4
	ExitConflict    = 5
	ExitInterrupted = 130
)

// exitByCode is the one mapping from domain error codes (the platform API's
// error codes, resources.Code*) to exit codes. Every domain error that
// implements Coded — API errors of pkg/client, the platform's admin errors,
// parse errors of the CLI's own inputs — goes through it.
var exitByCode = map[string]int{
	resources.CodeInvalid:         ExitUsage,
	resources.CodeTooLarge:        ExitUsage,
	resources.CodeUnauthenticated: ExitAuth,
	resources.CodeForbidden:       ExitAuth,
	resources.CodeNotFound:        ExitNotFound,
	resources.CodeConflict:        ExitConflict,
	resources.CodeInternal:        ExitError,
	resources.CodeUnavailable:     ExitError,
	resources.CodeUnprocessable:   ExitError,
	resources.CodeAtCapacity:      ExitError,
}

// Coded is implemented by domain errors that carry one of the error codes of
// resources (CodeInvalid, CodeNotFound, ...). ExitCode maps the code.
type Coded interface {
	error
	ErrorCode() string
}

// FlagError is a bad flag or flag value (exit 2).
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf returns a FlagError.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// ArgsError is a wrong number or kind of positional arguments, or an unknown
// command (exit 2).
type ArgsError struct{ Err error }

func (e *ArgsError) Error() string { return e.Err.Error() }
func (e *ArgsError) Unwrap() error { return e.Err }

// exitError is an error that carries the exit code the process ends with.
// Problems, when set, are printed one per line instead of Err. Details are
// printed as they are under the error's line (ErrorDetails).
type exitError struct {
	code     int
	err      error
	problems []string
	details  []string
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

// UsageErrorDetails is an invalid-input error (exit 2) whose one line is
// followed by details, printed as they are without the "error: " prefix
// (the files of a conflict, one per line).
func UsageErrorDetails(details []string, format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...), details: append([]string(nil), details...)}
}

// WithDetails wraps err so that the command exits with code and prints
// details as they are under err's "error: " line (a failed rollout's log
// lines).
func WithDetails(code int, err error, details []string) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err, details: append([]string(nil), details...)}
}

// ErrorDetails returns the lines Execute prints as they are after err's
// "error: " lines (UsageErrorDetails), or nil.
func ErrorDetails(err error) []string {
	var e *exitError
	if errors.As(err, &e) {
		return append([]string(nil), e.details...)
	}
	return nil
}

// SilentError ends the command with code and prints nothing more (the
// command already said what it had to say).
type SilentError struct{ Code int }

func (e SilentError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode returns the exit code for err. It is the only place where errors
// become exit codes; it recognises errors by type, never by text.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var s SilentError
	if errors.As(err, &s) {
		return s.Code
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	var fe *FlagError
	var ae *ArgsError
	if errors.As(err, &fe) || errors.As(err, &ae) {
		return ExitUsage
	}
	var c Coded
	if errors.As(err, &c) {
		if code, ok := exitByCode[c.ErrorCode()]; ok {
			return code
		}
	}
	return ExitError
}

// LinesError is an error made of several problems that prints one line per
// problem (each as "error: ...") and keeps its own exit code (through Coded
// or what it wraps): the per-file problems of manifests, the per-object
// failures of an apply.
type LinesError interface {
	error
	Lines() []string
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
	var le LinesError
	if errors.As(err, &le) {
		if lines := le.Lines(); len(lines) > 0 {
			return lines
		}
	}
	return []string{err.Error()}
}

package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"syscall"
	"testing"

	"github.com/botkit-dev/botkit/pkg/dotenv"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

func TestExitCodes(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitError},
		{UsageErrorf("bad %s", "flag"), ExitUsage},
		{WithCode(ExitNotFound, errors.New("gone")), ExitNotFound},
		{fmt.Errorf("wrapped: %w", WithCode(ExitConflict, errors.New("taken"))), ExitConflict},
		{context.Canceled, ExitInterrupted},
		{SilentError{Code: 4}, 4},
		{Problems([]string{"a", "b"}), ExitUsage},
		{CheckEnum("output", "jsn", []string{"json"}), ExitUsage},
		{fmt.Errorf("--file: %w", &dotenv.ParseError{File: ".env", Line: 3, Msg: "expected KEY=value"}), ExitUsage},
	}
	for _, c := range cases {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func TestErrorLines(t *testing.T) {
	if got := ErrorLines(Problems([]string{"one", "two"})); !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Errorf("problems: %v", got)
	}
	if got := ErrorLines(SilentError{Code: 1}); got != nil {
		t.Errorf("silent: %v", got)
	}
	if got := ErrorLines(UsageErrorf("x")); !reflect.DeepEqual(got, []string{"x"}) {
		t.Errorf("usage: %v", got)
	}
	// A LinesError prints its lines and keeps its own exit code.
	le := fmt.Errorf("wrapped: %w", testLines{})
	if got := ErrorLines(le); !reflect.DeepEqual(got, []string{"a: bad", "b: worse"}) {
		t.Errorf("lines: %v", got)
	}
	if got := ExitCode(le); got != ExitConflict {
		t.Errorf("lines error exit %d, want %d", got, ExitConflict)
	}
}

type testLines struct{}

func (testLines) Error() string     { return "a: bad (and 1 more)" }
func (testLines) Lines() []string   { return []string{"a: bad", "b: worse"} }
func (testLines) ErrorCode() string { return resources.CodeConflict }

func TestExitCodeByTypeNotText(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		// An OS error whose text reads like a cobra usage error is a runtime failure.
		{"os invalid argument", &os.PathError{Op: "open", Path: "x", Err: syscall.EINVAL}, ExitError},
		{"text mentions unknown flag", errors.New("unknown flag: --x"), ExitError},
		{"flag error", FlagErrorf("--output: bad"), ExitUsage},
		{"args error", fmt.Errorf("wrapped: %w", &ArgsError{Err: errors.New("expected NAME")}), ExitUsage},
		{"invalid", &resources.Error{Code: resources.CodeInvalid}, ExitUsage},
		{"too large", &resources.Error{Code: resources.CodeTooLarge}, ExitUsage},
		{"unauthenticated", &resources.Error{Code: resources.CodeUnauthenticated}, ExitAuth},
		{"forbidden", &resources.Error{Code: resources.CodeForbidden}, ExitAuth},
		{"not found", fmt.Errorf("x: %w", &resources.Error{Code: resources.CodeNotFound}), ExitNotFound},
		{"conflict", &resources.Error{Code: resources.CodeConflict}, ExitConflict},
		{"internal", &resources.Error{Code: resources.CodeInternal}, ExitError},
		{"unknown code", &resources.Error{Code: "teapot"}, ExitError},
		{"prompt input ended", fmt.Errorf("x: %w", &prompter.InputEndedError{Title: "Q", Flag: "--name"}), ExitUsage},
		{"prompt interrupted", &prompter.InterruptedError{Title: "Q"}, ExitInterrupted},
	}
	for _, c := range cases {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("%s: ExitCode = %d, want %d", c.name, got, c.want)
		}
	}
}

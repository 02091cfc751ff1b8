package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/botkit-dev/botkit/pkg/dotenv"
	"github.com/botkit-dev/botkit/pkg/printers"
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
		{&printers.UnknownFormatError{Format: "jsn", Valid: printers.Formats()}, ExitUsage},
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
}

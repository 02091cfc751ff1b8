package cmdutil

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// An error's text may come from a server: printed, it holds no terminal
// escape (a hostile platform's message cannot clear the screen or write the
// clipboard), and its code still decides the exit code.
func TestExecutePrintsErrorsWithoutEscapes(t *testing.T) {
	hostile := "denied\x1b]52;c;aGVsbG8=\x07\x1b[2J\nsecond line\u009b31m"
	root := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error {
		return &resources.Error{Code: resources.CodeForbidden, Message: hostile}
	}}
	ios, _, _, errOut := iostreams.Test()
	code := Execute(context.Background(), root, ios, nil)
	if code != ExitAuth {
		t.Errorf("exit %d, want %d", code, ExitAuth)
	}
	got := errOut.String()
	if strings.ContainsAny(got, "\x1b\x07\u009b") || strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "error: denied ") {
		t.Errorf("stderr %q", got)
	}
}

// An error with details prints "error:" once, then the details as they are.
func TestExecutePrintsDetailsUnderOneErrorLine(t *testing.T) {
	root := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error {
		return UsageErrorDetails([]string{"  a.txt", "  b/c.txt"}, "%s holds files", "dir")
	}}
	ios, _, out, errOut := iostreams.Test()
	code := Execute(context.Background(), root, ios, nil)
	want := "error: dir holds files\n  a.txt\n  b/c.txt\n"
	if code != ExitUsage || errOut.String() != want || out.Len() != 0 {
		t.Errorf("exit %d stderr %q stdout %q; want exit 2 and %q", code, errOut.String(), out.String(), want)
	}
}

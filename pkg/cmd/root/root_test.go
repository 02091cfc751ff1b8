package root

import (
	"context"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

func run(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cloudutil.Factory{Factory: &cmdutil.Factory{IOStreams: ios, Getenv: func(string) string { return "" }, WorkingDir: func() (string, error) { return t.TempDir(), nil }}}
	code := Run(ctx, f, args)
	return code, out.String(), errOut.String()
}

func TestRunExitCodesAndErrorLines(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"frobnicate"}, cmdutil.ExitUsage, `error: unknown command "frobnicate" for "botkit"`},
		{[]string{"create", "quickstart", "x", "y"}, cmdutil.ExitUsage, "error: botkit create quickstart: "},
		{[]string{"create", "--bogus"}, cmdutil.ExitUsage, "error: unknown flag: --bogus"},
		{[]string{"create", "a", "b"}, cmdutil.ExitUsage, "error: botkit create: accepts at most 1 arg(s), received 2"},
		{[]string{"create"}, cmdutil.ExitUsage, "error: no terminal to run the wizard on: give --name or --config"},
		{[]string{"create", "--name", "x", "-t", "nope", "--realtime", "nope"}, cmdutil.ExitUsage, "error: --transport (transports): unknown transport \"nope\""},
	}
	for _, c := range cases {
		code, out, errOut := run(t, context.Background(), c.args...)
		if code != c.code || !strings.Contains(errOut, c.stderr) || out != "" {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit %d and %q", c.args, code, out, errOut, c.code, c.stderr)
		}
		for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
			if !strings.HasPrefix(line, "error: ") {
				t.Errorf("%v: stderr line without the error prefix: %q", c.args, line)
			}
		}
	}
}

func TestRunInterruptedExits130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, out, errOut := run(t, ctx, "create", "quickstart")
	if code != cmdutil.ExitInterrupted || out != "" || errOut != "" {
		t.Fatalf("exit %d stdout %q stderr %q, want 130 and nothing printed", code, out, errOut)
	}
}

func TestListOptionsIsJSONOnStdout(t *testing.T) {
	code, out, errOut := run(t, context.Background(), "create", "--list-options")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "{") || !strings.Contains(out, `"deepgram_stt"`) {
		t.Fatalf("exit %d stdout %.80q stderr %q", code, out, errOut)
	}
}

// `botkit version` prints what --version prints; a mistyped group gets a
// suggestion and stays exit 2.
func TestVersionAndSuggestions(t *testing.T) {
	code, out, errOut := run(t, context.Background(), "version")
	_, flagOut, _ := run(t, context.Background(), "--version")
	if code != 0 || errOut != "" || out != flagOut || !strings.HasPrefix(out, "botkit version ") {
		t.Errorf("version: exit %d stdout %q stderr %q; --version %q", code, out, errOut, flagOut)
	}
	code, _, errOut = run(t, context.Background(), "cloud", "secret", "list")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "did you mean secrets?") {
		t.Errorf("cloud secret: exit %d stderr %q", code, errOut)
	}
}

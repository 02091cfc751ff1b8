package factory

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmd/root"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// On the local context with no botkit-platform serve --local, the commands
// that start and stop sessions say the command to run, and exit 1.
func TestSessionCommandsWithNothingServing(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"DOCKER_HOST": "unix://" + filepath.Join(home, "no-engine.sock")}
	for _, args := range [][]string{
		{"cloud", "agents", "start", "bot"},
		{"cloud", "agents", "start", "bot", "--transport", "websocket", "--data", `{"k":"v"}`},
		{"cloud", "agents", "stop", "bot", "--session", "ses_" + strings.Repeat("a", 26), "--skip"},
	} {
		ios, _, out, errOut := iostreams.Test()
		f := New(ios)
		f.Getenv = func(k string) string { return env[k] }
		f.Credentials = emptyStore{}
		code := root.Run(context.Background(), f, args)
		if code != cmdutil.ExitError || out.Len() != 0 ||
			errOut.String() != "error: sessions need a platform that outlives this command: run `botkit-platform serve --local` (in another terminal)\n" {
			t.Errorf("botkit %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errOut)
		}
		_ = f.Close() // error ignored: nothing was opened
	}
}

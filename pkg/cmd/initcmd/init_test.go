package initcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/agentsguide"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

func try(dir string, force bool) (string, string, error) {
	ios, _, out, errOut := iostreams.Test()
	err := Run(context.Background(), &Options{IO: ios, Dir: dir, Force: force, Version: "v9"})
	return out.String(), errOut.String(), err
}

// run is try, failing t on an error; it returns stdout.
func run(t *testing.T, dir string, force bool) string {
	t.Helper()
	out, _, err := try(dir, force)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Run without cobra: created, unchanged, refreshed when botkit's guide is
// stale and unedited, kept when edited or foreign unless --force; missing
// project files are named on stderr.
func TestInit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("server/bot.py", "transport_params = {\n    \"webrtc\": lambda: TransportParams(),\n}\n")
	out, errOut, err := try(dir, false)
	if err != nil || out != "AGENTS.md created\nCLAUDE.md created\n" || !strings.Contains(errOut, "left out of the guide: server/pyproject.toml, server/.env.example") {
		t.Fatalf("first run: %q %q %v", out, errOut, err)
	}
	if out := run(t, dir, false); out != "AGENTS.md unchanged\nCLAUDE.md unchanged\n" {
		t.Errorf("second run: %q", out)
	}
	// The project changed: the unedited guide is refreshed.
	write("server/.env.example", "OPENAI_API_KEY=\n")
	if out := run(t, dir, false); out != "AGENTS.md refreshed\nCLAUDE.md unchanged\n" {
		t.Errorf("after a change: %q", out)
	}
	guide, err := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
	if err != nil || !strings.Contains(string(guide), "`OPENAI_API_KEY`") || agentsguide.State(guide) != agentsguide.Unedited {
		t.Fatalf("refreshed guide: %v\n%s", err, guide)
	}
	// Edited, or someone else's: kept; --force rewrites.
	write("AGENTS.md", string(guide)+"our note\n")
	write("CLAUDE.md", "# our Claude notes\n")
	out = run(t, dir, false)
	if out != "AGENTS.md kept: edited since botkit wrote it (--force rewrites it)\nCLAUDE.md kept: botkit did not write it (--force replaces it); add a line @AGENTS.md to it so Claude Code reads the guide\n" {
		t.Errorf("edited: %q", out)
	}
	if out := run(t, dir, true); out != "AGENTS.md overwritten (--force)\nCLAUDE.md overwritten (--force)\n" {
		t.Errorf("--force: %q", out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "CLAUDE.md")); err != nil || string(b) != agentsguide.ClaudeContent {
		t.Errorf("CLAUDE.md after --force: %q, %v", b, err)
	}
	// Not a directory: a usage error.
	_, _, err = try(filepath.Join(dir, "server", "bot.py"), false)
	var fe *cmdutil.FlagError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("a file as DIR: %v", err)
	}
}

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

// A directory with no project is refused (exit 2) naming what init looked
// for, and nothing is written; --force writes the guide anyway.
func TestInitRefusesNoProject(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := try(dir, false)
	var fe *cmdutil.FlagError
	if !errors.As(err, &fe) || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "no bot project here (looked for server/bot.py, bot.py)") || out != "" {
		t.Fatalf("no project: %q %v", out, err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Errorf("written in a directory without a project: %v, %v", entries, err)
	}
	if out := run(t, dir, true); out != "AGENTS.md created\nCLAUDE.md created\n" {
		t.Errorf("--force: %q", out)
	}
	// A bot at the root is a project.
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte("print()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run(t, dir, false); out != "AGENTS.md created\nCLAUDE.md created\n" {
		t.Errorf("bot.py at the root: %q", out)
	}
}

// A guide converted to CRLF is still botkit's, unedited: unchanged while
// the project is, refreshed (in CRLF) when it changes; CLAUDE.md as a link
// to AGENTS.md is kept as it is, --force too, and the guide is untouched.
func TestInitCRLFAndClaudeLink(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "server"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server", "bot.py"), []byte("print()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, false)
	guidePath := filepath.Join(dir, "AGENTS.md")
	guide, err := os.ReadFile(guidePath)
	if err != nil {
		t.Fatal(err)
	}
	crlf := strings.ReplaceAll(string(guide), "\n", "\r\n")
	if err := os.WriteFile(guidePath, []byte(crlf), 0o644); err != nil {
		t.Fatal(err)
	}
	if agentsguide.State([]byte(crlf)) != agentsguide.Unedited {
		t.Errorf("a CRLF guide: %s", agentsguide.State([]byte(crlf)))
	}
	if out := run(t, dir, false); out != "AGENTS.md unchanged\nCLAUDE.md unchanged\n" {
		t.Errorf("CRLF, project unchanged: %q", out)
	}
	if err := os.WriteFile(filepath.Join(dir, "server", ".env.example"), []byte("OPENAI_API_KEY=\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run(t, dir, false); out != "AGENTS.md refreshed\nCLAUDE.md unchanged\n" {
		t.Errorf("CRLF, project changed: %q", out)
	}
	b, err := os.ReadFile(guidePath)
	if err != nil || !strings.Contains(string(b), "`OPENAI_API_KEY`") || strings.Count(string(b), "\n") != strings.Count(string(b), "\r\n") {
		t.Errorf("refreshed CRLF guide: %v %q", err, b)
	}

	claude := filepath.Join(dir, "CLAUDE.md")
	if err := os.Remove(claude); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("AGENTS.md", claude); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(guidePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		out := run(t, dir, force)
		if !strings.HasSuffix(out, "CLAUDE.md unchanged: a link to AGENTS.md\n") {
			t.Errorf("force %v: %q", force, out)
		}
		if target, err := os.Readlink(claude); err != nil || target != "AGENTS.md" {
			t.Errorf("force %v: the link is now %q, %v", force, target, err)
		}
		if after, err := os.ReadFile(guidePath); err != nil || agentsguide.State(after) != agentsguide.Unedited || !strings.Contains(string(after), "`OPENAI_API_KEY`") {
			t.Errorf("force %v: the guide through the link: %q, %v (before %d bytes)", force, after, err, len(before))
		}
	}
}

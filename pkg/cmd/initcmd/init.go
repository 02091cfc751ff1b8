// Package initcmd is `botkit init`: it makes an existing project ready for
// AI coding agents by writing AGENTS.md (and a CLAUDE.md that includes it)
// from the project's own files (pkg/agentsguide).
package initcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/botkit-dev/botkit/internal/atomicfile"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/agentsguide"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// Options are the inputs of `botkit init`.
type Options struct {
	IO      *iostreams.IOStreams
	Dir     string
	Force   bool
	Version string // botkit's, in the guide's footer
}

// CmdSummary is what `botkit --help` lists of `botkit init`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var CmdSummary = cmdutil.Summary{
	Use:   "init [DIR]",
	Short: "Write AGENTS.md, the guide AI coding agents read, from the project",
}

// NewCmdInit returns `botkit init`.
func NewCmdInit(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Version: cmdutil.BuildVersion()}
	cmd := &cobra.Command{
		Use:   CmdSummary.Use,
		Short: CmdSummary.Short,
		Long: `Write AGENTS.md into the project in DIR (default .), and a CLAUDE.md that
includes it, describing THIS project for AI coding assistants: its layout, how
to run it locally with the transports it has, the services it uses and the keys
each needs (from .env.example), its deployment (from cloud-deploy.toml) with
the botkit commands for secrets, preflight and evals, and the rules an agent
must keep (never print or commit a value; keys go in the secret set).

It reads what is there, in a project botkit create made or not; what it cannot
find, it leaves out and says so. A guide botkit wrote and nobody edited is
refreshed in place; an edited one, or a file botkit did not write, is kept
unless --force.`,
		Example: `  botkit init
  botkit init ./my-bot --force`,
		Args: cmdutil.RangeArgs(0, 1, "at most one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "Overwrite an edited AGENTS.md or a CLAUDE.md botkit did not write; write a guide where no project is found")
	return cmd
}

// Run runs `botkit init`.
func Run(ctx context.Context, opts *Options) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st, err := os.Stat(opts.Dir)
	if err != nil {
		return cmdutil.FlagErrorf("DIR %s: %v", opts.Dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return cmdutil.FlagErrorf("DIR %s is not a directory", opts.Dir)
	}
	abs, err := filepath.Abs(opts.Dir)
	if err != nil {
		return err
	}
	p := agentsguide.Inspect(os.DirFS(opts.Dir), filepath.Base(abs))
	if !p.Found() && !opts.Force {
		return cmdutil.FlagErrorf("DIR %s: no bot project here (looked for %s): give the project's directory, or --force to write a guide anyway", opts.Dir, strings.Join(agentsguide.ProjectFiles, ", "))
	}
	if len(p.NotFound) > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "Not found, so left out of the guide: %s\n", strings.Join(p.NotFound, ", "))
	}
	guide := agentsguide.Render(p, opts.Version)
	if err := writeGuide(opts, guide); err != nil {
		return err
	}
	return writeClaude(opts)
}

func read(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

func writeGuide(opts *Options, guide []byte) error {
	path := filepath.Join(opts.Dir, agentsguide.GuideFile)
	existing, err := read(path)
	if err != nil {
		return err
	}
	if bytes.Contains(existing, []byte("\r\n")) {
		// Keep the file's line endings (a checkout with CRLF).
		guide = bytes.ReplaceAll(guide, []byte("\n"), []byte("\r\n"))
	}
	var action string
	switch state := agentsguide.State(existing); {
	case state == agentsguide.Absent:
		action = "created"
	case bytes.Equal(existing, guide):
		action = "unchanged"
	case state == agentsguide.Unedited:
		action = "refreshed"
	case opts.Force:
		action = "overwritten (--force)"
	case state == agentsguide.Edited:
		fmt.Fprintf(opts.IO.Out, "%s kept: edited since botkit wrote it (--force rewrites it)\n", agentsguide.GuideFile)
		return nil
	default:
		fmt.Fprintf(opts.IO.Out, "%s kept: botkit did not write it (--force replaces it)\n", agentsguide.GuideFile)
		return nil
	}
	if action != "unchanged" {
		if err := atomicfile.Write(path, guide, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(opts.IO.Out, "%s %s\n", agentsguide.GuideFile, action)
	return nil
}

func writeClaude(opts *Options) error {
	path := filepath.Join(opts.Dir, agentsguide.ClaudeFile)
	if linksToGuide(opts.Dir, path) {
		// CLAUDE.md -> AGENTS.md: Claude Code reads the guide itself. Kept,
		// also with --force (writing through it would overwrite the guide).
		fmt.Fprintf(opts.IO.Out, "%s unchanged: a link to %s\n", agentsguide.ClaudeFile, agentsguide.GuideFile)
		return nil
	}
	existing, err := read(path)
	if err != nil {
		return err
	}
	switch {
	case string(existing) == agentsguide.ClaudeContent:
		fmt.Fprintf(opts.IO.Out, "%s unchanged\n", agentsguide.ClaudeFile)
		return nil
	case existing != nil && !opts.Force:
		note := ""
		if !bytes.Contains(existing, []byte("@"+agentsguide.GuideFile)) {
			note = "; add a line @" + agentsguide.GuideFile + " to it so Claude Code reads the guide"
		}
		fmt.Fprintf(opts.IO.Out, "%s kept: botkit did not write it (--force replaces it)%s\n", agentsguide.ClaudeFile, note)
		return nil
	}
	action := "created"
	if existing != nil {
		action = "overwritten (--force)"
	}
	if err := atomicfile.Write(path, []byte(agentsguide.ClaudeContent), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "%s %s\n", agentsguide.ClaudeFile, action)
	return nil
}

// linksToGuide reports whether path is a symbolic link whose target is
// the guide of dir (AGENTS.md beside it, however the link writes it).
func linksToGuide(dir, path string) bool {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	target, err := os.Stat(path)
	if err != nil {
		return false
	}
	guide, err := os.Stat(filepath.Join(dir, agentsguide.GuideFile))
	return err == nil && os.SameFile(target, guide)
}

// Package root builds botkit's root command and runs it.
package root

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/create"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
)

// Version is set at build time with -ldflags.
var Version = "dev"

// NewCmdRoot returns the botkit command tree.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "botkit <command> <subcommand> [flags]",
		Short: "Scaffold Pipecat voice bots and manage their secrets",
		Long: `botkit scaffolds voice and conversational bots on the Pipecat framework and
manages the secret sets and image pull secrets they run with.`,
		Example: `  botkit create quickstart
  botkit create my-bot --bot-type web -t smallwebrtc --stt deepgram_stt --llm openai_llm --tts cartesia_tts
  botkit create --list-options`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       Version,
	}
	cmd.SetOut(f.IOStreams.Out)
	cmd.SetErr(f.IOStreams.ErrOut)
	cmd.SetIn(f.IOStreams.In)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cmdutil.UsageErrorf("%s (see '%s --help')", err, c.CommandPath())
	})
	cmd.CompletionOptions.HiddenDefaultCmd = true
	cmd.AddCommand(create.NewCmdCreate(f, nil))
	return cmd
}

// Run executes botkit with args and returns the process exit code. Errors
// are printed to stderr as "error: ...", one line per problem.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) int {
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	if ctx.Err() != nil && !errors.Is(err, context.Canceled) {
		err = cmdutil.WithCode(cmdutil.ExitInterrupted, err)
	}
	code := cmdutil.ExitCode(err)
	if isCobraUsageError(err) {
		code = cmdutil.ExitUsage
	}
	for _, line := range cmdutil.ErrorLines(err) {
		fmt.Fprintf(f.IOStreams.ErrOut, "error: %s\n", line)
	}
	return code
}

// isCobraUsageError recognises the argument errors cobra returns itself.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires exactly", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, " "+p) {
			return true
		}
	}
	return false
}

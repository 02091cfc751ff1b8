// Package root builds botkit's root command and runs it.
package root

import (
	"context"
	"fmt"
	"strings"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/auth"
	"github.com/botkit-dev/botkit/pkg/cmd/cloud"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmd/configcmd"
	"github.com/botkit-dev/botkit/pkg/cmd/create"
	"github.com/botkit-dev/botkit/pkg/cmd/deploy"
	"github.com/botkit-dev/botkit/pkg/cmd/initcmd"
	"github.com/botkit-dev/botkit/pkg/cmd/manifests"
	"github.com/botkit-dev/botkit/pkg/cmd/preflight"
	"github.com/botkit-dev/botkit/pkg/cmd/seal"
	"github.com/botkit-dev/botkit/pkg/cmd/version"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
)

// command is one of botkit's top-level commands: what the root lists of it
// (its package's Summary, which its constructor uses too) and how to build
// it. commands is the one list of them.
type command struct {
	summary *cmdutil.Summary
	build   func(f *cloudutil.Factory) *cobra.Command
	// topic: a help topic (`botkit help exit-codes`), which runs nothing;
	// nor does its stub, so that both list under "Additional help topics".
	topic bool
}

// commands returns botkit's top-level commands (besides cobra's completion
// and help).
func commands() []command {
	return []command{
		{summary: &create.CmdSummary, build: func(f *cloudutil.Factory) *cobra.Command { return create.NewCmdCreate(f.Factory, nil) }},
		{summary: &initcmd.CmdSummary, build: func(f *cloudutil.Factory) *cobra.Command { return initcmd.NewCmdInit(f.Factory, nil) }},
		{summary: &configcmd.CmdSummary, build: func(f *cloudutil.Factory) *cobra.Command { return configcmd.NewCmdConfig(f.Factory) }},
		{summary: &auth.CmdSummary, build: auth.NewCmdAuth},
		{summary: &cloud.CmdSummary, build: newCmdCloud},
		{summary: &version.CmdSummary, build: func(f *cloudutil.Factory) *cobra.Command { return version.NewCmd(f.IOStreams, versionText, nil) }},
		// The commands that act on a platform take --context.
		{summary: &manifests.ApplySummary, build: withContext(func(f *cloudutil.Factory) *cobra.Command { return manifests.NewCmdApply(f, nil) })},
		{summary: &manifests.DiffSummary, build: withContext(func(f *cloudutil.Factory) *cobra.Command { return manifests.NewCmdDiff(f, nil) })},
		{summary: &manifests.DeleteSummary, build: withContext(func(f *cloudutil.Factory) *cobra.Command { return manifests.NewCmdDelete(f, nil) })},
		{summary: &seal.CmdSummary, build: withContext(func(f *cloudutil.Factory) *cobra.Command { return seal.NewCmdSeal(f, nil) })},
		{summary: &preflight.CmdSummary, build: withContext(func(f *cloudutil.Factory) *cobra.Command { return preflight.NewCmdPreflight(f, nil) })},
		{summary: &deploy.CmdSummary, build: withContext(func(f *cloudutil.Factory) *cobra.Command { return deploy.NewCmdDeploy(f, nil) })},
		helpTopic(&exitCodesTopic, func() string { return cmdutil.ExitCodesHelp("botkit") }),
		helpTopic(&environmentTopic, cmdutil.EnvironmentHelp),
	}
}

// The help topics: what the root lists of them.
var (
	exitCodesTopic   = cmdutil.Summary{Use: "exit-codes", Short: "What botkit's exit codes mean"}
	environmentTopic = cmdutil.Summary{Use: "environment", Short: "Environment variables botkit reads"}
)

// helpTopic is the help topic s whose text long returns.
func helpTopic(s *cmdutil.Summary, long func() string) command {
	return command{summary: s, topic: true, build: func(*cloudutil.Factory) *cobra.Command {
		return cmdutil.NewHelpTopic(s.Use, s.Short, long())
	}}
}

// stub returns the command that stands for c until the arguments reach it.
func (c command) stub() *cobra.Command {
	s := c.summary.Stub()
	if c.topic {
		s.RunE = nil
	}
	return s
}

// withContext adds the local flag --context to what build returns.
func withContext(build func(f *cloudutil.Factory) *cobra.Command) func(f *cloudutil.Factory) *cobra.Command {
	return func(f *cloudutil.Factory) *cobra.Command {
		c := build(f)
		cloudutil.AddContextFlag(c, f.Factory, false)
		return c
	}
}

// newCmdCloud is `botkit cloud` with its persistent --context.
func newCmdCloud(f *cloudutil.Factory) *cobra.Command {
	c := cloud.NewCmdCloud(f)
	cloudutil.AddContextFlag(c, f.Factory, true)
	// `botkit secrets …` suggests cloud, where the groups live.
	for _, sub := range c.Commands() {
		c.SuggestFor = append(c.SuggestFor, sub.Name())
	}
	return c
}

// NewCmdRoot returns the whole botkit command tree (docgen, tests).
func NewCmdRoot(f *cloudutil.Factory) *cobra.Command {
	cmd, _ := newCmdRoot(f, nil, true)
	return cmd
}

// newCmdRoot returns botkit's root command for running args: with the
// top-level command args reach built, and a stub (its Summary: what the
// root's help lists of it) standing for every other one, so that a run
// builds the flags and subcommands of one command, not of all (building
// the whole tree was 13% of `botkit --version`). With all, or when args need
// the whole tree (see reach), every command is built. It returns the names
// of the commands it built.
func newCmdRoot(f *cloudutil.Factory, args []string, all bool) (*cobra.Command, []string) {
	cmd := &cobra.Command{
		Use:   "botkit <command> <subcommand> [flags]",
		Short: "Scaffold Pipecat voice bots and manage their secrets",
		Long: `botkit scaffolds voice and conversational bots on the Pipecat framework,
manages the secret sets and image pull secrets they run with, and deploys
them to the platform, which runs them (botkit deploy, botkit cloud agents).`,
		Example: `  botkit create quickstart
  botkit create my-bot --bot-type web -t smallwebrtc --stt deepgram_stt --llm openai_llm --tts cartesia_tts
  botkit create --list-options
  botkit apply -f secrets/ -R
  botkit deploy`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       cmdutil.BuildVersion(),
	}
	list := commands()
	stubs := make([]*cobra.Command, len(list))
	for i, c := range list {
		stubs[i] = c.stub()
		cmd.AddCommand(stubs[i])
	}
	target := -1
	if !all {
		target, all = reach(cmd, stubs, args)
	}
	if target < 0 {
		// `botkit completion bash|zsh|fish|powershell`: cobra's generator,
		// added now (not at Execute) so that its usage errors are typed too.
		cmd.InitDefaultCompletionCmd()
	} else {
		// A run of one command lists no sibling: cobra need not make its
		// five commands either (args that reach completion build all).
		cmd.CompletionOptions.DisableDefaultCmd = true
	}
	var built []string
	var replaced, real []*cobra.Command
	for i, c := range list {
		if all || i == target {
			replaced = append(replaced, stubs[i])
			real = append(real, c.build(f))
			built = append(built, real[len(real)-1].Name())
		}
	}
	if len(replaced) > 0 {
		// At once: RemoveCommand measures every remaining command's path.
		cmd.RemoveCommand(replaced...)
		cmd.AddCommand(real...)
	}
	cmdutil.TypeUsageErrors(cmd)
	return cmd, built
}

// reach says what of the tree under root (whose top-level commands are all
// stubs yet) running args needs. The stub cobra's Find resolves args to
// (Find strips the root's flags as Execute does, before or after the
// command's name): that command alone. Nothing (nil, false) when args run
// the root itself with flags only: --version, --help, no arguments.
// Everything else needs the whole tree (all): help and __complete (not
// added yet, so unknown here), completion, an unknown command
// (its error suggests from every command's SuggestFor), or a word after the
// flags or "--" that the root would reject the same way.
func reach(root *cobra.Command, stubs []*cobra.Command, args []string) (target int, all bool) {
	// A root without Args is checked the legacy way by Find, which makes
	// the suggestions for an unknown command (edit distances to every
	// command) only to say that it is unknown: what Execute says anyway.
	rootArgs := root.Args
	root.Args = cobra.ArbitraryArgs
	found, _, err := root.Find(args)
	root.Args = rootArgs
	if err != nil {
		return -1, true
	}
	if found == root {
		for _, a := range args {
			if a == "--" || !strings.HasPrefix(a, "-") {
				return -1, true
			}
		}
		return -1, false
	}
	for i, stub := range stubs {
		if found == stub {
			return i, false
		}
	}
	return -1, true
}

// versionText prints what --version prints: the root's version template.
func versionText(c *cobra.Command) error {
	root := c.Root()
	t, err := template.New("version").Parse(root.VersionTemplate())
	if err != nil {
		return err
	}
	return t.Execute(c.OutOrStdout(), root)
}

// Run executes botkit with args and returns the process exit code, on the
// tree newCmdRoot builds for args. Errors are printed to stderr as
// "error: ...", one line per problem. What the factory opened (the embedded
// platform) is closed before Run returns.
func Run(ctx context.Context, f *cloudutil.Factory, args []string) int {
	root, _ := newCmdRoot(f, args, false)
	code := cmdutil.Execute(ctx, root, f.IOStreams, args)
	if f.Close != nil {
		if err := f.Close(); err != nil {
			fmt.Fprintf(f.IOStreams.ErrOut, "error: %v\n", err)
			if code == cmdutil.ExitOK {
				code = cmdutil.ExitError
			}
		}
	}
	return code
}

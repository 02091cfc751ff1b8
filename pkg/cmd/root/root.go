// Package root builds botkit's root command and runs it.
package root

import (
	"context"
	"fmt"
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
	"github.com/botkit-dev/botkit/pkg/cmdutil"
)

// NewCmdRoot returns the botkit command tree.
func NewCmdRoot(f *cloudutil.Factory) *cobra.Command {
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
	cmd.AddCommand(create.NewCmdCreate(f.Factory, nil), initcmd.NewCmdInit(f.Factory, nil), configcmd.NewCmdConfig(f.Factory), auth.NewCmdAuth(f))
	// The commands that act on a platform take --context.
	cloudCmd := cloud.NewCmdCloud(f)
	cloudutil.AddContextFlag(cloudCmd, f.Factory, true)
	// `botkit secrets …` suggests cloud, where the groups live.
	for _, sub := range cloudCmd.Commands() {
		cloudCmd.SuggestFor = append(cloudCmd.SuggestFor, sub.Name())
	}
	cmd.AddCommand(cloudCmd, newCmdVersion())
	for _, c := range []*cobra.Command{manifests.NewCmdApply(f, nil), manifests.NewCmdDiff(f, nil), manifests.NewCmdDelete(f, nil), seal.NewCmdSeal(f, nil), preflight.NewCmdPreflight(f, nil), deploy.NewCmdDeploy(f, nil)} {
		cloudutil.AddContextFlag(c, f.Factory, false)
		cmd.AddCommand(c)
	}
	cmd.AddCommand(
		cmdutil.NewHelpTopic("exit-codes", "What botkit's exit codes mean", cmdutil.ExitCodesHelp("botkit")),
		cmdutil.NewHelpTopic("environment", "Environment variables botkit reads", cmdutil.EnvironmentHelp()),
	)
	// `botkit completion bash|zsh|fish|powershell`: cobra's generator, added
	// now (not at Execute) so that its usage errors are typed too.
	cmd.InitDefaultCompletionCmd()
	cmdutil.TypeUsageErrors(cmd)
	return cmd
}

// newCmdVersion is `botkit version`, as gh has it: what --version prints
// (the root's version template, so the two never differ).
func newCmdVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print botkit's version (as --version does)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			root := c.Root()
			t, err := template.New("version").Parse(root.VersionTemplate())
			if err != nil {
				return err
			}
			return t.Execute(c.OutOrStdout(), root)
		},
	}
}

// Run executes botkit with args and returns the process exit code. Errors
// are printed to stderr as "error: ...", one line per problem. What the
// factory opened (the embedded platform) is closed before Run returns.
func Run(ctx context.Context, f *cloudutil.Factory, args []string) int {
	code := cmdutil.Execute(ctx, NewCmdRoot(f), f.IOStreams, args)
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

// Package agents implements `botkit cloud agents` (alias agent): the
// agents the platform runs (docs/deploy.md) — list, status, deployments,
// rollback, logs, scale, restart and delete — and their sessions (start,
// sessions, stop) over the platform API (remote or embedded; sessions are
// started and stopped on a platform that outlives the command). `botkit deploy` (pkg/cmd/deploy) makes them.
//
// Every subcommand has an Options struct filled by its flags and a run
// function that does the work; the tests call run directly against a real
// platform. No output of this package holds a secret value: log lines and
// failure messages arrive masked by the platform.
package agents

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloud/organizations"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// NewCmdAgents returns `botkit cloud agents`.
func NewCmdAgents(f *cloudutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "agents <command>",
		Aliases: []string{"agent"},
		Short:   "Watch and manage the agents the platform runs",
		Long: `Watch and manage the agents (bots) the platform runs: botkit deploy creates
an agent and rolls out its deployments; these commands show them (list,
status, deployments, logs), change how many run (scale), restart them, roll
them back to an earlier deployment and delete them. A session is one call
handed to one agent: start one, list them (sessions), end one (stop), read
its agent's lines (logs --session).

A deployment pins the image's digest and the secret set's version: a later
secret write changes nothing that runs until the next deploy (status shows
the drift). Log lines arrive with every secret value of 4 bytes or more
masked (****).

Without NAME, status, deployments, logs, rollback, scale, restart, start,
sessions and stop act on the agent_name of the project's deploy file in the
current directory (server/cloud-deploy.toml or cloud-deploy.toml, as botkit
deploy finds it).
An agent that does not exist gets the names close to it ("did you mean").

The organization is --organization (alias --org); -o/--output picks the
output format where there is one.`,
	}
	cmd.AddCommand(
		NewCmdList(f, nil),
		NewCmdStatus(f, nil),
		NewCmdDeployments(f, nil),
		NewCmdRollback(f, nil),
		NewCmdLogs(f, nil),
		NewCmdScale(f, nil),
		NewCmdRestart(f, nil),
		NewCmdDelete(f, nil),
		NewCmdStart(f, nil),
		NewCmdSessions(f, nil),
		NewCmdStop(f, nil),
	)
	return cmd
}

// validateName checks the NAME argument (exit 2) before any request.
func validateName(name string) error {
	if err := resources.ValidateName(name); err != nil {
		return &cmdutil.ArgsError{Err: err}
	}
	return nil
}

// completion never prints anything but the suggestions: a failure gives
// none (and no file names).
const noFiles = cobra.ShellCompDirectiveNoFileComp

// completeFrom offers what list returns (asked of the platform under
// organizations.CompletionTimeout) that starts with toComplete.
func completeFrom(cmd *cobra.Command, p *cloudutil.Platform, toComplete string, list func(context.Context, *client.Client, string) ([]string, error)) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, organizations.CompletionTimeout)
	defer cancel()
	c, org, err := p.Connect(ctx)
	if err != nil {
		return nil, noFiles
	}
	names, err := list(ctx, c, org)
	if err != nil {
		return nil, noFiles
	}
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, noFiles
}

// completeAgentNames completes the NAME argument with the organization's
// agents.
func completeAgentNames(p *cloudutil.Platform) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) != 0 {
			return nil, noFiles
		}
		return completeFrom(cmd, p, toComplete, func(ctx context.Context, c *client.Client, org string) ([]string, error) {
			as, err := c.Agents(ctx, org, "")
			names := make([]string, 0, len(as))
			for _, a := range as {
				names = append(names, a.Metadata.Name)
			}
			return names, err
		})
	}
}

// completeDeployments completes a deployment number of the agent named by
// the argument.
func completeDeployments(p *cloudutil.Platform) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) != 1 {
			return nil, noFiles
		}
		return completeFrom(cmd, p, toComplete, func(ctx context.Context, c *client.Client, org string) ([]string, error) {
			ds, err := c.Deployments(ctx, org, args[0])
			out := make([]string, 0, len(ds))
			for _, d := range ds {
				out = append(out, strconv.FormatInt(d.Number, 10))
			}
			return out, err
		})
	}
}

// addOrganizationFlag binds --organization and completes it (and --region
// when the command has it).
func addOrganizationFlag(cmd *cobra.Command, p *cloudutil.Platform) {
	organizations.AddFlag(cmd, p)
	if cmd.Flags().Lookup("region") != nil {
		_ = cmd.RegisterFlagCompletionFunc("region", func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var out []cobra.Completion
			for _, r := range resources.Regions() {
				if strings.HasPrefix(r, toComplete) {
					out = append(out, r)
				}
			}
			return out, noFiles
		})
	}
}

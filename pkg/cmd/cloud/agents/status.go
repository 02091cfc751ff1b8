package agents

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// StatusOptions are the inputs of `botkit cloud agents status`.
type StatusOptions struct {
	cloudutil.Platform
	Name  string
	Print *printers.Flags
}

// NewCmdStatus returns `botkit cloud agents status`.
func NewCmdStatus(f *cloudutil.Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{Platform: cloudutil.NewPlatform(f), Print: printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatJSON, printers.FormatYAML)}
	opts.Print.Now = f.Now
	cmd := &cobra.Command{
		Use:   "status [NAME]",
		Short: "Show an agent, its deployments and every agent running for it",
		Long: `Show the agent NAME: its state, its agents ready ("3 ready (1 in a session,
2 idle), max 5": in a session, idle in the pool, and the most that may run),
what it runs (image, image pull secret, secret set, profile, scaling), the
serving deployment (digest and secret set version), the latest deployment
when another one (rolling out or failed, with its reason and the agents'
last log lines, values masked), and each running agent (container): id,
deployment, state, health, restarts, started, and how the agent it replaced
ended (last exit: killed (exit 137), OOMKilled, exited N).

When the secret set moved past the version the serving deployment runs,
the drift line says so: botkit deploy applies it. -o json|yaml prints the
status report. A missing agent exits 3.`,
		Example: `  botkit cloud agents status support-bot
  botkit cloud agents status support-bot -o yaml
  botkit cloud agents status support-bot --jq '.agent.status.state'`,
	}
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runStatus)
	return cmd
}

func runStatus(ctx context.Context, opts *StatusOptions) error {
	c, org, err := begin(ctx, &opts.Platform, opts.Name, opts.Print, nil)
	if err != nil {
		return err
	}
	r, err := c.AgentStatus(ctx, org, opts.Name)
	if err != nil {
		return err
	}
	return opts.Print.PrintAgentStatus(opts.IO, r)
}

// DeploymentsOptions are the inputs of `botkit cloud agents deployments`.
type DeploymentsOptions struct {
	cloudutil.Platform
	Name  string
	Print *printers.Flags
}

// NewCmdDeployments returns `botkit cloud agents deployments`.
func NewCmdDeployments(f *cloudutil.Factory, runF func(context.Context, *DeploymentsOptions) error) *cobra.Command {
	opts := &DeploymentsOptions{Platform: cloudutil.NewPlatform(f),
		Print: printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatWide, printers.FormatJSON, printers.FormatYAML)}
	opts.Print.Now = f.Now
	cmd := &cobra.Command{
		Use:   "deployments [NAME]",
		Short: "List an agent's deployments",
		Long: `List the deployments of the agent NAME, newest first: number, age, who made it
(ACTOR), through what (SOURCE: deploy, apply, rollback), the TAG of the image
as given and the IMAGE DIGEST it resolved to, the secret set version it
pinned, and its RESULT (rolling-out, serving, superseded, failed). -o wide adds the image as given, the secret set, the
profile, the deployment a rollback copied and the reason of a failure.

Roll back to one with botkit cloud agents rollback NAME --to N. A missing
agent exits 3.`,
		Example: `  botkit cloud agents deployments support-bot
  botkit cloud agents deployments support-bot -o wide
  botkit cloud agents deployments support-bot --jq '.items[] | select(.result == "failed") | .number'`,
	}
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runDeployments)
	return cmd
}

func runDeployments(ctx context.Context, opts *DeploymentsOptions) error {
	c, org, err := begin(ctx, &opts.Platform, opts.Name, opts.Print, nil)
	if err != nil {
		return err
	}
	ds, err := c.Deployments(ctx, org, opts.Name)
	if err != nil {
		return err
	}
	return opts.Print.PrintDeployments(opts.IO, ds)
}

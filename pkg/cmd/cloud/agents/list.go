package agents

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// ListOptions are the inputs of `botkit cloud agents list`.
type ListOptions struct {
	cloudutil.Platform
	Region string // --region filter ("" = every region)
	Print  *printers.Flags
}

// NewCmdList returns `botkit cloud agents list`.
func NewCmdList(f *cloudutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Platform: cloudutil.NewPlatform(f), Print: printers.NewFlags()}
	opts.Print.Now = f.Now
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the organization's agents",
		Long: `List the agents of the organization, in every region unless --region is given:
NAME, REGION, STATE (deploying, ready, degraded, failed, stopped), AGENTS
(ready/desired), the serving DEPLOYMENT, IMAGE and AGE. -o wide adds
SESSIONS (its agents in a session), the organization, profile, secret set, image pull secret, image digest, labels
and the reason of a state that is not ready.

An empty list prints "No resources found" on stderr and exits 0.`,
		Example: `  botkit cloud agents list
  botkit cloud agents list -o wide
  botkit cloud agents list -r eu-central -o json
  botkit cloud agents list --jq '.items[] | select(.status.state != "ready") | .metadata.name'`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runList(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Region, "region", "r", "", "Only agents in this region (default: every region)")
	opts.Print.AddFlags(cmd)
	addOrganizationFlag(cmd, &opts.Platform)
	return cmd
}

func runList(ctx context.Context, opts *ListOptions) error {
	if opts.Region != "" {
		if err := resources.ValidateRegion(opts.Region); err != nil {
			return cmdutil.FlagErrorf("--region: %v", err)
		}
	}
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	as, err := c.Agents(ctx, org, opts.Region)
	if err != nil {
		return err
	}
	return opts.Print.PrintAgents(opts.IO, as)
}

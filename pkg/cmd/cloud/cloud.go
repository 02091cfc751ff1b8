// Package cloud is the `botkit cloud` command group: the platform's secret
// sets and image pull secrets, the agents it runs, organizations and
// regions.
package cloud

import (
	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloud/agents"
	"github.com/botkit-dev/botkit/pkg/cmd/cloud/organizations"
	"github.com/botkit-dev/botkit/pkg/cmd/cloud/regions"
	"github.com/botkit-dev/botkit/pkg/cmd/cloud/secrets"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
)

// CmdSummary is what `botkit --help` lists of `botkit cloud`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var CmdSummary = cmdutil.Summary{
	Use:   "cloud <command>",
	Short: "Manage secrets, agents, organizations and regions on the bot platform",
}

// NewCmdCloud returns `botkit cloud`.
func NewCmdCloud(f *cloudutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   CmdSummary.Use,
		Short: CmdSummary.Short,
		Long: `Manage what your bots run with on the platform: secret sets and image pull
secrets, the agents it runs (botkit deploy makes them), the organizations you
belong to, the regions.

With no platform configured (botkit auth login), these commands work on the
embedded local platform: a SQLite database under $XDG_DATA_HOME/botkit.`,
	}
	cmd.AddCommand(secrets.NewCmdSecrets(f), agents.NewCmdAgents(f), organizations.NewCmdOrganizations(f), regions.NewCmdRegions(f))
	return cmd
}

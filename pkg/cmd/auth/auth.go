// Package auth is `botkit auth`: log in to a remote platform (the token goes
// to the OS keyring), show where commands go and with which token, log out.
package auth

import (
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/spf13/cobra"
)

// CmdSummary is what `botkit --help` lists of `botkit auth`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var CmdSummary = cmdutil.Summary{
	Use:   "auth <command>",
	Short: "Log in to a platform, show the login, log out",
}

// NewCmdAuth returns `botkit auth`.
func NewCmdAuth(f *cloudutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   CmdSummary.Use,
		Short: CmdSummary.Short,
		Long: `Without a login botkit works on the embedded local platform (a SQLite database
under $XDG_DATA_HOME/botkit, organization "local"). Log in to use a remote
platform: its URL goes to the config file, its token to the OS keyring.

A login creates or updates a context (named after the platform's host unless
--context NAME) and makes it current: see botkit config get-contexts.

Environment: BOTKIT_TOKEN (a token, wins over the keyring), BOTKIT_CONTEXT,
BOTKIT_API_URL, BOTKIT_ORG, BOTKIT_CONFIG_DIR.`,
	}
	logout := NewCmdLogout(f, nil)
	cloudutil.AddContextFlag(logout, f.Factory, false)
	cmd.AddCommand(NewCmdLogin(f, nil), NewCmdStatus(f, nil), logout)
	return cmd
}

package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// LogoutOptions are the inputs of `botkit auth logout`.
type LogoutOptions struct {
	IO          *iostreams.IOStreams
	Config      func() (*config.Config, error)
	Credentials credentials.Store
}

// NewCmdLogout returns `botkit auth logout`.
func NewCmdLogout(f *cloudutil.Factory, runF func(context.Context, *LogoutOptions) error) *cobra.Command {
	opts := &LogoutOptions{IO: f.IOStreams}
	return &cobra.Command{
		Use:   "logout",
		Short: "Remove the token of the configured platform",
		Long: `Remove the token of the selected context's platform from the OS keyring and
from the config file. The context stays, so that cloud commands in it fail
(exit 4) instead of quietly using the embedded local platform; go back to the
embedded platform with botkit config use-context local.`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Config, opts.Credentials = f.Config, f.Credentials
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runLogout(cmd.Context(), opts)
		},
	}
}

func runLogout(_ context.Context, opts *LogoutOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	out := opts.IO.Out
	if err := cfg.CheckSelected(); err != nil {
		return err
	}
	if cfg.Embedded() {
		fmt.Fprintln(out, "Nothing to do: botkit uses the embedded local platform, which needs no login.")
		return nil
	}
	u, err := client.ParseURL(cfg.APIURL)
	if err != nil {
		return err
	}
	var removed []string
	keyErr := opts.Credentials.Delete(u.Host)
	switch {
	case keyErr == nil:
		removed = append(removed, "the keyring")
	case errors.Is(keyErr, credentials.ErrNotFound):
		keyErr = nil
	}
	if _, ok := cfg.File.Tokens[u.Host]; ok {
		err := config.Update(cfg.Path, func(file *config.File) error {
			delete(file.Tokens, u.Host)
			return nil
		})
		if err != nil {
			return err
		}
		removed = append(removed, "the config file")
	}
	switch len(removed) {
	case 0:
		if keyErr == nil {
			fmt.Fprintf(out, "Not logged in to %s: no token in the keyring or the config file.\n", u.Host)
		} else {
			fmt.Fprintf(out, "Not logged in to %s: no token in the config file.\n", u.Host)
		}
	case 1:
		fmt.Fprintf(out, "Logged out of %s: removed the token from %s.\n", u.Host, removed[0])
	default:
		fmt.Fprintf(out, "Logged out of %s: removed the token from %s and %s.\n", u.Host, removed[0], removed[1])
	}
	if cfg.EnvToken != "" {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s is still set in this environment; commands keep using it until you unset it\n", config.EnvToken)
	}
	if keyErr != nil {
		// Nothing to log out of here: logging out is done (exit 0), with
		// the keyring named, since it could not be checked.
		fmt.Fprintf(opts.IO.ErrOut, "warning: the OS keyring is not reachable (%v), so it was not checked for a token of %s\n", errors.Unwrap(keyErr), u.Host)
	}
	return nil
}

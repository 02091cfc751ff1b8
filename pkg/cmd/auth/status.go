package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// StatusOptions are the inputs of `botkit auth status`.
type StatusOptions struct {
	IO          *iostreams.IOStreams
	Config      func() (*config.Config, error)
	Credentials credentials.Store
	NewClient   func(baseURL, token string) (*client.Client, error)
}

// NewCmdStatus returns `botkit auth status`.
func NewCmdStatus(f *cloudutil.Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IOStreams}
	return &cobra.Command{
		Use:   "status",
		Short: "Show the platform, organization, user and where the token comes from",
		Long: `Show which platform cloud commands use (a remote one, or the embedded local
platform), the current organization, the token's user, and where the token
comes from: the environment (BOTKIT_TOKEN), the keyring, or the config file.

Exits 4 when a remote platform is configured but no usable token is found.`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Config, opts.Credentials, opts.NewClient = f.Config, f.Credentials, f.NewClient
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runStatus(cmd.Context(), opts)
		},
	}
}

// describeSource says where a token comes from, for people.
func describeSource(src credentials.Source, host, configPath string) string {
	switch src {
	case credentials.SourceEnvironment:
		return "environment (" + config.EnvToken + ")"
	case credentials.SourceKeyring:
		return "keyring (service " + credentials.Service(host) + ")"
	case credentials.SourceFile:
		return "file (" + configPath + ", stored with --insecure-storage)"
	}
	return "none"
}

func runStatus(ctx context.Context, opts *StatusOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	out := opts.IO.Out
	if cfg.Embedded() {
		org := cfg.Organization
		if org == "" {
			org = client.EmbeddedOrg
		}
		fmt.Fprintf(out, "Platform:     embedded local platform (%s)\n", cfg.DataDir)
		fmt.Fprintf(out, "Organization: %s\n", org)
		fmt.Fprintf(out, "Token:        none needed\n")
		return nil
	}
	u, err := client.ParseURL(cfg.APIURL)
	if err != nil {
		return err
	}
	from := ""
	if cfg.APIURLFromEnv {
		from = " (from " + config.EnvAPIURL + ")"
	}
	fmt.Fprintf(out, "Platform:     %s%s\n", u, from)
	tok, src, err := credentials.Resolve(opts.Credentials, u.Host, cfg.EnvToken, cfg.FileToken)
	if err != nil {
		return err
	}
	if tok == "" {
		fmt.Fprintf(out, "Token:        none\n")
		return cmdutil.WithCode(cmdutil.ExitAuth, fmt.Errorf("%w to %s: run `botkit auth login --api-url %s` or set %s", cloudutil.ErrNotLoggedIn, u.Host, u, config.EnvToken))
	}
	fmt.Fprintf(out, "Token:        %s\n", describeSource(src, u.Host, cfg.Path))
	c, err := opts.NewClient(u.String(), tok)
	if err != nil {
		return err
	}
	defer c.Close()
	me, err := c.Me(ctx)
	var ae *resources.Error
	if errors.As(err, &ae) && ae.Code == resources.CodeUnauthenticated {
		return cmdutil.WithCode(cmdutil.ExitAuth, fmt.Errorf("%s refuses the token from the %s (unknown or revoked): run `botkit auth login --api-url %s` again", u.Host, describeSource(src, u.Host, cfg.Path), u))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "User:         %s\n", iostreams.Printable(me.User))
	names := make([]string, len(me.Organizations))
	for i, o := range me.Organizations {
		names[i] = o.Name
	}
	org := cfg.Organization
	switch {
	case org != "":
	case len(names) == 1:
		org = names[0]
	default:
		org = "none chosen (botkit cloud organizations select NAME)"
	}
	fmt.Fprintf(out, "Organization: %s\n", iostreams.Printable(org))
	if len(names) > 1 {
		fmt.Fprintf(out, "Organizations: %s\n", iostreams.Printable(strings.Join(names, ", ")))
	}
	return nil
}

// Package cloudutil is what the commands that talk to the platform share
// (cloud secrets, organizations and regions, apply/diff/delete, auth): the
// Factory with the platform seams, the organization and region a command
// acts on, and --organization. Commands that never reach the platform
// (create, botkit-platform's own) use cmdutil alone and link none of it.
package cloudutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
)

// Factory is cmdutil.Factory with the seams of the platform. The real ones
// are wired in pkg/cmd/factory; tests replace any of them.
type Factory struct {
	*cmdutil.Factory
	// APIClient returns the platform client of the configured context: the
	// embedded local platform when no API URL is configured, else the remote
	// one with the token from BOTKIT_TOKEN, the keyring or the config file.
	// Calls after the first return the same client.
	APIClient func(ctx context.Context) (*client.Client, error)
	// NewClient returns a client of the remote platform at baseURL with
	// token, trusting ca besides the system's CAs, made like APIClient's
	// (auth login checks a token with it, auth status every context).
	NewClient func(baseURL, token string, ca client.CAFile) (*client.Client, error)
	// Credentials is the token store (the OS keyring).
	Credentials credentials.Store
	// ServingPlatform returns the client of a platform that outlives the
	// command (what sessions need): for a remote context, its own client
	// (APIClient's); for the local context, the client of `botkit-platform
	// serve --local` over HTTP on the loopback (no token: organization
	// local), or, when none serves the CLI's data directory, an error
	// wrapping ErrNoServingPlatform (exit 1) that says how to start it.
	ServingPlatform func(ctx context.Context) (*client.Client, error)
}

// ErrNoServingPlatform is wrapped by ServingPlatform's error when the local
// context has no server (exit 1).
var ErrNoServingPlatform = errors.New("sessions need a platform that outlives this command")

// AddOrganizationFlag binds --organization (alias --org) to p: the
// organization a cloud command acts on. Resolve it with Factory.Organization.
// (-o is --output, the kubectl convention; see README.)
func AddOrganizationFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "organization", "", "Organization to act on (alias --org; default: BOTKIT_ORG, the configured one, or the token's only organization)")
	normalize := cmd.Flags().GetNormalizeFunc()
	cmd.Flags().SetNormalizeFunc(func(fs *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "org" {
			name = "organization"
		}
		return normalize(fs, name)
	})
}

// Organization resolves the organization a cloud command acts on, in this
// order: flag (--organization/--org), BOTKIT_ORG, the config file's current
// organization, else the token's only organization (asked from GET /v1/me;
// on the embedded platform "local", without a request). A token with several
// organizations and none chosen is a usage error naming --organization.
func (f *Factory) Organization(ctx context.Context, flag string) (string, error) {
	if flag = strings.TrimSpace(flag); flag != "" {
		return flag, nil
	}
	cfg, err := f.Config()
	if err != nil {
		return "", err
	}
	if err := cfg.CheckEmbedded(); err != nil {
		return "", err
	}
	if cfg.Organization != "" {
		return cfg.Organization, nil
	}
	if cfg.Embedded() {
		return client.EmbeddedOrg, nil
	}
	c, err := f.APIClient(ctx)
	if err != nil {
		return "", err
	}
	me, err := c.Me(ctx)
	if err != nil {
		return "", err
	}
	switch len(me.Organizations) {
	case 0:
		return "", cmdutil.WithCode(cmdutil.ExitAuth, fmt.Errorf("the token for %s belongs to no organization", c.Host()))
	case 1:
		return me.Organizations[0].Name, nil
	}
	names := make([]string, len(me.Organizations))
	for i, o := range me.Organizations {
		names[i] = o.Name
	}
	return "", &cmdutil.FlagError{Err: fmt.Errorf("the token for %s has several organizations (%s): give --organization or run `botkit cloud organizations select NAME`", c.Host(), strings.Join(names, ", "))}
}

// Region returns the region new objects go to: flag (--region), else the
// config file's default region, else "" (the organization's default region,
// chosen by the platform).
func (f *Factory) Region(flag string) (string, error) {
	if flag = strings.TrimSpace(flag); flag != "" {
		return flag, nil
	}
	cfg, err := f.Config()
	if err != nil {
		return "", err
	}
	return cfg.Region, nil
}

// CAFile returns the CA file the requests of context ctx trust besides the
// system's (BOTKIT_CA_FILE, else the context's certificateAuthority).
func CAFile(cfg *config.Config, ctx config.Context) client.CAFile {
	path, from := cfg.CertificateAuthority(ctx)
	return client.CAFile{Path: path, From: from}
}

// ErrNotLoggedIn is wrapped by the error of a configured remote platform
// without a token (exit 4).
var ErrNotLoggedIn = errors.New("not logged in")

// AddContextFlag adds --context NAME to cmd (and its subcommands when
// persistent): the context the command acts in, instead of BOTKIT_CONTEXT
// or the current one (docs/secrets.md, "Several environments").
func AddContextFlag(cmd *cobra.Command, f *cmdutil.Factory, persistent bool) {
	fs := cmd.Flags()
	if persistent {
		fs = cmd.PersistentFlags()
	}
	fs.StringVar(&f.ContextName, "context", "", "Context to act in (default: "+config.EnvContext+", else the current context; see botkit config get-contexts)")
	_ = cmd.RegisterFlagCompletionFunc("context", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) { // error ignored: the flag was just added
		_, file, err := config.LoadFile(f.Getenv)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return file.Names(), cobra.ShellCompDirectiveNoFileComp
	})
}

// Connect returns the platform's client and the organization to act in
// (orgFlag resolved): what every command that talks to the platform does
// first, from the seams its Options hold.
func Connect(ctx context.Context, apiClient func(context.Context) (*client.Client, error), resolveOrg func(context.Context, string) (string, error), orgFlag string) (*client.Client, string, error) {
	if apiClient == nil || resolveOrg == nil {
		return nil, "", errors.New("no platform configured")
	}
	c, err := apiClient(ctx)
	if err != nil {
		return nil, "", err
	}
	org, err := resolveOrg(ctx, orgFlag)
	if err != nil {
		return nil, "", err
	}
	return c, org, nil
}

package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// newCmdTokens returns `botkit-platform tokens` and its subcommands.
func newCmdTokens(st *iostreams.IOStreams) *cobra.Command {
	c := &cobra.Command{Use: "tokens", Short: "Manage API tokens"}
	c.AddCommand(NewCmdTokensCreate(st, nil), NewCmdTokensRevoke(st, nil), NewCmdTokensList(st, nil))
	return c
}

// TokensCreateOptions are the options of `tokens create`.
type TokensCreateOptions struct {
	storeFlags
	Org  string
	User string
	IO   *iostreams.IOStreams
}

// NewCmdTokensCreate returns `tokens create`; runF (tests) replaces
// runTokensCreate.
func NewCmdTokensCreate(st *iostreams.IOStreams, runF func(context.Context, *TokensCreateOptions) error) *cobra.Command {
	o := &TokensCreateOptions{IO: st}
	c := command(&cobra.Command{
		Use:   "create --org NAME (--data-dir DIR | --store URL)",
		Short: "Create an API token; it is printed once, as the last line of stdout",
		Args:  noArgs,
	}, o, &o.storeFlags, nil, runF, runTokensCreate)
	c.Flags().StringVar(&o.Org, "org", "", "organization the token acts for (required)")
	c.Flags().StringVar(&o.User, "user", "admin", "user name recorded in the audit log")
	return c
}

// runTokensCreate creates a token and prints it as the last line of stdout.
func runTokensCreate(ctx context.Context, o *TokensCreateOptions) error {
	if o.Org == "" {
		return cmdutil.FlagErrorf("%s", "--org is required")
	}
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	tok, info, err := a.CreateToken(ctx, o.Org, o.User)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Created token %s for organization %s (user %s). It is shown only once; store it now.\n", info.ID, info.Organization, info.User)
	fmt.Fprintln(o.IO.Out, tok)
	return nil
}

// TokensRevokeOptions are the options of `tokens revoke`.
type TokensRevokeOptions struct {
	storeFlags
	ID string // a token ID (tok_...) or the token itself
	IO *iostreams.IOStreams
}

// NewCmdTokensRevoke returns `tokens revoke`; runF (tests) replaces
// runTokensRevoke.
func NewCmdTokensRevoke(st *iostreams.IOStreams, runF func(context.Context, *TokensRevokeOptions) error) *cobra.Command {
	o := &TokensRevokeOptions{IO: st}
	c := command(&cobra.Command{
		Use:   "revoke TOKEN_ID|TOKEN (--data-dir DIR | --store URL)",
		Short: "Revoke an API token by its ID (tok_...) or the token itself",
		Args:  cmdutil.ExactArgs(1, "a token ID or token"),
	}, o, &o.storeFlags, func(_ *cobra.Command, args []string) error { o.ID = args[0]; return nil }, runF, runTokensRevoke)
	return c
}

// runTokensRevoke revokes a token.
func runTokensRevoke(ctx context.Context, o *TokensRevokeOptions) error {
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.RevokeToken(ctx, o.ID); err != nil {
		return err
	}
	fmt.Fprintln(o.IO.Out, "token revoked")
	return nil
}

// TokensListOptions are the options of `tokens list`.
type TokensListOptions struct {
	storeFlags
	Org   string
	Print *printers.Flags
	IO    *iostreams.IOStreams
}

// NewCmdTokensList returns `tokens list`; runF (tests) replaces
// runTokensList.
func NewCmdTokensList(st *iostreams.IOStreams, runF func(context.Context, *TokensListOptions) error) *cobra.Command {
	o := &TokensListOptions{IO: st, Print: printers.NewFlags()}
	c := command(&cobra.Command{
		Use:   "list --org NAME (--data-dir DIR | --store URL)",
		Short: "List the tokens of an organization (IDs only)",
		Args:  noArgs,
	}, o, &o.storeFlags, nil, runF, runTokensList)
	c.Flags().StringVar(&o.Org, "org", "", "organization (required)")
	o.Print.AddFlags(c)
	return c
}

// runTokensList lists an organization's tokens.
func runTokensList(ctx context.Context, o *TokensListOptions) error {
	if o.Org == "" {
		return cmdutil.FlagErrorf("%s", "--org is required")
	}
	return listAdmin(ctx, o.storeFlags, o.Print, o.IO, []string{"ID", "USER", "CREATED", "REVOKED"},
		func(a *service.Admin) ([]service.TokenInfo, error) { return a.ListTokens(ctx, o.Org) },
		func(t service.TokenInfo) []string {
			rev := "-"
			if t.RevokedAt != nil {
				rev = t.RevokedAt.Format(time.RFC3339)
			}
			return []string{t.ID, t.User, t.CreatedAt.Format(time.RFC3339), rev}
		})
}

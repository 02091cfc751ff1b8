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

// newCmdOrgs returns `botkit-platform orgs` and its subcommands.
func newCmdOrgs(st *iostreams.IOStreams) *cobra.Command {
	c := &cobra.Command{Use: "orgs", Aliases: []string{"organizations"}, Short: "Manage organizations"}
	c.AddCommand(NewCmdOrgsCreate(st, nil), NewCmdOrgsList(st, nil), NewCmdOrgsSet(st, nil))
	c.AddCommand(newSealingKeyCmds(st)...)
	return c
}

// OrgsCreateOptions are the options of `orgs create`.
type OrgsCreateOptions struct {
	storeFlags
	Name          string
	DefaultRegion string
	IO            *iostreams.IOStreams
}

// NewCmdOrgsCreate returns `orgs create`; runF (tests) replaces runOrgsCreate.
func NewCmdOrgsCreate(st *iostreams.IOStreams, runF func(context.Context, *OrgsCreateOptions) error) *cobra.Command {
	o := &OrgsCreateOptions{IO: st}
	c := command(&cobra.Command{
		Use:   "create NAME [--default-region R] (--data-dir DIR | --store URL)",
		Short: "Create an organization",
		Args:  cmdutil.ExactArgs(1, "the organization name"),
	}, o, &o.storeFlags, func(_ *cobra.Command, args []string) error { o.Name = args[0]; return nil }, runF, runOrgsCreate)
	c.Flags().StringVar(&o.DefaultRegion, "default-region", "us-west", "region of objects created without one")
	return c
}

// runOrgsCreate creates an organization.
func runOrgsCreate(ctx context.Context, o *OrgsCreateOptions) error {
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	org, err := a.CreateOrg(ctx, o.Name, o.DefaultRegion)
	if err != nil {
		return err
	}
	return printers.PrintOperations(o.IO.Out, printers.Operation{Ref: "organization/" + org.Name, Action: "created", Detail: "default region " + org.DefaultRegion})
}

// OrgsListOptions are the options of `orgs list`.
type OrgsListOptions struct {
	storeFlags
	Print *printers.Flags
	IO    *iostreams.IOStreams
}

// NewCmdOrgsList returns `orgs list`; runF (tests) replaces runOrgsList.
func NewCmdOrgsList(st *iostreams.IOStreams, runF func(context.Context, *OrgsListOptions) error) *cobra.Command {
	o := &OrgsListOptions{IO: st, Print: printers.NewFlags()}
	c := command(&cobra.Command{
		Use:   "list (--data-dir DIR | --store URL)",
		Short: "List organizations",
		Args:  noArgs,
	}, o, &o.storeFlags, nil, runF, runOrgsList)
	o.Print.AddFlags(c)
	return c
}

// runOrgsList lists organizations.
func runOrgsList(ctx context.Context, o *OrgsListOptions) error {
	return listAdmin(ctx, o.storeFlags, o.Print, o.IO, []string{"NAME", "DEFAULT REGION", "CREATED"},
		func(a *service.Admin) ([]service.Organization, error) { return a.ListOrgs(ctx) },
		func(org service.Organization) []string {
			return []string{org.Name, org.DefaultRegion, org.CreatedAt.Format(time.RFC3339)}
		})
}

// OrgsSetOptions are the options of `orgs set`.
type OrgsSetOptions struct {
	storeFlags
	Name            string
	HistoryLimit    int
	HistoryLimitSet bool // --history-limit was given
	IO              *iostreams.IOStreams
}

// NewCmdOrgsSet returns `orgs set`; runF (tests) replaces runOrgsSet.
func NewCmdOrgsSet(st *iostreams.IOStreams, runF func(context.Context, *OrgsSetOptions) error) *cobra.Command {
	o := &OrgsSetOptions{IO: st}
	c := command(&cobra.Command{
		Use:   "set NAME --history-limit N (--data-dir DIR | --store URL)",
		Short: "Change an organization's settings",
		Long: `Change an organization's settings. --history-limit is how many versions each of
its secret sets and image pull secrets keeps (1 to 100, default 10); older
versions go at each object's next write.`,
		Args: cmdutil.ExactArgs(1, "the organization name"),
	}, o, &o.storeFlags, func(c *cobra.Command, args []string) error {
		o.Name, o.HistoryLimitSet = args[0], c.Flags().Changed("history-limit")
		return nil
	}, runF, runOrgsSet)
	c.Flags().IntVar(&o.HistoryLimit, "history-limit", 0, "versions each object keeps (1 to 100)")
	return c
}

// runOrgsSet changes an organization's settings.
func runOrgsSet(ctx context.Context, o *OrgsSetOptions) error {
	if !o.HistoryLimitSet {
		return cmdutil.FlagErrorf("nothing to set: give --history-limit")
	}
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.SetHistoryLimit(ctx, o.Name, o.HistoryLimit); err != nil {
		return err
	}
	return printers.PrintOperations(o.IO.Out, printers.Operation{Ref: "organization/" + o.Name, Action: "configured",
		Detail: fmt.Sprintf("history limit %d", o.HistoryLimit)})
}

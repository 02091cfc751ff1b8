// Package organizations is `botkit cloud organizations`: list the
// organizations of the token, choose the current one.
package organizations

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// NewCmdOrganizations returns `botkit cloud organizations`.
func NewCmdOrganizations(f *cloudutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "organizations <command>",
		Aliases: []string{"organization", "orgs", "org"},
		Short:   "List your organizations and choose the current one",
	}
	cmd.AddCommand(NewCmdList(f, nil), NewCmdSelect(f, nil), NewCmdKeys(f))
	return cmd
}

// ListOptions are the inputs of `botkit cloud organizations list`.
type ListOptions struct {
	IO        *iostreams.IOStreams
	Config    func() (*config.Config, error)
	APIClient func(context.Context) (*client.Client, error)
	Print     *printers.Flags // -o
}

// Organization is one row of the list (json/yaml item).
type Organization struct {
	Name          string `json:"name"`
	DefaultRegion string `json:"defaultRegion"`
	Current       bool   `json:"current"`
}

// OrganizationList is the json/yaml output of the list.
type OrganizationList struct {
	Items []Organization `json:"items"`
}

// NewCmdList returns `botkit cloud organizations list`.
func NewCmdList(f *cloudutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IOStreams, Print: printers.NewFlags()}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the organizations of your token",
		Long: `List the organizations your token belongs to, with their default region; the
current one (config file or BOTKIT_ORG) is marked with *.
On the embedded local platform the only organization is "local".`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Config, opts.APIClient = f.Config, f.APIClient
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runList(cmd.Context(), opts)
		},
	}
	opts.Print.AddFlags(cmd)
	return cmd
}

func runList(ctx context.Context, opts *ListOptions) error {
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	cfg, _, me, err := whoAmI(ctx, opts.Config, opts.APIClient)
	if err != nil {
		return err
	}
	current := currentOrg(cfg, me.Organizations)
	list := OrganizationList{Items: []Organization{}}
	var rows [][]string
	for _, o := range me.Organizations {
		cur := o.Name == current
		list.Items = append(list.Items, Organization{Name: o.Name, DefaultRegion: o.DefaultRegion, Current: cur})
		mark := ""
		if cur {
			mark = "*"
		}
		rows = append(rows, []string{o.Name, o.DefaultRegion, mark})
	}
	return opts.Print.PrintRows(opts.IO, []string{"NAME", "DEFAULT REGION", "CURRENT"}, rows, list)
}

// whoAmI loads the config and asks the platform for the token's user and
// organizations.
func whoAmI(ctx context.Context, loadConfig func() (*config.Config, error), apiClient func(context.Context) (*client.Client, error)) (*config.Config, *client.Client, resources.Me, error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, nil, resources.Me{}, err
	}
	c, err := apiClient(ctx)
	if err != nil {
		return nil, nil, resources.Me{}, err
	}
	me, err := c.Me(ctx)
	return cfg, c, me, err
}

// currentOrg is the organization commands use without --organization: the
// configured one (BOTKIT_ORG included), else the only one.
func currentOrg(cfg *config.Config, orgs []resources.Organization) string {
	if cfg.Organization != "" {
		return cfg.Organization
	}
	if len(orgs) == 1 {
		return orgs[0].Name
	}
	return ""
}

// SelectOptions are the inputs of `botkit cloud organizations select`.
type SelectOptions struct {
	IO        *iostreams.IOStreams
	Config    func() (*config.Config, error)
	APIClient func(context.Context) (*client.Client, error)
	Name      string
}

// NewCmdSelect returns `botkit cloud organizations select NAME`.
func NewCmdSelect(f *cloudutil.Factory, runF func(context.Context, *SelectOptions) error) *cobra.Command {
	opts := &SelectOptions{IO: f.IOStreams}
	return &cobra.Command{
		Use:   "select NAME",
		Short: "Make an organization the current one",
		Long: `Make NAME the organization cloud commands act on when --organization is not
given: it is written to the config file. NAME must be one of your token's
organizations (botkit cloud organizations list). BOTKIT_ORG still wins.`,
		Args: cmdutil.ExactArgs(1, "NAME"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return Complete(f.APIClient)(cmd, args, toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Config, opts.APIClient, opts.Name = f.Config, f.APIClient, args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSelect(cmd.Context(), opts)
		},
	}
}

func runSelect(ctx context.Context, opts *SelectOptions) error {
	cfg, c, me, err := whoAmI(ctx, opts.Config, opts.APIClient)
	if err != nil {
		return err
	}
	var names []string
	found := false
	for _, o := range me.Organizations {
		names = append(names, o.Name)
		found = found || o.Name == opts.Name
	}
	if !found {
		return cmdutil.WithCode(cmdutil.ExitNotFound, fmt.Errorf("organization %q not found on %s (yours: %s)", opts.Name, c.Host(), strings.Join(names, ", ")))
	}
	if cfg.Context == "" {
		// BOTKIT_API_URL named the platform, but no context is there to
		// keep the choice in.
		return &config.NoContextError{Path: cfg.Path, Known: cfg.File.Names()}
	}
	ctx2 := cfg.SelectedContext()
	err = config.Update(cfg.Path, func(file *config.File) error {
		if cur := file.Find(ctx2.Name); cur != nil {
			ctx2 = *cur // as it is now: another process may have changed it
		}
		ctx2.Organization = opts.Name
		file.Upsert(ctx2)
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Current organization: %s (context %s)\n", iostreams.Printable(opts.Name), iostreams.Printable(ctx2.Name))
	if cfg.EnvOrg != "" && cfg.EnvOrg != opts.Name {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s=%s is set in this environment and wins over the config file\n", config.EnvOrg, iostreams.Printable(cfg.Organization))
	}
	return nil
}

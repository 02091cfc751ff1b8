// Package regions is `botkit cloud regions`: the platform's regions.
package regions

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// NewCmdRegions returns `botkit cloud regions`.
func NewCmdRegions(f *cloudutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "regions <command>",
		Aliases: []string{"region"},
		Short:   "List the platform's regions",
	}
	cmd.AddCommand(NewCmdList(f, nil))
	return cmd
}

// ListOptions are the inputs of `botkit cloud regions list`.
type ListOptions struct {
	IO        *iostreams.IOStreams
	APIClient func(context.Context) (*client.Client, error)
	Print     *printers.Flags // -o
}

// NewCmdList returns `botkit cloud regions list`.
func NewCmdList(f *cloudutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IOStreams, Print: printers.NewFlags()}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the regions",
		Long: `List the platform's regions; DEFAULT marks the platform's default region (an
organization's own default region is shown by botkit cloud organizations list).`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.APIClient = f.APIClient
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
	c, err := opts.APIClient(ctx)
	if err != nil {
		return err
	}
	regions, err := c.Regions(ctx)
	if err != nil {
		return err
	}
	list := resources.RegionList{Items: regions}
	if list.Items == nil {
		list.Items = []resources.Region{}
	}
	var rows [][]string
	for _, r := range regions {
		def := ""
		if r.Default {
			def = "*"
		}
		rows = append(rows, []string{r.Name, def})
	}
	return opts.Print.PrintRows(opts.IO, []string{"NAME", "DEFAULT"}, rows, list)
}

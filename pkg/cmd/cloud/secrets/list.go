package secrets

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// ListOptions are the inputs of `botkit cloud secrets list`.
type ListOptions struct {
	PlatformOptions
	Name   string // optional: show this object
	Sets   bool   // --sets: secret sets only (default true)
	All    bool   // --all: secret sets and image pull secrets (wins over Sets)
	Region string // --region filter ("" = all regions)
	Print  *printers.Flags
}

// NewCmdList returns `botkit cloud secrets list`.
func NewCmdList(f *cloudutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{PlatformOptions: newPlatformOptions(f), Print: printers.NewFlags()}
	cmd := &cobra.Command{
		Use:     "list [NAME]",
		Aliases: []string{"ls"},
		Short:   "List secret sets (and image pull secrets), or show one",
		Long: `List the secret sets of the organization, in every region unless --region is
given. --all lists the image pull secrets too (--no-sets says the same).

With NAME, show that object: a secret set's key names and status, or an image
pull secret's host, username and status. Values are never shown.

An empty list prints "No resources found" on stderr and exits 0.`,
		Example: `  botkit cloud secrets list
  botkit cloud secrets list --all -o wide
  botkit cloud secrets list support-bot
  botkit cloud secrets list -r eu-central -o json`,
		Args:              cmdutil.RangeArgs(0, 1, "at most one NAME"),
		ValidArgsFunction: completeNames(&opts.PlatformOptions, func() string { return kindFilter(opts.Sets && !opts.All) }, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			if opts.All && cmd.Flags().Changed("sets") && opts.Sets {
				return cmdutil.FlagErrorf("--all and --sets cannot be used together")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runList(cmd.Context(), opts)
		},
	}
	cmdutil.BoolPair(cmd.Flags(), &opts.Sets, "sets", "s", true, "Secret sets only (the default; --no-sets is --all)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "List image pull secrets too")
	cmd.Flags().StringVarP(&opts.Region, "region", "r", "", "Only objects in this region (default: all regions)")
	addOrganizationFlag(cmd, &opts.PlatformOptions)
	opts.Print.AddFlags(cmd)
	registerFlagCompletions(cmd, &opts.PlatformOptions)
	return cmd
}

// kindFilter is the kind a list asks for: SecretSet with --sets, all otherwise.
func kindFilter(sets bool) string {
	if sets {
		return resources.KindSecretSet
	}
	return ""
}

func runList(ctx context.Context, opts *ListOptions) error {
	if opts.Region != "" {
		if err := resources.ValidateRegion(opts.Region); err != nil {
			return cmdutil.FlagErrorf("--region: %v", err)
		}
	}
	if opts.Name != "" {
		if err := validateName(opts.Name); err != nil {
			return err
		}
	}
	p, err := opts.Print.ToPrinter()
	if err != nil {
		return err
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	if opts.Name != "" {
		obj, err := c.Get(ctx, org, opts.Name)
		if err != nil {
			return err
		}
		if opts.Region != "" && obj.Meta().Region != opts.Region {
			return notFoundInRegion(obj, opts.Region)
		}
		return p.PrintObject(opts.IO, obj)
	}
	objs, err := c.List(ctx, org, client.ListOptions{Region: opts.Region, Kind: kindFilter(opts.Sets && !opts.All)})
	if err != nil {
		return err
	}
	return p.PrintList(opts.IO, objs)
}

func notFoundInRegion(obj resources.Object, region string) error {
	return &resources.Error{Code: resources.CodeNotFound,
		Message: objRef(obj) + " is in region " + obj.Meta().Region + ", not " + region}
}

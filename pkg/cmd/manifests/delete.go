package manifests

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// DeleteOptions are the inputs of `botkit delete -f`.
type DeleteOptions struct {
	ManifestOptions
	IgnoreNotFound bool
	DryRun         string // none, client, server
}

// DeleteSummary is what `botkit --help` lists of `botkit delete`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var DeleteSummary = cmdutil.Summary{
	Use:   "delete -f PATH...",
	Short: "Delete the objects the manifests name",
}

// NewCmdDelete returns `botkit delete`.
func NewCmdDelete(f *cloudutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{ManifestOptions: newManifestOptions(f), DryRun: DryRunNone}
	cmd := &cobra.Command{
		Use:   DeleteSummary.Use,
		Short: DeleteSummary.Short,
		Long: `Delete the secret sets, image pull secrets and agents the manifests name, all
of an organization in one transaction: a missing object is exit 3 and nothing
is deleted, unless --ignore-not-found. Values in the manifests are not read.
A deleted agent's containers are stopped and removed after the commit.

There is no confirmation prompt (kubectl's convention: the files name
exactly what goes), so it runs unattended in CI. --dry-run lists what would
go: server (the default of --dry-run alone) asks the platform, which also
checks that every object exists; client lists the manifests' objects without
a request.`,
		Example: `  botkit delete -f old-bot.yaml
  botkit delete -f secrets/ -R --ignore-not-found
  botkit delete -f secrets/ --dry-run`,
		Args: cmdutil.ExactArgs(0, "no arguments (name manifests with -f)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDelete(cmd.Context(), opts)
		},
	}
	addManifestFlags(cmd, &opts.ManifestOptions, "delete the objects of")
	cmd.Flags().BoolVar(&opts.IgnoreNotFound, "ignore-not-found", false, "Treat a missing object as deleted (otherwise exit 3, nothing deleted)")
	addDryRunFlag(cmd, &opts.DryRun, "list the manifests' objects, send nothing", "the platform checks, deletes nothing")
	return cmd
}

func runDelete(ctx context.Context, opts *DeleteOptions) error {
	if err := checkDryRun(opts.DryRun); err != nil {
		return err
	}
	groups, err := opts.load(ctx, loadOptions{skipValues: true, local: opts.DryRun == DryRunClient})
	if err != nil {
		return err
	}
	if opts.DryRun == DryRunClient {
		return writeDryRunLines(opts.IO.Out, groups, resources.ActionDeleted)
	}
	if err := opts.announce(ctx, opts.DryRun == DryRunNone, "delete"); err != nil {
		return err
	}
	c, err := opts.connect(ctx)
	if err != nil {
		return err
	}
	results, err := sendDelete(ctx, c, groups, deleteRequest{IgnoreNotFound: opts.IgnoreNotFound, DryRun: opts.DryRun == DryRunServer})
	if werr := writeDeleteLines(opts.IO.Out, results); werr != nil {
		return werr
	}
	if err != nil {
		return perObject(err, groups[len(results)], "nothing was deleted")
	}
	return nil
}

package manifests

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
)

// DiffOptions are the inputs of `botkit diff`.
type DiffOptions struct {
	ManifestOptions
	AllowPlaintext bool
	Prune          bool
	Selector       string
	ApplySet       string
	AllowEmpty     bool // --allow-empty: --prune with no object in the manifests
}

// NewCmdDiff returns `botkit diff`.
func NewCmdDiff(f *cloudutil.Factory, runF func(context.Context, *DiffOptions) error) *cobra.Command {
	opts := &DiffOptions{ManifestOptions: newManifestOptions(f)}
	cmd := &cobra.Command{
		Use:   "diff -f PATH...",
		Short: "Show what apply would change, key by key, never a value",
		Long: `Show what ` + "`botkit apply`" + ` would change: the platform's dry run of the same
request, compared against what it stores. The client never reads a value.

One line per object that would change, then one per key and field:
  + added   ~ changed   - removed
Removed keys and, with --prune, the objects that would be pruned are shown.
Unchanged objects are not.

Exit status: 0 no differences, 1 differences, 2 or more an error (a failure
that would be exit 1 elsewhere, such as an unreachable platform, is exit 2
here, so that 1 always means differences).`,
		Example: `  botkit diff -f secrets/ -R
  botkit diff -f secrets/ --prune -l team=voice --applyset voice-prod`,
		Args: cmdutil.ExactArgs(0, "no arguments (name manifests with -f)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if runF != nil {
				err = runF(cmd.Context(), opts)
			} else {
				err = runDiff(cmd.Context(), opts)
			}
			return diffExit(err)
		},
	}
	addManifestFlags(cmd, &opts.ManifestOptions, "compare")
	addAllowPlaintextFlag(cmd, &opts.AllowPlaintext)
	addPruneFlags(cmd, &opts.Prune, &opts.Selector, &opts.ApplySet, &opts.AllowEmpty)
	return cmd
}

// ErrDifferences is diff's answer when something would change: exit 1,
// nothing more printed (the differences are on stdout).
var ErrDifferences error = cmdutil.SilentError{Code: cmdutil.ExitError}

// diffExit keeps exit 1 for differences alone: any other error that would
// exit 1 (a runtime failure) exits 2 (kubectl's convention: >1 is an
// error).
func diffExit(err error) error {
	if err == nil || errors.Is(err, ErrDifferences) {
		return err
	}
	if cmdutil.ExitCode(err) == cmdutil.ExitError {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	return err
}

func runDiff(ctx context.Context, opts *DiffOptions) error {
	if err := checkPrune(opts.Prune, opts.Selector, opts.ApplySet, opts.AllowEmpty); err != nil {
		return err
	}
	groups, err := opts.load(ctx, loadOptions{allowPlaintext: opts.AllowPlaintext, prune: opts.Prune})
	if err != nil {
		return err
	}
	if groups, err = opts.pruneGroups(ctx, groups, opts.Prune, opts.Selector, opts.ApplySet, opts.AllowEmpty, false); err != nil {
		return err
	}
	c, err := opts.connect(ctx)
	if err != nil {
		return err
	}
	results, err := sendPlan(ctx, c, groups, applyRequest{ApplySet: opts.ApplySet, Prune: opts.Prune, Selector: opts.Selector})
	if err != nil {
		// Show nothing partial: the diff is of every organization or none.
		return perObject(err, groups[len(results)], "no difference could be computed")
	}
	changed, err := writeDiff(opts.IO.Out, results)
	if err != nil {
		return err
	}
	if changed {
		return ErrDifferences
	}
	return nil
}

package manifests

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// DiffOptions are the inputs of `botkit diff`.
type DiffOptions struct {
	ManifestOptions
	AllowPlaintext bool
	Prune          bool
	Selector       string
	ApplySet       string
	AllowEmpty     bool            // --allow-empty: --prune with no object in the manifests
	Print          *printers.Flags // -o json|yaml, --jq, --template; none: the lines
}

// DiffSummary is what `botkit --help` lists of `botkit diff`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var DiffSummary = cmdutil.Summary{
	Use:   "diff -f PATH...",
	Short: "Show what apply would change, key by key, never a value",
}

// NewCmdDiff returns `botkit diff`.
func NewCmdDiff(f *cloudutil.Factory, runF func(context.Context, *DiffOptions) error) *cobra.Command {
	opts := &DiffOptions{ManifestOptions: newManifestOptions(f), Print: newDiffPrintFlags()}
	cmd := &cobra.Command{
		Use:   DiffSummary.Use,
		Short: DiffSummary.Short,
		Long: `Show what ` + "`botkit apply`" + ` would change: the platform's dry run of the same
request, compared against what it stores. The client never reads a value.

One line per object that would change, then one per key and field:
  + added   ~ changed   - removed
Removed keys and, with --prune, the objects that would be pruned are shown.
Unchanged objects are not. A change of labels shows each label's old and
new value (labels are not secret), and so does each field of an agent's spec
that changes:
  ~ agent/support-bot
      ~ spec.image: ghcr.io/acme/bot:0.1 -> ghcr.io/acme/bot:0.2

An object that another apply set owns (apply would refuse it without
--applyset NAME) is compared as apply with its own apply set would write
it: its line names the apply set, and a note on stderr says which
--applyset apply needs. A diff only reads: ownership never changes its
exit status.

-o json|yaml prints the plan as an ApplyResult: per object its action
(created, configured, unchanged, pruned) and per key, field and label its
change (added, changed, removed, unchanged), never a value; JSON Schema
manifests/schema/applyreport.schema.json. --jq and --template work on it.

Exit status: 0 no differences, 1 differences, 2 or more an error (a failure
that would be exit 1 elsewhere, such as an unreachable platform, is exit 2
here, so that 1 always means differences).`,
		Example: `  botkit diff -f secrets/ -R
  botkit diff -f secrets/ --prune -l team=voice --applyset voice-prod
  botkit diff -f secrets/ --jq '.items[] | select(.action != "unchanged") | .name'`,
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
	opts.Print.AddFlags(cmd)
	return cmd
}

// newDiffPrintFlags is diff's -o: lines by default, or the plan as json or
// yaml.
func newDiffPrintFlags() *printers.Flags {
	return printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML)
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
	if opts.Print == nil {
		opts.Print = newDiffPrintFlags()
	}
	if err := opts.Print.Validate(); err != nil {
		return err
	}
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
	diffs, failed, err := planDiff(ctx, c, groups, applyRequest{ApplySet: opts.ApplySet, Prune: opts.Prune, Selector: opts.Selector})
	if err != nil {
		// Show nothing partial: the diff is of every organization or none.
		return perObject(err, failed, "no difference could be computed")
	}
	if err := writeOwners(opts.IO.ErrOut, diffs, opts.ApplySet); err != nil {
		return err
	}
	var changed bool
	if opts.Print.Lines() {
		changed, err = writeDiff(opts.IO.Out, diffs, opts.ApplySet)
	} else {
		rep := diffReport(diffs, opts.ApplySet)
		changed = differs(rep)
		err = opts.Print.PrintValue(opts.IO, rep)
	}
	if err != nil {
		return err
	}
	if changed {
		return ErrDifferences
	}
	return nil
}

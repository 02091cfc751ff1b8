package manifests

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// ApplyOptions are the inputs of `botkit apply`.
type ApplyOptions struct {
	ManifestOptions
	AllowPlaintext bool
	DryRun         string // none, client, server
	Prune          bool
	Selector       string
	ApplySet       string
	AllowEmpty     bool // --allow-empty: --prune with no object in the manifests
	Wait           bool
	Print          *printers.Flags // -o: json, yaml or name; none: a line per object
}

// ActionValidated is what --dry-run=client reports per object: the
// manifest is valid and its values resolve; the platform was not asked
// whether it would create or change the object.
const ActionValidated = resources.ActionValidated

// ApplySummary is what `botkit --help` lists of `botkit apply`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var ApplySummary = cmdutil.Summary{
	Use:   "apply -f PATH...",
	Short: "Make secret sets, image pull secrets and agents equal their manifests",
}

// NewCmdApply returns `botkit apply`.
func NewCmdApply(f *cloudutil.Factory, runF func(context.Context, *ApplyOptions) error) *cobra.Command {
	opts := &ApplyOptions{ManifestOptions: newManifestOptions(f), DryRun: DryRunNone, Print: newApplyPrintFlags()}
	cmd := &cobra.Command{
		Use:   ApplySummary.Use,
		Short: ApplySummary.Short,
		Long: `Apply SecretSet, ImagePullSecret and Agent manifests: each object becomes
equal to its manifest (keys the manifest does not list are removed, labels
replaced).

Every manifest is read, checked and its values resolved before anything is
sent: one bad document means nothing is applied (exit 2), and every problem
is listed with file:line. Then the objects of each organization go in ONE
request, which the platform applies in one transaction: all of them, or
none (a region conflict, a limit or a stale version of any object leaves
every object as it was). Objects of several organizations are one request
per organization.

Values come from the environment ({fromEnv: VAR}), from files ({fromFile:
PATH}, relative to the manifest) or are sealed ({sealed: VALUE}, from botkit
seal): encrypted to the organization's key, sent as they are and decrypted by
the platform only, so the manifest can hold them in git. Literal values are
refused unless --allow-plaintext: manifests live in git.

Agents are written in the same transaction as the secrets they name; an
agent whose spec changes must name a secret set and an image pull secret
that exist in its region (in the manifests or already), in a region with a
runtime. After the commit, each agent whose spec changed (or that is new)
gets a deployment, as botkit deploy makes one; an agent whose spec and
labels are unchanged gets none. --wait waits for those rollouts; a
deployment that fails exits 1 (with or without --wait). An agent's name is
its own: it may be a secret set's name too.

--prune -l key=value deletes, in the same transaction, objects that apply
wrote, that match the selector, that the manifests no longer name and that
belong to no other apply set (--applyset NAME); a pruned agent's containers
are stopped and removed. An object created with
` + "`botkit cloud secrets set`" + ` is never pruned, whatever its labels. Manifests
that hold no object still prune (the last one was removed): with --applyset
the set, without it only with --allow-empty, since the selector alone would
choose every object to delete.

Output is one line per object, never a value:
  secretset/NAME created|configured|unchanged|pruned
  agent/NAME created|configured: deployment N rolling-out|serving|failed
with " (dry run)" for --dry-run=server (the platform's answer, nothing
written) and "validated (dry run)" for --dry-run=client (checked locally,
nothing sent). -o json|yaml prints an ApplyResult: per object its
organization, action, version, key and field changes and the object after
the apply (key names only); its JSON Schema is manifests/schema/
applyreport.schema.json. --jq EXPR and --template TEMPLATE (or -o
go-template=TEMPLATE) work on that JSON; -o name prints kind/name.`,
		Example: `  botkit apply -f secrets/ -R
  botkit apply -f support-bot.yaml --dry-run=server
  cat manifests.yaml | botkit apply -f -
  botkit apply -f secrets/ --prune -l team=voice --applyset voice-prod`,
		Args: cmdutil.ExactArgs(0, "no arguments (name manifests with -f)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runApply(cmd.Context(), opts)
		},
	}
	addManifestFlags(cmd, &opts.ManifestOptions, "apply")
	addAllowPlaintextFlag(cmd, &opts.AllowPlaintext)
	addDryRunFlag(cmd, &opts.DryRun, "check locally, send nothing", "the platform says what would change")
	addPruneFlags(cmd, &opts.Prune, &opts.Selector, &opts.ApplySet, &opts.AllowEmpty)
	cmd.Flags().BoolVar(&opts.Wait, "wait", false, "Wait until every applied object is ready or failed and every agent's rollout has ended (any failed exits 1)")
	opts.Print.AddFlags(cmd)
	return cmd
}

// newApplyPrintFlags is apply's -o: a line per object by default, or the
// objects as json, yaml or names.
func newApplyPrintFlags() *printers.Flags {
	return printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML, printers.FormatName)
}

func runApply(ctx context.Context, opts *ApplyOptions) error {
	if err := checkDryRun(opts.DryRun); err != nil {
		return err
	}
	if opts.Print == nil {
		opts.Print = newApplyPrintFlags()
	}
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	if err := checkPrune(opts.Prune, opts.Selector, opts.ApplySet, opts.AllowEmpty); err != nil {
		return err
	}
	if opts.Wait && opts.DryRun != DryRunNone {
		return cmdutil.FlagErrorf("--wait: nothing is written with --dry-run, so there is nothing to wait for")
	}
	local := opts.DryRun == DryRunClient
	groups, err := opts.load(ctx, loadOptions{allowPlaintext: opts.AllowPlaintext, local: local, prune: opts.Prune})
	if err != nil {
		return err
	}
	if groups, err = opts.pruneGroups(ctx, groups, opts.Prune, opts.Selector, opts.ApplySet, opts.AllowEmpty, local); err != nil {
		return err
	}
	if opts.DryRun == DryRunClient {
		return printLocal(opts, groups)
	}
	if err := opts.announce(ctx, opts.Prune && opts.DryRun == DryRunNone, "prune"); err != nil {
		return err
	}
	c, err := opts.connect(ctx)
	if err != nil {
		return err
	}
	req := applyRequest{ApplySet: opts.ApplySet, Prune: opts.Prune, Selector: opts.Selector, DryRun: opts.DryRun == DryRunServer}
	if opts.DryRun == DryRunNone && !opts.Prune { // a prune went through the check above
		if err := guardChanges(ctx, &opts.ManifestOptions, c, groups, req); err != nil {
			return err
		}
	}
	results, err := sendApply(ctx, c, groups, req)
	if err != nil {
		// The organizations before the failing one were applied: say so
		// (in lines; -o output is all the objects or nothing).
		if opts.Print.Lines() {
			if werr := writeApplyLines(opts.IO.Out, results); werr != nil {
				return werr
			}
		}
		return perObject(err, groups[len(results)], "nothing was applied")
	}
	if opts.DryRun == DryRunNone {
		warnEmptyValues(opts.IO.ErrOut, groups)
		warnScaling(opts.IO.ErrOut, groups, results)
	}
	var failed []string
	if opts.Wait {
		if failed, err = waitAll(ctx, opts, results); err != nil {
			return err
		}
	} else if opts.DryRun == DryRunNone {
		// A deployment that failed at once (its image could not be
		// resolved) or none made: exit 1 without --wait too.
		failed = failedRollouts(results)
	}
	switch {
	case opts.Print.Lines():
		err = writeApplyLines(opts.IO.Out, results)
	case opts.Print.Output == printers.FormatName:
		err = printObjects(opts, results)
	default:
		var rep resources.ApplyReport
		if rep, err = applyReport(results, opts.ApplySet, opts.DryRun == DryRunServer); err == nil {
			err = opts.Print.PrintValue(opts.IO, rep)
		}
	}
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return cloudutil.FailedErr(failed)
	}
	return nil
}

// printLocal reports --dry-run=client: every object checked, nothing sent.
func printLocal(opts *ApplyOptions, groups []apply.Group) error {
	if !opts.Print.Lines() && opts.Print.Output != printers.FormatName {
		rep, err := localReport(groups, opts.ApplySet)
		if err != nil {
			return err
		}
		return opts.Print.PrintValue(opts.IO, rep)
	}
	if !opts.Print.Lines() {
		var objs []resources.Object
		for _, g := range groups {
			objs = append(objs, g.Objects()...)
		}
		return printList(opts, objs)
	}
	return writeDryRunLines(opts.IO.Out, groups, ActionValidated)
}

// printObjects prints the names of the objects as they are after the
// apply (-o name); pruned objects are gone and not printed.
func printObjects(opts *ApplyOptions, results []OrgApply) error {
	var objs []resources.Object
	for _, r := range results {
		for _, it := range r.Result.Items {
			if it.Action != resources.ActionPruned && it.Object != nil {
				objs = append(objs, *it.Object)
			}
		}
	}
	return printList(opts, objs)
}

// printList prints objs as a List (json, yaml) or names: never a value (the
// printers show key names only).
func printList(opts *ApplyOptions, objs []resources.Object) error {
	p, err := opts.Print.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintList(opts.IO, objs)
}

// waitAll waits until every object apply wrote is ready or failed, one list
// request per organization and round, and returns the failed ones
// ("secretset/NAME failed: why"). The results' objects are updated to their
// final state.
func waitAll(ctx context.Context, opts *ApplyOptions, results []OrgApply) ([]string, error) {
	c, err := opts.connect(ctx)
	if err != nil {
		return nil, err
	}
	var failed []string
	for _, r := range results {
		var names []string
		var items []*resources.ApplyResultItem
		for i := range r.Result.Items {
			it := &r.Result.Items[i]
			if it.Action != resources.ActionPruned && it.Kind != resources.KindAgent {
				names = append(names, it.Name)
				items = append(items, it)
			}
		}
		objs, lines, err := cloudutil.Wait(ctx, opts.IO, c, r.Organization, names)
		if err != nil {
			return nil, err
		}
		for i, o := range objs {
			items[i].Object = &o
		}
		failed = append(failed, lines...)
		if err := waitRollouts(ctx, opts, c, r); err != nil {
			return nil, err
		}
	}
	return append(failed, failedRollouts(results)...), nil
}

// waitRollouts waits until the deployment apply made of each agent of r is
// no longer rolling out, then reads the agent again (its status).
func waitRollouts(ctx context.Context, opts *ApplyOptions, c *client.Client, r OrgApply) error {
	for i := range r.Result.Items {
		it := &r.Result.Items[i]
		if it.Kind != resources.KindAgent || it.Deployment == nil {
			continue
		}
		if it.Deployment.Result == resources.DeploymentRollingOut {
			if opts.IO.ShowProgress() {
				fmt.Fprintf(opts.IO.ErrOut, "Waiting for the rollout of %s (deployment %d)...\n", iostreams.Printable(it.Ref()), it.Deployment.Number)
			}
			d, err := c.WaitRollout(ctx, r.Organization, it.Name, it.Deployment.Number, nil)
			if err != nil {
				return err
			}
			it.Deployment = &d
		}
		a, err := c.Agent(ctx, r.Organization, it.Name)
		if err != nil {
			return err
		}
		it.Object = &resources.Object{Agent: &a}
	}
	return nil
}

// failedRollouts returns a line per agent whose deployment failed, or for
// which none could be made: "agent/NAME failed: deployment N: why".
func failedRollouts(results []OrgApply) []string {
	var out []string
	for _, r := range results {
		for _, it := range r.Result.Items {
			switch {
			case it.Kind != resources.KindAgent:
			case it.Message != "":
				out = append(out, iostreams.Printable(it.Ref()+" failed: "+it.Message))
			case it.Deployment != nil && it.Deployment.Result == resources.DeploymentFailed:
				msg := it.Deployment.Message
				if msg == "" {
					msg = "no reason given"
				}
				out = append(out, iostreams.Printable(fmt.Sprintf("%s failed: deployment %d: %s", it.Ref(), it.Deployment.Number, msg)))
			}
		}
	}
	return out
}

// guardChanges is apply's protection check in a protected context that
// --context did not name: the platform's plan (a dry run) says which
// objects the apply would change (keys removed or values replaced) or
// prune; when there is any, cloudutil.Protect decides. Creating objects
// and leaving them unchanged need no check.
func guardChanges(ctx context.Context, opts *ManifestOptions, api API, groups []apply.Group, req applyRequest) error {
	if opts.Target == nil {
		return nil
	}
	t, err := opts.Target()
	if err != nil || !t.Protected || t.Explicit {
		return err
	}
	req.DryRun = true
	plan, err := sendApply(ctx, api, groups, req)
	if err != nil {
		return perObject(err, groups[len(plan)], "nothing was applied")
	}
	var changed []string
	for _, r := range plan {
		for _, it := range r.Result.Items {
			if it.Action == resources.ActionConfigured || it.Action == resources.ActionPruned {
				changed = append(changed, iostreams.Printable(it.Ref()))
			}
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return opts.protect(ctx, t, "apply changes to "+strings.Join(changed, ", "))
}

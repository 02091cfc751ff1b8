package secrets

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// HistoryOptions are the inputs of `botkit cloud secrets history`.
type HistoryOptions struct {
	PlatformOptions
	Name    string
	Version int64 // --version: that version's key names (0: the list)
	Print   *printers.Flags
}

// NewCmdHistory returns `botkit cloud secrets history`.
func NewCmdHistory(f *cloudutil.Factory, runF func(context.Context, *HistoryOptions) error) *cobra.Command {
	opts := &HistoryOptions{PlatformOptions: newPlatformOptions(f), Print: printers.NewFlags()}
	opts.Print.Now = f.Now
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "Show the versions of a secret set or image pull secret",
		Long: `Show the kept versions of NAME, newest first: who wrote each (ACTOR), through
which command (SOURCE) and which keys it added (+), changed (~) and removed (-).
Never a value. --version N shows the key names version N holds.

Every write of an object's contents makes a version; the platform keeps the
newest 10 by default (botkit-platform orgs set ORG --history-limit N). Roll back
with botkit cloud secrets rollback NAME --to N.`,
		Example: `  botkit cloud secrets history support-bot
  botkit cloud secrets history support-bot --version 3
  botkit cloud secrets history support-bot -o json`,
		Args:              cmdutil.ExactArgs(1, "NAME"),
		ValidArgsFunction: completeNames(&opts.PlatformOptions, func() string { return "" }, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runHistory(cmd.Context(), opts)
		},
	}
	cmd.Flags().Int64Var(&opts.Version, "version", 0, "Show the key names of this version")
	opts.Print.AddFlags(cmd)
	addOrganizationFlag(cmd, &opts.PlatformOptions)
	registerFlagCompletions(cmd, &opts.PlatformOptions)
	_ = cmd.RegisterFlagCompletionFunc("version", completeVersions(&opts.PlatformOptions)) // error ignored: the flag was just added
	return cmd
}

func runHistory(ctx context.Context, opts *HistoryOptions) error {
	if err := validateName(opts.Name); err != nil {
		return err
	}
	if opts.Version < 0 {
		return cmdutil.FlagErrorf("--version: want a version number (see botkit cloud secrets history %s)", opts.Name)
	}
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	now := opts.Clock()
	if opts.Version > 0 {
		v, err := c.Version(ctx, org, opts.Name, opts.Version)
		if err != nil {
			return err
		}
		rows := make([][]string, 0, len(v.Keys))
		for _, k := range v.Keys {
			rows = append(rows, []string{k})
		}
		if v.Host != "" {
			rows = [][]string{{"host " + v.Host}, {"username " + v.Username}}
		}
		return opts.Print.PrintRows(opts.IO, []string{fmt.Sprintf("KEYS OF VERSION %d (%s AGO, %s)", v.Version, printers.Age(&v.Time, now), v.Actor)}, rows, v)
	}
	versions, err := c.Versions(ctx, org, opts.Name)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(versions))
	for _, v := range versions {
		rows = append(rows, []string{strconv.FormatInt(v.Version, 10), printers.Age(&v.Time, now), v.Actor, v.Source, changes(v)})
	}
	list := resources.ObjectVersionList{APIVersion: resources.APIVersion, Kind: resources.KindVersionList, Items: versions}
	if list.Items == nil {
		list.Items = []resources.ObjectVersion{}
	}
	return opts.Print.PrintRows(opts.IO, []string{"VERSION", "AGE", "ACTOR", "SOURCE", "CHANGES"}, rows, list)
}

// changes is the CHANGES cell: "+A ~B -C" (key names only).
func changes(v resources.ObjectVersion) string {
	var parts []string
	for _, k := range v.Added {
		parts = append(parts, "+"+k)
	}
	for _, k := range v.Changed {
		parts = append(parts, "~"+k)
	}
	for _, k := range v.Removed {
		parts = append(parts, "-"+k)
	}
	return strings.Join(parts, " ")
}

// RollbackOptions are the inputs of `botkit cloud secrets rollback`.
type RollbackOptions struct {
	PlatformOptions
	Name string
	To   int64 // --to
	Skip bool
}

// NewCmdRollback returns `botkit cloud secrets rollback`.
func NewCmdRollback(f *cloudutil.Factory, runF func(context.Context, *RollbackOptions) error) *cobra.Command {
	opts := &RollbackOptions{PlatformOptions: newPlatformOptions(f)}
	cmd := &cobra.Command{
		Use:   "rollback NAME --to VERSION",
		Short: "Give a secret set or image pull secret the contents of an earlier version",
		Long: `Write the contents of version VERSION of NAME (its keys and values, labels, an
image pull secret's registry and credentials) as its next version: nothing is
lost, the rollback itself can be rolled back. The confirmation lists the keys
the rollback adds (+), restores (~) and removes (-), never a value; --skip
answers it (required without a terminal). Rolling back to the contents NAME
has already (its current version) writes nothing: "unchanged", no new version.
A version that was purged or never written exits 3; a write by someone else
since the confirmation exits 5.`,
		Example: `  botkit cloud secrets history support-bot
  botkit cloud secrets rollback support-bot --to 3`,
		Args:              cmdutil.ExactArgs(1, "NAME"),
		ValidArgsFunction: completeNames(&opts.PlatformOptions, func() string { return "" }, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if !cmd.Flags().Changed("to") {
				return cmdutil.FlagErrorf("--to is required: the version to roll back to (see botkit cloud secrets history %s)", opts.Name)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRollback(cmd.Context(), opts)
		},
	}
	cmd.Flags().Int64Var(&opts.To, "to", 0, "The version whose contents to restore (required)")
	cmdutil.SkipFlag(cmd.Flags(), &opts.Skip, "Roll back without confirmation")
	addOrganizationFlag(cmd, &opts.PlatformOptions)
	registerFlagCompletions(cmd, &opts.PlatformOptions)
	_ = cmd.RegisterFlagCompletionFunc("to", completeVersions(&opts.PlatformOptions)) // error ignored: the flag was just added
	return cmd
}

func runRollback(ctx context.Context, opts *RollbackOptions) error {
	if err := validateName(opts.Name); err != nil {
		return err
	}
	if opts.To < 1 {
		return cmdutil.FlagErrorf("--to: want a version number (see botkit cloud secrets history %s)", opts.Name)
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	if err := opts.CheckSkip(opts.Skip); err != nil {
		return err
	}
	cur, err := c.Get(ctx, org, opts.Name)
	if err != nil {
		return err
	}
	v, err := c.Version(ctx, org, opts.Name, opts.To)
	if err != nil {
		return err
	}
	if !opts.Skip {
		what := fmt.Sprintf("Roll back %s to version %d?", objRef(cur), v.Version)
		if plan := rollbackPlan(cur, v); plan != "" {
			what += " Keys: " + plan
		}
		if err := opts.Confirm(ctx, org, what, fmt.Sprintf("rolling back %s needs confirmation", objRef(cur)), false); err != nil {
			return err
		}
	}
	obj, err := c.Rollback(ctx, org, opts.Name, opts.To, cur.Meta().ResourceVersion)
	if err != nil {
		return err
	}
	if obj.Meta().ResourceVersion == cur.Meta().ResourceVersion {
		// The object has that version's contents already: nothing was
		// written, no new version.
		return printers.PrintOperations(opts.IO.Out, printers.Operation{Ref: objRef(obj), Action: resources.ActionUnchanged,
			Detail: fmt.Sprintf("it has the contents of version %d", v.Version)})
	}
	return printers.PrintOperations(opts.IO.Out, printers.Operation{Ref: objRef(obj), Action: "rolled back",
		Detail: fmt.Sprintf("version %d has the contents of version %d", obj.Meta().Generation, v.Version)})
}

// rollbackPlan is what a rollback does to the keys: "+A ~B -C" (+ back,
// ~ given version's value, - gone). Names only.
func rollbackPlan(cur resources.Object, v resources.ObjectVersion) string {
	var have []string
	if cur.SecretSet != nil {
		have = cur.SecretSet.Spec.Keys
	}
	var parts []string
	for _, k := range v.Keys {
		if slices.Contains(have, k) {
			parts = append(parts, "~"+k)
		} else {
			parts = append(parts, "+"+k)
		}
	}
	for _, k := range have {
		if !slices.Contains(v.Keys, k) {
			parts = append(parts, "-"+k)
		}
	}
	return strings.Join(parts, " ")
}

// completeVersions offers the kept version numbers of the object named by
// the command's argument.
func completeVersions(s *PlatformOptions) func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) != 1 {
			return nil, noFiles
		}
		return completeFrom(cmd, s, toComplete, func(ctx context.Context, c *client.Client, org string) ([]string, error) {
			vs, err := c.Versions(ctx, org, args[0])
			out := make([]string, 0, len(vs))
			for _, v := range vs {
				out = append(out, strconv.FormatInt(v.Version, 10))
			}
			return out, err
		})
	}
}

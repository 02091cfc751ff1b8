// Package manifests implements the commands that work from manifests:
// `botkit apply`, `botkit diff` and `botkit delete -f`.
//
// Each command loads every manifest (pkg/apply: strict decoding, value
// sources resolved, every problem listed) before it asks the platform
// anything, then sends one request per organization, which the platform
// carries out in one transaction. Output names objects, keys and fields,
// never a value.
//
// Every command has an Options struct filled by its flags and a run
// function tested without cobra against a real platform.
package manifests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The client is the platform API of pkg/apply.
var _ API = (*client.Client)(nil)

// Dry-run modes of --dry-run.
const (
	DryRunNone   = "none"
	DryRunClient = "client" // check and resolve locally; send nothing
	DryRunServer = "server" // the platform's dry run: what would change
)

// ManifestOptions is what the manifest commands share: the streams, how to reach the
// platform, and the manifests to read.
type ManifestOptions struct {
	IO *iostreams.IOStreams
	// APIClient returns the client of the configured platform.
	APIClient func(ctx context.Context) (*client.Client, error)
	// ResolveOrg turns --organization into the current organization
	// (cmdutil.Factory.Organization).
	ResolveOrg func(ctx context.Context, flag string) (string, error)
	// LookupEnv reads the environment for fromEnv (nil: os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// WorkingDir is where fromFile paths of manifests read from stdin start
	// (nil: the process's working directory).
	WorkingDir func() (string, error)
	// Target returns the context the command acts in (nil: an unprotected
	// one, not announced).
	Target func() (cloudutil.Target, error)
	// Prompter asks for a protected context's name; only called when
	// IO.CanPrompt().
	Prompter func() prompter.Prompter

	Files        []string // -f/--filename: files, directories, "-" for stdin
	Recursive    bool     // -R
	Organization string   // --organization: for documents that name none
}

func newManifestOptions(f *cloudutil.Factory) ManifestOptions {
	return ManifestOptions{
		IO:         f.IOStreams,
		APIClient:  f.APIClient,
		ResolveOrg: f.Organization,
		LookupEnv:  os.LookupEnv,
		WorkingDir: f.WorkingDir,
		Target:     f.Target,
		Prompter: func() prompter.Prompter {
			return f.Prompter(f.Getenv != nil && f.Getenv("ACCESSIBLE") != "")
		},
	}
}

// announce prints, on a terminal, the context the command acts in as its
// first line (stderr); a command that deletes (delete -f, apply --prune)
// then goes through the protection check (cloudutil.Protect) for what.
func (s *ManifestOptions) announce(ctx context.Context, deletes bool, what string) error {
	if s.Target == nil {
		return nil
	}
	t, err := s.Target()
	if err != nil {
		return err
	}
	if s.IO.ShowProgress() {
		fmt.Fprintf(s.IO.ErrOut, "Context %s (%s)\n", iostreams.Printable(t.Context), iostreams.Printable(t.Platform))
	}
	if !deletes {
		return nil
	}
	return s.protect(ctx, t, what)
}

// protect is the protection check (cloudutil.Protect) of a manifest
// command about to do what.
func (s *ManifestOptions) protect(ctx context.Context, t cloudutil.Target, what string) error {
	return cloudutil.Protect(ctx, s.IO, s.Prompter, t, cloudutil.Guarded{What: what})
}

// addManifestFlags registers -f, -R and --organization.
func addManifestFlags(cmd *cobra.Command, s *ManifestOptions, verb string) {
	cmd.Flags().StringArrayVarP(&s.Files, "filename", "f", nil,
		fmt.Sprintf("Manifest file, directory or - (stdin) to %s; repeatable", verb))
	cmd.Flags().BoolVarP(&s.Recursive, "recursive", "R", false, "Read the directories given with -f recursively")
	cloudutil.AddOrganizationFlag(cmd, &s.Organization)
}

// loadOptions say how the manifests are loaded.
type loadOptions struct {
	skipValues     bool // delete: names only
	allowPlaintext bool
	local          bool // --dry-run=client: never ask the platform
	prune          bool // --prune: a directory may hold no manifest
}

// load reads, checks and resolves every manifest (an *apply.ManifestError listing
// every problem: exit 2), then puts the documents that name no organization
// into the current one. Nothing has been sent when it fails.
func (s *ManifestOptions) load(ctx context.Context, o loadOptions) ([]apply.Group, error) {
	workDir := ""
	if s.WorkingDir != nil {
		wd, err := s.WorkingDir()
		if err != nil {
			return nil, err
		}
		workDir = wd
	}
	opts := apply.Options{
		Paths: s.Files, Recursive: s.Recursive, SkipValues: o.skipValues, EmptyDirs: o.prune,
		Resolve: apply.ResolveOptions{LookupEnv: s.LookupEnv, AllowPlaintext: o.allowPlaintext, WorkDir: workDir},
	}
	if slices.Contains(s.Files, "-") {
		// Read stdin here, where an interrupt can end the wait.
		data, err := ctxio.ReadAll(ctx, s.IO.In, apply.MaxManifestBytes)
		if err != nil {
			return nil, err
		}
		opts.Stdin = bytes.NewReader(data)
	}
	res, err := apply.Load(ctx, opts)
	for _, n := range res.Notes {
		fmt.Fprintf(s.IO.ErrOut, "note: %s\n", n)
	}
	if err != nil {
		return nil, err
	}
	if !hasGroup(res.Groups, "") {
		return res.Groups, nil
	}
	org := strings.TrimSpace(s.Organization)
	if !o.local || org != "" {
		if s.ResolveOrg == nil {
			return nil, errors.New("no platform configured")
		}
		if org, err = s.ResolveOrg(ctx, s.Organization); err != nil {
			return nil, err
		}
	}
	if org == "" {
		// --dry-run=client without --organization: the current
		// organization is whichever it is; nothing is sent.
		return res.Groups, nil
	}
	return apply.Regroup(res.Groups, org)
}

func hasGroup(groups []apply.Group, org string) bool {
	for _, g := range groups {
		if g.Organization == org {
			return true
		}
	}
	return false
}

// connect returns the platform's client.
func (s *ManifestOptions) connect(ctx context.Context) (*client.Client, error) {
	if s.APIClient == nil {
		return nil, errors.New("no platform configured")
	}
	return s.APIClient(ctx)
}

// objectsError is a refused apply or delete: one line per object that
// failed, then what did not happen. Its exit code is the API error's.
type objectsError struct {
	org     string
	nothing string // "nothing was applied"
	err     *resources.Error
	docs    []*apply.Document // the request's objects, in order
}

func (e *objectsError) Error() string {
	return fmt.Sprintf("organization %s: %s", e.org, e.err.Message)
}
func (e *objectsError) Unwrap() error { return e.err }

// Lines returns "secretset/NAME: why" per failed object and a last line
// saying that nothing changed in the organization.
func (e *objectsError) Lines() []string {
	lines := make([]string, 0, len(e.err.Details)+1)
	for _, d := range e.err.Details {
		where := fmt.Sprintf("objects[%d]", d.Index)
		if d.Name != "" {
			where = resources.Ref(d.Kind, d.Name)
		}
		// A problem in a field points at the manifest's line (the
		// platform's details say which field: a sealed value that does
		// not open, say).
		at := ""
		if d.Field != "" && d.Index >= 0 && d.Index < len(e.docs) {
			doc := e.docs[d.Index]
			at = fmt.Sprintf("%s:%d: ", doc.File, doc.LineOf(d.Field))
		}
		if strings.HasPrefix(d.Message, where+" ") || strings.HasPrefix(d.Message, where+":") {
			lines = append(lines, at+d.Message) // it names the object already
		} else {
			lines = append(lines, at+where+": "+d.Message)
		}
	}
	return append(lines, fmt.Sprintf("%s in organization %s", e.nothing, e.org))
}

// perObject turns an API error with per-object details, from the request of
// group g, into an objectsError; other errors are returned as they are.
func perObject(err error, g apply.Group, nothing string) error {
	var ae *resources.Error
	if errors.As(err, &ae) && len(ae.Details) > 0 {
		return &objectsError{org: g.Organization, nothing: nothing, err: ae, docs: g.Documents}
	}
	return err
}

// addAllowPlaintextFlag registers --allow-plaintext.
func addAllowPlaintextFlag(cmd *cobra.Command, allow *bool) {
	cmd.Flags().BoolVar(allow, "allow-plaintext", false, "Accept literal values in manifests (refused by default: manifests live in git)")
}

// addDryRunFlag registers --dry-run (none, client, server; alone: server);
// client and server say what each mode does for the command.
func addDryRunFlag(cmd *cobra.Command, dryRun *string, client, server string) {
	cmdutil.EnumFlag(cmd, dryRun, "dry-run", "", DryRunNone, dryRunModes, "client: "+client+"; server: "+server+"; --dry-run alone is server")
	cmd.Flags().Lookup("dry-run").NoOptDefVal = DryRunServer
}

// writeDryRunLines prints "KIND/NAME ACTION (dry run)" for every object of
// the manifests: what --dry-run=client reports, no request sent.
func writeDryRunLines(w io.Writer, groups []apply.Group, action string) error {
	var ops []printers.Operation
	for _, g := range groups {
		for _, d := range g.Documents {
			ops = append(ops, printers.Operation{Ref: d.Ref(), Action: action, DryRun: true})
		}
	}
	return printers.PrintOperations(w, ops...)
}

// dryRunModes are --dry-run's values.
var dryRunModes = []string{DryRunNone, DryRunClient, DryRunServer}

// checkDryRun checks --dry-run for a run function called without cobra.
func checkDryRun(v string) error { return cmdutil.CheckEnum("dry-run", v, dryRunModes) }

// pruneGroups returns the groups an apply or diff with --prune sends. With
// no object in the manifests, prune still runs, in the organization of
// --organization (or the current one): removing the last manifest of an
// apply set prunes what it applied. Without --applyset the selector alone
// would then choose every object to delete, so --allow-empty must say that
// this is the intent (kubectl refuses to apply no objects). local
// (--dry-run=client) sends nothing and resolves no organization.
func (s *ManifestOptions) pruneGroups(ctx context.Context, groups []apply.Group, prune bool, selector, applySet string, allowEmpty, local bool) ([]apply.Group, error) {
	if !prune || len(groups) > 0 {
		return groups, nil
	}
	if applySet == "" && !allowEmpty {
		return nil, cmdutil.FlagErrorf("no objects in the manifests: --prune -l %s would delete every object apply wrote that matches it; pass --allow-empty if that is the intent, or --applyset NAME to prune one apply set", selector)
	}
	if local {
		return nil, nil
	}
	if s.ResolveOrg == nil {
		return nil, errors.New("no platform configured")
	}
	org, err := s.ResolveOrg(ctx, s.Organization)
	if err != nil {
		return nil, err
	}
	return []apply.Group{{Organization: org}}, nil
}

// checkPrune validates --prune, -l, --applyset and --allow-empty together.
func checkPrune(prune bool, selector, applySet string, allowEmpty bool) error {
	if allowEmpty && !prune {
		return cmdutil.FlagErrorf("--allow-empty lets --prune run when the manifests hold no object: give --prune too")
	}
	if err := resources.ValidateApplySet(applySet); err != nil {
		return cmdutil.FlagErrorf("--applyset: %v", err)
	}
	if selector != "" {
		if _, err := resources.ParseSelector(selector); err != nil {
			return cmdutil.FlagErrorf("-l/--selector: %v", err)
		}
		if !prune {
			return cmdutil.FlagErrorf("-l/--selector chooses what --prune deletes: give --prune too (apply always applies every manifest)")
		}
	}
	if prune && selector == "" && applySet == "" {
		return cmdutil.FlagErrorf("--prune needs -l/--selector or --applyset: pruning every object ever applied without an apply set is refused")
	}
	return nil
}

// addPruneFlags registers --prune, -l/--selector, --applyset and
// --allow-empty.
func addPruneFlags(cmd *cobra.Command, prune *bool, selector, applySet *string, allowEmpty *bool) {
	cmd.Flags().BoolVar(allowEmpty, "allow-empty", false, "With --prune and no --applyset: accept manifests that hold no object, which prunes every object the selector matches")
	cmd.Flags().BoolVar(prune, "prune", false, "Delete objects that apply wrote, that match -l (and --applyset) and that the manifests no longer name; never one created with botkit cloud secrets set")
	cmd.Flags().StringVarP(selector, "selector", "l", "", "Label selector of --prune (key=value,key2=value2)")
	cmd.Flags().StringVar(applySet, "applyset", "", "Apply set the objects are written under; --prune only touches objects of this set")
}

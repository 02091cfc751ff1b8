package secrets

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/dotenv"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/sealed"
)

// SetOptions are the inputs of `botkit cloud secrets set`.
type SetOptions struct {
	PlatformOptions
	Name   string
	Pairs  []string // KEY=value arguments, in order
	File   string   // --file ("-" = stdin)
	Skip   bool     // --skip: overwrite without confirmation
	Region string   // --region ("" = the organization's default at creation)
	Wait   bool
	Print  *printers.Flags
}

// NewCmdSet returns `botkit cloud secrets set`.
func NewCmdSet(f *cloudutil.Factory, runF func(context.Context, *SetOptions) error) *cobra.Command {
	opts := &SetOptions{PlatformOptions: newPlatformOptions(f), Print: newPrintFlags(f.Factory)}
	cmd := &cobra.Command{
		Use:   "set NAME [KEY=value...]",
		Short: "Create a secret set or add and update its keys",
		Long: `Create the secret set NAME, or merge keys into it: every KEY=value argument and
every key of --file, in one atomic request (all keys are written, or none).

--file reads a dotenv file ("-" reads stdin): blank lines, # comments,
"export " prefixes, single and double quotes, escapes and multi-line values in
double quotes. Arguments win over the file.

Values are stored as given: a value that looks like a sealed value (the
output of botkit seal) is stored as that text, with a warning; sealed values
go in manifests, which botkit apply sends to be opened. An empty value (KEY=,
or a copied .env.example) is stored too, with a warning naming the key;
botkit preflight fails when a key .env.example requires is empty.

Overwriting keys the set already has asks for confirmation (key names only);
--skip overwrites without asking. Without a terminal, --skip is required to
overwrite: the command never waits on a prompt.

The summary names the keys added and updated (only those whose value
changed), never a value; a write that changes no value makes no version:
  secretset/NAME created: added A, B
  secretset/NAME configured: added C; updated A
  secretset/NAME unchanged`,
		Example: `  botkit cloud secrets set support-bot OPENAI_API_KEY=sk-... LOG_LEVEL=debug
  botkit cloud secrets set support-bot --file server/.env --skip
  cat .env | botkit cloud secrets set support-bot -f - -r eu-central --wait`,
		Args:              cmdutil.RangeArgs(1, -1, "NAME [KEY=value...]"),
		ValidArgsFunction: completeNames(&opts.PlatformOptions, func() string { return resources.KindSecretSet }, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Pairs = args[0], args[1:]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSet(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", `Read keys from a dotenv file ("-" reads stdin)`)
	cmdutil.SkipFlag(cmd.Flags(), &opts.Skip, "Overwrite existing keys without confirmation")
	cmd.Flags().StringVarP(&opts.Region, "region", "r", "", "Region of a new set (default: the organization's default region); an existing set's region cannot change")
	cmd.Flags().BoolVar(&opts.Wait, "wait", false, "Wait until the set is ready or failed (failed exits 1)")
	addOrganizationFlag(cmd, &opts.PlatformOptions)
	opts.Print.AddFlags(cmd)
	registerFlagCompletions(cmd, &opts.PlatformOptions)
	return cmd
}

func newPrintFlags(f *cmdutil.Factory) *printers.Flags {
	p := printers.NewFlags().WithLines()
	p.Now = f.Now
	return p
}

// maxConditionalAttempts bounds the read-confirm-write rounds of set when
// other writers keep changing the set.
const maxConditionalAttempts = 8

func runSet(ctx context.Context, opts *SetOptions) error {
	if err := validateNameRegion(opts.Name, opts.Region); err != nil {
		return err
	}
	p, err := opts.Print.ToPrinter()
	if err != nil {
		return err
	}
	data, err := setData(ctx, opts)
	if err != nil {
		return err
	}
	warnSealedLookalikes(opts, data)
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	if err := opts.CheckSkip(opts.Skip); err != nil {
		return err
	}
	keys := slices.Sorted(maps.Keys(data))
	patch := resources.Patch{Kind: resources.KindSecretSet, Region: opts.Region, Set: data}

	var confirmed []string // overwrites the user agreed to
	var obj resources.Object
	var created bool
	var before []string    // the keys the set had when written
	var readVersion string // its resourceVersion then
	for attempt := 1; ; attempt++ {
		cur, exists, err := getIfExists(ctx, c, org, opts.Name)
		if err != nil {
			return err
		}
		ifMatch := client.IfAbsent
		before, readVersion = nil, ""
		if exists {
			ifMatch = cur.Meta().ResourceVersion
			readVersion = ifMatch
			if cur.SecretSet != nil {
				before = cur.SecretSet.Spec.Keys
			}
		}
		// A set of the other kind or in another region: the platform
		// refuses the write with its own message; no point asking first.
		mismatch := exists && (cur.SecretSet == nil || opts.Region != "" && cur.Meta().Region != opts.Region)
		overwrites := intersect(keys, before)
		if unconfirmed := minus(overwrites, confirmed); len(unconfirmed) > 0 && !opts.Skip && !mismatch {
			if attempt > 1 && !opts.IO.CanPrompt() {
				return cmdutil.WithCode(cmdutil.ExitConflict, fmt.Errorf(
					"%s changed while writing: it now has %s; run the command again, or pass --skip to overwrite",
					ref(resources.KindSecretSet, opts.Name), strings.Join(unconfirmed, ", ")))
			}
			setRef := ref(resources.KindSecretSet, opts.Name)
			if err := opts.Confirm(ctx, org,
				fmt.Sprintf("Overwrite %s in %s?", strings.Join(overwrites, ", "), setRef),
				fmt.Sprintf("%s already has %s", setRef, strings.Join(overwrites, ", ")), false); err != nil {
				return err
			}
			confirmed = overwrites
		}
		patch.Region = opts.Region
		if !exists {
			// The configured default region applies to new sets only.
			if patch.Region, err = opts.newRegion(opts.Region); err != nil {
				return err
			}
		}
		if attempt > maxConditionalAttempts && opts.Skip {
			// Others keep writing; the user agreed to overwrite anything,
			// so write unconditionally (the summary is as of the last read).
			ifMatch = ""
		}
		obj, created, err = c.Merge(ctx, org, opts.Name, patch, ifMatch)
		if err == nil {
			break
		}
		if !hasCode(err, resources.CodeConflict) || ifMatch == "" {
			return err
		}
		// A 409: a stale read (someone wrote meanwhile: read again), or a
		// conflict of kind or region (the same read again: report it).
		again, existsAgain, gerr := getIfExists(ctx, c, org, opts.Name)
		if gerr != nil {
			return gerr
		}
		if existsAgain == exists && (!exists || again.Meta().ResourceVersion == cur.Meta().ResourceVersion) {
			return err
		}
		if attempt >= maxConditionalAttempts && !opts.Skip {
			return cmdutil.WithCode(cmdutil.ExitConflict, fmt.Errorf(
				"%s keeps changing while writing (%s); run the command again",
				ref(resources.KindSecretSet, opts.Name), resources.Plural(attempt, "attempt")))
		}
		backoff(ctx, attempt)
	}
	// Stored: now say which of the values were empty.
	var empty []string
	for _, k := range keys {
		if data[k] == "" {
			empty = append(empty, k)
		}
	}
	cmdutil.WarnEmptyValues(opts.IO.ErrOut, ref(resources.KindSecretSet, opts.Name), empty)
	// A write that changes no value leaves the set as it was: no new
	// resourceVersion, no new version.
	unchanged := !created && obj.Meta().ResourceVersion == readVersion
	obj, done, err := opts.written(ctx, c, org, obj, opts.Wait, p, !opts.Print.Lines())
	if done || err != nil {
		return err
	}
	if unchanged {
		return printers.PrintOperations(opts.IO.Out, printers.Operation{Ref: objRef(obj), Action: resources.ActionUnchanged})
	}
	// Keys the set did not have are added; only when some were there
	// already does the version tell which of their values changed.
	added, updated := keys, []string(nil)
	if !created && len(intersect(keys, before)) > 0 {
		added, updated = writtenKeys(ctx, c, org, obj, keys, before)
	}
	err = printers.PrintOperations(opts.IO.Out, setSummary(obj, created, added, updated))
	return err
}

// writtenKeys returns the keys a write of keys added and updated: those
// its version lists (only the values that changed), or, when the version
// cannot be read (purged already by other writes), those the set did not
// have (before) and those it had.
func writtenKeys(ctx context.Context, c *client.Client, org string, obj resources.Object, keys, before []string) (added, updated []string) {
	v, err := c.Version(ctx, org, obj.Meta().Name, obj.Meta().Generation)
	if err != nil {
		updated = intersect(keys, before)
		return minus(keys, updated), updated
	}
	return v.Added, v.Changed
}

// setSummary is the line set prints: the keys added and updated (names
// only).
func setSummary(obj resources.Object, created bool, added, updated []string) printers.Operation {
	verb := resources.ActionConfigured
	if created {
		verb = resources.ActionCreated
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+strings.Join(added, ", "))
	}
	if len(updated) > 0 {
		parts = append(parts, "updated "+strings.Join(updated, ", "))
	}
	return printers.Operation{Ref: objRef(obj), Action: verb, Detail: strings.Join(parts, "; "), Version: obj.Meta().Generation}
}

// warnSealedLookalikes warns, on stderr, of each value that has the form of
// a sealed value (botkit seal's v1.KEYID.PAYLOAD): set stores values as
// they are, so it would be stored as that text, never opened; sealed
// values go in manifests, which botkit apply sends to be opened. Key names
// only.
func warnSealedLookalikes(opts *SetOptions, data map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(data)) {
		if _, err := sealed.Parse(data[k]); err == nil {
			fmt.Fprintf(opts.IO.ErrOut, "warning: the value of %s looks like a sealed value (v1.KEYID.PAYLOAD); set stores it as it is, as text, not opened — put sealed values in a manifest ({sealed: VALUE}) and run botkit apply\n", k)
		}
	}
}

// setData collects the keys to write: --file first, then the arguments,
// which win. Errors name the argument position or file:line, never a value.
func setData(ctx context.Context, opts *SetOptions) (map[string]string, error) {
	data := map[string]string{}
	if opts.File != "" {
		pairs, err := readDotenv(ctx, opts)
		if err != nil {
			return nil, err
		}
		for _, p := range pairs {
			data[p.Key] = p.Value
		}
		if len(pairs) == 0 && len(opts.Pairs) == 0 {
			return nil, cmdutil.UsageErrorf("--file %s: no keys in it", opts.File)
		}
	}
	seen := map[string]int{}
	var problems []string
	for i, arg := range opts.Pairs {
		pos := i + 2 // NAME is argument 1
		key, value, ok := strings.Cut(arg, "=")
		if !ok {
			// Without "=" the argument may well be a value: never echo it.
			problems = append(problems, fmt.Sprintf("argument %d: want KEY=value (no \"=\" in it)", pos))
			continue
		}
		if err := resources.ValidateKey(key); err != nil {
			// The text before "=" could be part of a value: name the
			// position only.
			problems = append(problems, fmt.Sprintf("argument %d: the key before \"=\" is not a valid environment variable name (letters, digits and _, not starting with a digit, at most %d characters)", pos, resources.MaxKeyLength))
			continue
		}
		if first, dup := seen[key]; dup {
			problems = append(problems, fmt.Sprintf("argument %d: key %s is also given as argument %d", pos, key, first))
			continue
		}
		seen[key] = pos
		if err := resources.ValidateValue(key, value); err != nil {
			problems = append(problems, fmt.Sprintf("argument %d: %v", pos, err))
			continue
		}
		data[key] = value
	}
	if len(problems) > 0 {
		return nil, cmdutil.Problems(problems)
	}
	if len(data) == 0 {
		return nil, &cmdutil.ArgsError{Err: errors.New("nothing to set: give KEY=value arguments or --file")}
	}
	return data, nil
}

func readDotenv(ctx context.Context, opts *SetOptions) ([]dotenv.Pair, error) {
	name := opts.File
	var b []byte
	var err error
	if name == "-" {
		name = "stdin"
		b, err = readInput(ctx, opts.IO.In, dotenv.MaxFileBytes, "--file -")
	} else {
		b, err = ctxio.ReadFile(ctx, name, dotenv.MaxFileBytes)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, err // interrupted
		case err != nil:
			// A missing file, a directory, no permission: the flag's
			// value is wrong (exit 2).
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, cmdutil.UsageErrorf("--file %s: %v", name, err)
		case len(b) > dotenv.MaxFileBytes:
			return nil, cmdutil.UsageErrorf("--file %s: more than %d bytes", name, dotenv.MaxFileBytes)
		}
	}
	if err != nil {
		return nil, err
	}
	pairs, dups, err := dotenv.ParseBytesDuplicates(name, b)
	for _, d := range dups {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", iostreams.Printable(d.String()))
	}
	return pairs, err
}

// getIfExists gets an object; a missing one is not an error.
func getIfExists(ctx context.Context, c *client.Client, org, name string) (resources.Object, bool, error) {
	o, err := c.Get(ctx, org, name)
	if err != nil {
		if hasCode(err, resources.CodeNotFound) {
			return resources.Object{}, false, nil
		}
		return o, false, err
	}
	return o, true, nil
}

// backoff sleeps a little, more after each attempt, with jitter so that
// writers racing on one set spread out.
func backoff(ctx context.Context, attempt int) {
	d := time.Duration(attempt) * 5 * time.Millisecond
	d += rand.N(d + time.Millisecond)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// intersect returns the elements of a (sorted) also in b.
func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// minus returns the elements of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

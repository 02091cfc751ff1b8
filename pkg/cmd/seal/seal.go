// Package seal is `botkit seal`: it turns values into sealed value sources
// ({sealed: VALUE}) that only the platform can decrypt, prints the
// organization's public certificate for sealing offline, and reseals
// manifests to the organization's current key.
package seal

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/dotenv"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/sealed"
)

// Options are the inputs of `botkit seal`.
type Options struct {
	IO *iostreams.IOStreams
	// APIClient returns the client of the configured platform.
	APIClient func(ctx context.Context) (*client.Client, error)
	// ResolveOrg turns --organization into the organization to act in.
	ResolveOrg func(ctx context.Context, flag string) (string, error)
	// Prompter returns the prompter; only called when IO.CanPrompt() (or, for
	// a secret, IO.CanAskSecret()).
	Prompter func() prompter.Prompter

	Organization string
	Name         string   // NAME: the secret set
	Key          string   // KEY: seal one value read from stdin
	Files        []string // -f: a dotenv file (seal) or manifests (--reseal)
	Recursive    bool     // -R with --reseal
	Region       string   // metadata.region of the printed manifest
	Scope        string   // strict (default) or organization
	Cert         string   // --cert: seal offline with this certificate
	FetchCert    bool
	Reseal       bool
}

// maxValueInput bounds a value read from stdin or a dotenv file.
const maxValueInput = 4 << 20

// CmdSummary is what `botkit --help` lists of `botkit seal`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var CmdSummary = cmdutil.Summary{
	Use:   "seal (NAME -f FILE.env | NAME KEY | --fetch-cert | --reseal -f PATH...)",
	Short: "Encrypt values for manifests in git that only the platform can read",
}

// NewCmdSeal returns `botkit seal`.
func NewCmdSeal(f *cloudutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		IO: f.IOStreams, APIClient: f.APIClient,
		ResolveOrg: f.Organization,
		Prompter: func() prompter.Prompter {
			return f.Prompter(f.Getenv != nil && f.Getenv("ACCESSIBLE") != "")
		},
	}
	cmd := &cobra.Command{
		Use:   CmdSummary.Use,
		Short: CmdSummary.Short,
		Long: `Seal secret values so that manifests holding them can live in git: a sealed
value is encrypted to the organization's public sealing key, and only the
platform, which holds the private key, decrypts it (in apply and diff). The
value never reaches the CI job that applies the manifest.

  botkit seal NAME -f FILE.env   prints a SecretSet manifest whose every value is
                                 {sealed: "..."}, one line per key
  botkit seal NAME KEY           reads one value from stdin (a hidden prompt on a
                                 terminal) and prints the line to paste under
                                 spec.data
  botkit seal --fetch-cert       prints the organization's public certificate;
                                 with --cert FILE, seal works offline
  botkit seal --reseal -f PATH   encrypts every sealed value of the manifests
                                 again to the current key (after a key rotation),
                                 through the platform, rewriting only those lines

A sealed value is bound to its organization, set name and key: copied to
another set or key, the platform refuses it. --scope organization binds it to
the organization only, so any of its sets may use it.`,
		Example: `  botkit seal support-bot -f server/.env > deploy/support-bot.yaml
  printf %s "$OPENAI_API_KEY" | botkit seal support-bot OPENAI_API_KEY
  botkit seal --fetch-cert > org.pub && botkit seal support-bot -f .env --cert org.pub
  botkit seal --reseal -f deploy/ -R`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				opts.Name = args[0]
			}
			if len(args) > 1 {
				opts.Key = args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringSliceVarP(&opts.Files, "filename", "f", nil, "A dotenv file to seal (- for stdin); with --reseal, manifests (files or directories)")
	cmd.Flags().BoolVarP(&opts.Recursive, "recursive", "R", false, "With --reseal: walk the directories of -f recursively")
	cmd.Flags().StringVar(&opts.Region, "region", "", "metadata.region of the printed manifest")
	cmdutil.EnumFlag(cmd, &opts.Scope, "scope", "", sealed.ScopeStrict, sealed.Scopes, "What the value is bound to: strict (organization, set and key) or organization (any set of it)")
	cmd.Flags().StringVar(&opts.Cert, "cert", "", "Seal offline with this certificate (from botkit seal --fetch-cert)")
	cmd.Flags().BoolVar(&opts.FetchCert, "fetch-cert", false, "Print the organization's public sealing certificate")
	cmd.Flags().BoolVar(&opts.Reseal, "reseal", false, "Encrypt the sealed values of the -f manifests again to the current key, in place")
	cloudutil.AddOrganizationFlag(cmd, &opts.Organization)
	return cmd
}

// Run runs `botkit seal`.
func Run(ctx context.Context, opts *Options) error {
	if err := cmdutil.CheckEnum("scope", opts.Scope, sealed.Scopes); err != nil {
		return err
	}
	switch {
	case opts.FetchCert:
		if opts.Name != "" || len(opts.Files) > 0 || opts.Reseal || opts.Cert != "" {
			return cmdutil.FlagErrorf("--fetch-cert takes no arguments and no other flag but --organization")
		}
		return fetchCert(ctx, opts)
	case opts.Reseal:
		if opts.Name != "" || opts.Cert != "" {
			return cmdutil.FlagErrorf("--reseal takes no NAME and no --cert: the platform reseals (give the manifests with -f)")
		}
		if len(opts.Files) == 0 {
			return cmdutil.FlagErrorf("--reseal needs the manifests: -f FILE or -f DIR (-R to recurse)")
		}
		return reseal(ctx, opts)
	}
	if opts.Recursive {
		return cmdutil.FlagErrorf("-R goes with --reseal")
	}
	if opts.Name == "" {
		return cmdutil.FlagErrorf("give NAME (the secret set) with -f FILE.env or KEY, or --fetch-cert, or --reseal -f PATH")
	}
	if err := resources.ValidateName(opts.Name); err != nil {
		return cmdutil.FlagErrorf("NAME: %v", err)
	}
	if opts.Region != "" {
		if err := resources.ValidateRegion(opts.Region); err != nil {
			return cmdutil.FlagErrorf("--region: %v", err)
		}
	}
	switch {
	case opts.Key != "" && len(opts.Files) > 0:
		return cmdutil.FlagErrorf("give KEY (one value from stdin) or -f FILE.env, not both")
	case opts.Key == "" && len(opts.Files) == 0:
		return cmdutil.FlagErrorf("nothing to seal: give KEY (its value on stdin) or -f FILE.env")
	case len(opts.Files) > 1:
		return cmdutil.FlagErrorf("-f: seal one dotenv file at a time (got %d)", len(opts.Files))
	}
	if opts.Key != "" {
		if err := resources.ValidateKey(opts.Key); err != nil {
			return cmdutil.FlagErrorf("KEY: %v", err)
		}
	}
	// Read what to seal before anything else: a bad file is exit 2 with
	// nothing fetched.
	var pairs []dotenv.Pair
	if opts.Key != "" {
		v, err := readValue(ctx, opts)
		if err != nil {
			return err
		}
		pairs = []dotenv.Pair{{Key: opts.Key, Value: v}}
	} else {
		var err error
		if pairs, err = readDotenv(ctx, opts); err != nil {
			return err
		}
	}
	org, rcp, err := recipient(ctx, opts)
	if err != nil {
		return err
	}
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		b := sealed.Binding{Scope: opts.Scope, Organization: org, Set: opts.Name, Key: p.Key}
		if opts.Scope == sealed.ScopeOrganization {
			b.Set, b.Key = "", ""
		}
		s, err := sealed.Seal(rcp, b, p.Value)
		if err != nil {
			return err
		}
		out[p.Key] = s
	}
	if opts.Key != "" {
		_, err := fmt.Fprintf(opts.IO.Out, "%s: {sealed: %s}\n", opts.Key, strconv.Quote(out[opts.Key]))
		return err
	}
	return writeManifest(opts, org, out)
}

// writeManifest prints the SecretSet, one line per key, keys sorted, so a
// changed value changes one line in git.
func writeManifest(opts *Options, org string, data map[string]string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Sealed with botkit seal for organization %s: only its platform can decrypt these values.\n", org)
	fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  organization: %s\n", resources.APIVersion, resources.KindSecretSet, opts.Name, org)
	if opts.Region != "" {
		fmt.Fprintf(&b, "  region: %s\n", opts.Region)
	}
	b.WriteString("spec:\n  data:")
	if len(data) == 0 {
		b.WriteString(" {}")
	}
	b.WriteString("\n")
	for _, k := range slices.Sorted(maps.Keys(data)) {
		fmt.Fprintf(&b, "    %s: {sealed: %s}\n", k, strconv.Quote(data[k]))
	}
	_, err := opts.IO.Out.Write([]byte(b.String()))
	return err
}

// readValue reads KEY's value: a hidden prompt when stdin is a terminal
// (also when stdout goes to a file), else all of stdin with one trailing
// line ending removed.
func readValue(ctx context.Context, opts *Options) (string, error) {
	var v string
	if opts.IO.CanAskSecret() && opts.Prompter != nil {
		var err error
		if v, err = opts.Prompter().Password("Value of "+opts.Key, "KEY"); err != nil {
			return "", err
		}
	} else {
		b, err := ctxio.ReadAll(ctx, opts.IO.In, maxValueInput)
		if err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			return "", fmt.Errorf("stdin: %w", err)
		}
		v = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	}
	if err := resources.ValidateValue(opts.Key, v); err != nil {
		return "", cmdutil.FlagErrorf("stdin: %v", err)
	}
	return v, nil
}

// readDotenv reads the -f file's pairs, each checked as the platform would.
func readDotenv(ctx context.Context, opts *Options) ([]dotenv.Pair, error) {
	path := opts.Files[0]
	var data []byte
	var err error
	if path == "-" {
		data, err = ctxio.ReadAll(ctx, opts.IO.In, maxValueInput)
	} else {
		data, err = ctxio.ReadFile(ctx, path, maxValueInput)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, cmdutil.FlagErrorf("-f %s: %v", path, err)
	}
	name := path
	if path == "-" {
		name = "stdin"
	}
	pairs, err := dotenv.ParseBytes(name, data)
	if err != nil {
		return nil, &cmdutil.FlagError{Err: err}
	}
	for _, p := range pairs {
		if err := resources.ValidateKey(p.Key); err != nil {
			return nil, cmdutil.FlagErrorf("%s:%d: %v", name, p.Line, err)
		}
		if err := resources.ValidateValue(p.Key, p.Value); err != nil {
			return nil, cmdutil.FlagErrorf("%s:%d: %v", name, p.Line, err)
		}
	}
	return pairs, nil
}

// recipient is the organization and key to seal to: the --cert file's, or
// the platform's current one.
func recipient(ctx context.Context, opts *Options) (string, *sealed.Recipient, error) {
	if opts.Cert != "" {
		data, err := ctxio.ReadFile(ctx, opts.Cert, 64<<10)
		if err != nil {
			return "", nil, cmdutil.FlagErrorf("--cert %s: %v", opts.Cert, err)
		}
		c, r, err := sealed.ParseCert(data)
		if err != nil {
			return "", nil, cmdutil.FlagErrorf("--cert %s: %v", opts.Cert, err)
		}
		if opts.Organization != "" && opts.Organization != c.Organization {
			return "", nil, cmdutil.FlagErrorf("--organization %s: the certificate %s is organization %s's", opts.Organization, opts.Cert, c.Organization)
		}
		return c.Organization, r, nil
	}
	c, org, err := connect(ctx, opts)
	if err != nil {
		return "", nil, err
	}
	k, err := c.SealingKey(ctx, org)
	if err != nil {
		return "", nil, err
	}
	r, err := sealed.ParseRecipient(k.Recipient)
	if err != nil {
		return "", nil, fmt.Errorf("the platform's sealing key: %w", err)
	}
	if r.ID != k.KeyID {
		return "", nil, fmt.Errorf("the platform's sealing key %s does not match its recipient", k.KeyID)
	}
	return org, r, nil
}

func connect(ctx context.Context, opts *Options) (*client.Client, string, error) {
	return cloudutil.Connect(ctx, opts.APIClient, opts.ResolveOrg, opts.Organization)
}

// fetchCert prints the organization's certificate.
func fetchCert(ctx context.Context, opts *Options) error {
	c, org, err := connect(ctx, opts)
	if err != nil {
		return err
	}
	k, err := c.SealingKey(ctx, org)
	if err != nil {
		return err
	}
	if _, err := sealed.ParseRecipient(k.Recipient); err != nil || sealed.KeyID(k.Recipient) != k.KeyID {
		return fmt.Errorf("the platform's sealing key %s does not match its recipient", k.KeyID)
	}
	_, err = opts.IO.Out.Write(sealed.Cert{Organization: org, KeyID: k.KeyID, Recipient: k.Recipient}.Marshal())
	return err
}

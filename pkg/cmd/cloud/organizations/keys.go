package organizations

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// NewCmdKeys returns `botkit cloud organizations keys`.
func NewCmdKeys(f *cloudutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "keys <command>",
		Aliases: []string{"key"},
		Short:   "Manage the organization's public keys (pk_…) for the public session API",
		Long: `Public keys (pk_…) are what clients of the public session API send as
Authorization: Bearer pk_…: a web page, a phone gateway or a script starts
and reaches the organization's sessions with one, and nothing else. A public
key is not an API token (it reads and changes nothing of the organization),
and an API token is never a public key. The platform keeps only the key's
SHA-256 and its first characters: the key is printed once, when made.`,
	}
	cmd.AddCommand(NewCmdKeysCreate(f, nil), NewCmdKeysList(f, nil), NewCmdKeysDelete(f, nil))
	return cmd
}

// publicKeyName is a key's name in -o name and in operation lines.
func publicKeyName(id string) string { return "publickey/" + id }

// KeysCreateOptions are the inputs of `botkit cloud organizations keys create`.
type KeysCreateOptions struct {
	cloudutil.Platform
	Name           string   // --name
	AllowedOrigins []string // --allowed-origin
	Print          *printers.Flags
}

// NewCmdKeysCreate returns `botkit cloud organizations keys create`.
func NewCmdKeysCreate(f *cloudutil.Factory, runF func(context.Context, *KeysCreateOptions) error) *cobra.Command {
	opts := &KeysCreateOptions{Platform: cloudutil.NewPlatform(f), Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "create [--name N] [--allowed-origin URL]...",
		Short: "Make a public key (printed once)",
		Long: `Make a public key of the organization and print it on stdout, once: the
platform keeps only its hash, so it is never shown again (a line on stderr
says so). -o json|yaml prints the key with its ID, prefix and origins.

--allowed-origin (repeatable) names an origin (scheme://host[:port], http or
https) whose web pages may call the public API with the key; without one,
only pages of the platform's own origin may.`,
		Example: `  botkit cloud organizations keys create --name web --allowed-origin https://app.example.com
  KEY=$(botkit cloud organizations keys create --name gateway)`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runKeysCreate(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Name, "name", "", "A label for the key (printable, at most 63 characters)")
	cmd.Flags().StringArrayVar(&opts.AllowedOrigins, "allowed-origin", nil, "An origin (`URL`: scheme://host[:port]) browsers may call the public API from with the key (repeatable)")
	opts.Print.AddFlags(cmd)
	AddFlag(cmd, &opts.Platform)
	return cmd
}

func runKeysCreate(ctx context.Context, opts *KeysCreateOptions) error {
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	if len(opts.Name) > resources.MaxPublicKeyName {
		return cmdutil.FlagErrorf("--name: at most %d characters", resources.MaxPublicKeyName)
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	k, err := c.CreatePublicKey(ctx, org, resources.PublicKeyRequest{Name: opts.Name, AllowedOrigins: opts.AllowedOrigins})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "%s created in organization %s: the key is printed below this once and will not be shown again\n",
		publicKeyName(k.ID), iostreams.Printable(org))
	if !opts.Print.Lines() {
		return opts.Print.PrintRows(opts.IO, nil, nil, k)
	}
	_, err = fmt.Fprintln(opts.IO.Out, k.Key)
	return err
}

// KeysListOptions are the inputs of `botkit cloud organizations keys list`.
type KeysListOptions struct {
	cloudutil.Platform
	Print *printers.Flags
}

// NewCmdKeysList returns `botkit cloud organizations keys list`.
func NewCmdKeysList(f *cloudutil.Factory, runF func(context.Context, *KeysListOptions) error) *cobra.Command {
	opts := &KeysListOptions{Platform: cloudutil.NewPlatform(f), Print: printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the organization's public keys (never a key)",
		Long: `List the organization's public keys, oldest first: ID, NAME, PREFIX (the key's
first characters, to tell keys apart), ORIGINS (the allowed origins) and AGE.
No key is shown: the platform does not have them.

An empty list prints "No resources found" on stderr and exits 0.`,
		Example: `  botkit cloud organizations keys list
  botkit cloud organizations keys list -o json`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runKeysList(cmd.Context(), opts)
		},
	}
	opts.Print.AddFlags(cmd)
	AddFlag(cmd, &opts.Platform)
	return cmd
}

func runKeysList(ctx context.Context, opts *KeysListOptions) error {
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	ks, err := c.PublicKeys(ctx, org)
	if err != nil {
		return err
	}
	list := resources.PublicKeyList{Items: ks}
	if list.Items == nil {
		list.Items = []resources.PublicKey{}
	}
	now := opts.Clock()
	rows := make([][]string, 0, len(ks))
	for _, k := range ks {
		if opts.Print.Output == printers.FormatName {
			rows = append(rows, []string{publicKeyName(k.ID)})
			continue
		}
		origins := strings.Join(k.AllowedOrigins, ",")
		if origins == "" {
			origins = "<none>"
		}
		rows = append(rows, []string{k.ID, k.Name, k.Prefix + "…", origins, printers.Age(&k.CreatedAt, now)})
	}
	return opts.Print.PrintRows(opts.IO, []string{"ID", "NAME", "PREFIX", "ORIGINS", "AGE"}, rows, list)
}

// KeysDeleteOptions are the inputs of `botkit cloud organizations keys delete`.
type KeysDeleteOptions struct {
	cloudutil.Platform
	ID   string
	Skip bool
}

// NewCmdKeysDelete returns `botkit cloud organizations keys delete`.
func NewCmdKeysDelete(f *cloudutil.Factory, runF func(context.Context, *KeysDeleteOptions) error) *cobra.Command {
	opts := &KeysDeleteOptions{Platform: cloudutil.NewPlatform(f)}
	cmd := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a public key: its clients are refused at once",
		Long: `Delete the public key ID (key_…, as keys list shows it): from then on every
request with it is refused, on every replica of the platform; sessions it
started go on. Asks first on a terminal (--skip: without; required without
one). A missing key exits 3.`,
		Example: `  botkit cloud organizations keys delete key_3f9a0c1b2d4e
  botkit cloud organizations keys delete key_3f9a0c1b2d4e --skip`,
		Args: cmdutil.ExactArgs(1, "ID"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeKeyIDs(cmd.Context(), &opts.Platform, args, toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runKeysDelete(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Skip, "skip", "s", false, "Delete without confirmation")
	AddFlag(cmd, &opts.Platform)
	return cmd
}

func runKeysDelete(ctx context.Context, opts *KeysDeleteOptions) error {
	if err := opts.CheckSkip(opts.Skip); err != nil {
		return err
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	ref := publicKeyName(opts.ID)
	if !opts.Skip {
		ks, err := c.PublicKeys(ctx, org)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(ks, func(k resources.PublicKey) bool { return k.ID == opts.ID })
		if i < 0 {
			return keyNotFound(opts.ID)
		}
		what := ks[i].Prefix + "…"
		if ks[i].Name != "" {
			what = ks[i].Name + ", " + what
		}
		if err := opts.Confirm(ctx, org, fmt.Sprintf("Delete %s (%s)? Every request with it is refused from then on.", ref, iostreams.Printable(what)),
			"deleting "+ref+" needs confirmation", false); err != nil {
			return err
		}
	}
	if _, err := c.DeletePublicKey(ctx, org, opts.ID); err != nil {
		return err
	}
	return printers.PrintOperations(opts.IO.Out, printers.Operation{Ref: ref, Action: resources.ActionDeleted})
}

func keyNotFound(id string) error {
	return &resources.Error{Code: resources.CodeNotFound, Message: fmt.Sprintf("public key %q not found (see botkit cloud organizations keys list)", iostreams.Printable(id))}
}

// completeKeyIDs completes a key ID from the organization's keys.
func completeKeyIDs(ctx context.Context, p *cloudutil.Platform, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	const noFiles = cobra.ShellCompDirectiveNoFileComp
	if len(args) > 0 || p.APIClient == nil {
		return nil, noFiles
	}
	c, org, err := p.Connect(ctx)
	if err != nil {
		return nil, noFiles
	}
	ks, err := c.PublicKeys(ctx, org)
	if err != nil {
		return nil, noFiles
	}
	var out []cobra.Completion
	for _, k := range ks {
		if strings.HasPrefix(k.ID, toComplete) {
			out = append(out, cobra.CompletionWithDesc(k.ID, k.Name+" "+k.Prefix+"…"))
		}
	}
	return out, noFiles
}

// AddFlag binds --organization to p.Organization, completed from the
// token's organizations.
func AddFlag(cmd *cobra.Command, p *cloudutil.Platform) {
	cloudutil.AddOrganizationFlag(cmd, &p.Organization)
	_ = cmd.RegisterFlagCompletionFunc("organization", func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return Complete(p.APIClient)(cmd, args, toComplete)
	}) // error ignored: the flag was just added
}

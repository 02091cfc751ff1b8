package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// keyFlags locate an organization's sealing keys: the store and the
// master key that encrypts them.
type keyFlags struct {
	storeFlags
	MasterKeyFile string
}

func addKeyFlags(c *cobra.Command, f *keyFlags) {
	addStoreFlags(c, &f.storeFlags)
	c.Flags().StringVar(&f.MasterKeyFile, "master-key-file", "", "file holding the master key (default: DATA_DIR/master.key; required with --store)")
}

// orgArg fills org from the one ORG argument.
func orgArg(org *string) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error { *org = args[0]; return nil }
}

// newSealingKeyCmds returns the orgs commands on sealing keys.
func newSealingKeyCmds(st *iostreams.IOStreams) []*cobra.Command {
	return []*cobra.Command{NewCmdSealingKeys(st, nil), NewCmdRotateSealingKey(st, nil), NewCmdExportSealingKeys(st, nil), NewCmdImportSealingKeys(st, nil)}
}

// SealingKeysOptions are the options of `orgs sealing-keys`.
type SealingKeysOptions struct {
	keyFlags
	Org   string
	Print *printers.Flags
	IO    *iostreams.IOStreams
}

// NewCmdSealingKeys returns `orgs sealing-keys`; runF (tests) replaces
// runSealingKeys.
func NewCmdSealingKeys(st *iostreams.IOStreams, runF func(context.Context, *SealingKeysOptions) error) *cobra.Command {
	lo := &SealingKeysOptions{IO: st, Print: printers.NewFlags()}
	list := command(&cobra.Command{
		Use:   "sealing-keys ORG (--data-dir DIR | --store URL --master-key-file FILE)",
		Short: "List an organization's sealing keys",
		Long: `List the key pairs sealed values of the organization are encrypted to, oldest
first. The current key is the one botkit seal uses; every key not retired
still decrypts.`,
		Args: orgName,
	}, lo, nil, orgArg(&lo.Org), runF, runSealingKeys)
	addKeyFlags(list, &lo.keyFlags)
	lo.Print.AddFlags(list)
	return list
}

// RotateSealingKeyOptions are the options of `orgs rotate-sealing-key`.
type RotateSealingKeyOptions struct {
	keyFlags
	Org    string
	Retire string // --retire KEY_ID
	Force  bool
	IO     *iostreams.IOStreams
}

// NewCmdRotateSealingKey returns `orgs rotate-sealing-key`; runF (tests)
// replaces runRotateSealingKey.
func NewCmdRotateSealingKey(st *iostreams.IOStreams, runF func(context.Context, *RotateSealingKeyOptions) error) *cobra.Command {
	ro := &RotateSealingKeyOptions{IO: st}
	rotate := command(&cobra.Command{
		Use:   "rotate-sealing-key ORG [--retire KEY_ID --force] (--data-dir DIR | --store URL --master-key-file FILE)",
		Short: "Add a new sealing key to an organization, or retire an old one",
		Long: `Without --retire: add a new key pair to the organization. It becomes the
current key: botkit seal encrypts to it from now on, and the older keys keep
decrypting what was sealed to them. Then reseal the manifests in git
(botkit seal --reseal -f DIR -R), which rewrites only their value lines.

With --retire KEY_ID: retire that key. Values still sealed to it stop
applying, so reseal first; --force is required. The current key cannot be
retired: rotate first.`,
		Args: orgName,
	}, ro, nil, orgArg(&ro.Org), runF, runRotateSealingKey)
	addKeyFlags(rotate, &ro.keyFlags)
	rotate.Flags().StringVar(&ro.Retire, "retire", "", "retire this key id instead of adding a key (needs --force)")
	rotate.Flags().BoolVar(&ro.Force, "force", false, "with --retire: retire the key although manifests may still be sealed to it")
	return rotate
}

// ExportSealingKeysOptions are the options of `orgs export-sealing-keys`.
type ExportSealingKeysOptions struct {
	keyFlags
	Org         string
	ToRecipient string
	IO          *iostreams.IOStreams
}

// NewCmdExportSealingKeys returns `orgs export-sealing-keys`; runF (tests)
// replaces runExportSealingKeys.
func NewCmdExportSealingKeys(st *iostreams.IOStreams, runF func(context.Context, *ExportSealingKeysOptions) error) *cobra.Command {
	eo := &ExportSealingKeysOptions{IO: st}
	export := command(&cobra.Command{
		Use:   "export-sealing-keys ORG --to-recipient age1… (--data-dir DIR | --store URL --master-key-file FILE)",
		Short: "Back up an organization's sealing keys, encrypted to an operator's age key",
		Long: `Write the organization's key pairs (private parts included), encrypted to the
operator's age recipient and ASCII armored, to standard output. Keep the file
with the operator's age identity apart from the platform: with both,
import-sealing-keys restores the keys on any platform, which then decrypts
every manifest sealed for this one.`,
		Args: orgName,
	}, eo, nil, orgArg(&eo.Org), runF, runExportSealingKeys)
	addKeyFlags(export, &eo.keyFlags)
	export.Flags().StringVar(&eo.ToRecipient, "to-recipient", "", "the operator's age X25519 recipient (age1…) to encrypt the backup to")
	return export
}

// ImportSealingKeysOptions are the options of `orgs import-sealing-keys`.
type ImportSealingKeysOptions struct {
	keyFlags
	Org          string
	From         string // the backup file
	IdentityFile string // the operator's age identity file
	IO           *iostreams.IOStreams
}

// NewCmdImportSealingKeys returns `orgs import-sealing-keys`; runF (tests)
// replaces runImportSealingKeys.
func NewCmdImportSealingKeys(st *iostreams.IOStreams, runF func(context.Context, *ImportSealingKeysOptions) error) *cobra.Command {
	im := &ImportSealingKeysOptions{IO: st}
	imp := command(&cobra.Command{
		Use:   "import-sealing-keys ORG --from FILE --identity FILE (--data-dir DIR | --store URL --master-key-file FILE)",
		Short: "Restore an organization's sealing keys from a backup",
		Long: `Restore the key pairs that export-sealing-keys wrote for the organization,
decrypting the backup with the operator's age identity file. Keys the
organization holds already are skipped; the others are added in the backup's
order, so the current key of the exported platform is current here too.`,
		Args: orgName,
	}, im, nil, orgArg(&im.Org), runF, runImportSealingKeys)
	addKeyFlags(imp, &im.keyFlags)
	imp.Flags().StringVar(&im.From, "from", "", "the backup file export-sealing-keys wrote")
	imp.Flags().StringVar(&im.IdentityFile, "identity", "", "the operator's age identity file (AGE-SECRET-KEY-1… lines)")
	return imp
}

// orgName is the Args of a command on one organization.
var orgName = cmdutil.ExactArgs(1, "the organization name")

// openKeys opens the store and the sealing key administration over it.
func openKeys(ctx context.Context, o keyFlags) (*service.SealingKeys, func(), error) {
	if err := o.require(); err != nil {
		return nil, nil, err
	}
	loc := o.location()
	if loc.Shared() && o.MasterKeyFile == "" {
		return nil, nil, platform.ErrMasterKeyRequired
	}
	st, err := stores.Open(ctx, loc, stores.Options{})
	if err != nil {
		return nil, nil, err
	}
	k, err := platform.OpenSealingKeys(ctx, st, loc.DataDir, o.MasterKeyFile)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return k, func() { st.Close() }, nil
}

// runSealingKeys lists an organization's sealing keys.
func runSealingKeys(ctx context.Context, o *SealingKeysOptions) error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	k, done, err := openKeys(ctx, o.keyFlags)
	if err != nil {
		return err
	}
	defer done()
	keys, err := k.List(ctx, o.Org)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(keys))
	for _, ki := range keys {
		retired, current := "-", ""
		if ki.RetiredAt != nil {
			retired = ki.RetiredAt.Format(time.RFC3339)
		}
		if ki.Current {
			current = "*"
		}
		rows = append(rows, []string{current, ki.ID, ki.CreatedAt.Format(time.RFC3339), retired, ki.Recipient})
	}
	return o.Print.PrintRows(o.IO, []string{"CURRENT", "KEY ID", "CREATED", "RETIRED", "RECIPIENT"}, rows, map[string]any{"items": keys})
}

// runRotateSealingKey adds a key to the organization, or retires one.
func runRotateSealingKey(ctx context.Context, o *RotateSealingKeyOptions) error {
	if o.Force && o.Retire == "" {
		return cmdutil.FlagErrorf("--force goes with --retire KEY_ID")
	}
	if o.Retire != "" && !o.Force {
		return cmdutil.FlagErrorf("--retire %s: values still sealed to the key stop applying; reseal the manifests first (botkit seal --reseal -f DIR -R), then retire with --force", o.Retire)
	}
	k, done, err := openKeys(ctx, o.keyFlags)
	if err != nil {
		return err
	}
	defer done()
	ref := "organization/" + o.Org
	if o.Retire != "" {
		if err := k.Retire(ctx, o.Org, o.Retire); err != nil {
			return err
		}
		return printers.PrintOperations(o.IO.Out, printers.Operation{Ref: ref, Action: "configured", Detail: "sealing key " + o.Retire + " retired"})
	}
	ki, err := k.Rotate(ctx, o.Org)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Reseal the manifests sealed to older keys: botkit seal --reseal -f DIR -R\n")
	return printers.PrintOperations(o.IO.Out, printers.Operation{Ref: ref, Action: "configured", Detail: "sealing key " + ki.ID + " is current"})
}

// runExportSealingKeys writes the backup to standard output.
func runExportSealingKeys(ctx context.Context, o *ExportSealingKeysOptions) error {
	if o.ToRecipient == "" {
		return cmdutil.FlagErrorf("--to-recipient is required: the operator's age recipient (age1…), from age-keygen")
	}
	if o.IO.IsStdoutTTY() {
		return cmdutil.FlagErrorf("the backup belongs in a file: redirect standard output (> %s-sealing-keys.age)", o.Org)
	}
	k, done, err := openKeys(ctx, o.keyFlags)
	if err != nil {
		return err
	}
	defer done()
	n, err := k.Export(ctx, o.Org, o.ToRecipient, o.IO.Out)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Exported %d sealing keys of organization %s, encrypted to %s.\n", n, o.Org, o.ToRecipient)
	return nil
}

// runImportSealingKeys restores keys from a backup.
func runImportSealingKeys(ctx context.Context, o *ImportSealingKeysOptions) error {
	if o.From == "" || o.IdentityFile == "" {
		return cmdutil.FlagErrorf("--from FILE and --identity FILE are required")
	}
	backup, err := os.ReadFile(o.From)
	if err != nil {
		return cmdutil.FlagErrorf("--from: %v", err)
	}
	ids, err := os.ReadFile(o.IdentityFile)
	if err != nil {
		return cmdutil.FlagErrorf("--identity: %v", err)
	}
	k, done, err := openKeys(ctx, o.keyFlags)
	if err != nil {
		return err
	}
	defer done()
	res, err := k.Import(ctx, o.Org, backup, ids)
	if err != nil {
		return err
	}
	return printers.PrintOperations(o.IO.Out, printers.Operation{Ref: "organization/" + o.Org, Action: "configured",
		Detail: fmt.Sprintf("%d sealing keys imported, %d already present; current key %s", res.Added, res.Present, res.Current)})
}

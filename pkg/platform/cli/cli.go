// Package cli implements the botkit-platform command line: `serve`, the
// administration commands `orgs` and `tokens`, and `migrate`. As botkit's
// commands are, each command is an Options struct filled from its flags and
// a run function (run*(ctx, opts)) that tests call without cobra; the
// plumbing (exit codes, Execute, flags) is pkg/cmdutil's.
package cli

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// Run runs the command line args and returns the exit code (`botkit help exit-codes`),
// through the same plumbing as botkit's own commands.
func Run(ctx context.Context, args []string, io *iostreams.IOStreams) int {
	return cmdutil.Execute(ctx, NewRootCmd(io), io, args)
}

const (
	dataDirEnv = "BOTKIT_PLATFORM_DATA_DIR"
	storeEnv   = "BOTKIT_PLATFORM_STORE"
)

// NewRootCmd builds the botkit-platform command tree.
func NewRootCmd(st *iostreams.IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:           "botkit-platform",
		Short:         "Run and administer the botkit platform service",
		Version:       cmdutil.BuildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(NewCmdServe(st, nil), newCmdOrgs(st), newCmdTokens(st), NewCmdMigrate(st, nil))
	root.AddCommand(cmdutil.NewHelpTopic("exit-codes", "What botkit-platform's exit codes mean", cmdutil.ExitCodesHelp("botkit-platform")))
	cmdutil.TypeUsageErrors(root)
	return root
}

// command completes c as every botkit-platform command is made: the store
// flags into store (nil: the command has none), and RunE, which lets args
// (checked by c.Args) fill opts, then calls runF when given (tests) else
// run.
func command[O any](c *cobra.Command, opts O, store *storeFlags, args func(*cobra.Command, []string) error, runF, run func(context.Context, O) error) *cobra.Command {
	if store != nil {
		addStoreFlags(c, store)
	}
	c.RunE = func(c *cobra.Command, a []string) error {
		if args != nil {
			if err := args(c, a); err != nil {
				return err
			}
		}
		if runF != nil {
			return runF(c.Context(), opts)
		}
		return run(c.Context(), opts)
	}
	return c
}

// noArgs is the Args of a command that takes none.
var noArgs = cmdutil.ExactArgs(0, "no arguments")

// storeFlags locate the platform's store: a SQLite data directory or a
// PostgreSQL URL (which wins when both are set).
type storeFlags struct {
	DataDir string
	Store   string
}

func addStoreFlags(c *cobra.Command, f *storeFlags) {
	c.Flags().StringVar(&f.DataDir, "data-dir", os.Getenv(dataDirEnv), "directory of the platform's SQLite database and master key (env "+dataDirEnv+")")
	c.Flags().StringVar(&f.Store, "store", os.Getenv(storeEnv), "postgres://… URL of a PostgreSQL database to use instead of --data-dir (env "+storeEnv+")")
}

// location is where the flags say the store is: a PostgreSQL URL wins over
// a data directory.
func (f storeFlags) location() stores.Location {
	if f.Store != "" {
		return stores.Location{URL: f.Store}
	}
	return stores.Location{DataDir: f.DataDir}
}

func (f storeFlags) require() error {
	if f.DataDir == "" && f.Store == "" {
		return cmdutil.FlagErrorf("%s", "--data-dir or --store is required (or set "+dataDirEnv+" or "+storeEnv+")")
	}
	return nil
}

// listAdmin prints, in print's format, the items list reads through the
// administration of the store f names, one row each (row) under header.
func listAdmin[T any](ctx context.Context, f storeFlags, print *printers.Flags, io *iostreams.IOStreams, header []string,
	list func(*service.Admin) ([]T, error), row func(T) []string) error {
	if err := print.Validate(); err != nil {
		return err
	}
	a, err := openAdmin(ctx, f)
	if err != nil {
		return err
	}
	defer a.Close()
	items, err := list(a)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(items))
	for _, it := range items {
		rows = append(rows, row(it))
	}
	return print.PrintRows(io, header, rows, map[string]any{"items": items})
}

// openAdmin opens the store the flags name and the administration over it.
func openAdmin(ctx context.Context, f storeFlags) (*service.Admin, error) {
	if err := f.require(); err != nil {
		return nil, err
	}
	loc := f.location()
	st, err := stores.Open(ctx, loc, stores.Options{})
	if err != nil {
		return nil, err
	}
	return service.NewAdmin(st, loc.DataDir), nil
}

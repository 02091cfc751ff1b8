package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/store/postgres"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
)

// MigrateOptions are the options of `migrate`.
type MigrateOptions struct {
	From string
	To   string
	IO   *iostreams.IOStreams
}

// NewCmdMigrate returns `botkit-platform migrate`; runF (tests) replaces
// runMigrate.
func NewCmdMigrate(st *iostreams.IOStreams, runF func(context.Context, *MigrateOptions) error) *cobra.Command {
	o := &MigrateOptions{IO: st}
	c := command(&cobra.Command{
		Use:   "migrate --from DIR --to postgres://…",
		Short: "Copy a SQLite data directory into an empty PostgreSQL database",
		Long: `Copy the platform in a SQLite data directory (organizations, tokens,
objects, values, audit log) into an empty PostgreSQL database, in one
transaction. Values are copied encrypted: start the replicas with
--master-key-file DIR/master.key (or the key file the old server used).
Stop the old server first: writes it accepts during the copy are not copied.`,
		Args: noArgs,
	}, o, nil, nil, runF, runMigrate)
	c.Flags().StringVar(&o.From, "from", "", "SQLite data directory to copy (required)")
	c.Flags().StringVar(&o.To, "to", "", "postgres://… URL of the empty destination database (required)")
	return c
}

// runMigrate copies a SQLite data directory into PostgreSQL.
func runMigrate(ctx context.Context, o *MigrateOptions) error {
	if o.From == "" {
		return cmdutil.FlagErrorf("%s", "--from is required (the SQLite data directory)")
	}
	if o.To == "" {
		return cmdutil.FlagErrorf("%s", "--to is required (a postgres:// URL)")
	}
	if !postgres.IsURL(o.To) {
		return cmdutil.FlagErrorf("--to %s: want a postgres:// URL", postgres.Redact(o.To))
	}
	if _, err := os.Stat(filepath.Join(o.From, sqlite.DatabaseFile)); err != nil {
		return fmt.Errorf("--from %s: no platform database (%s): %w", o.From, sqlite.DatabaseFile, service.ErrNotFound)
	}
	src, err := stores.Open(ctx, stores.Location{DataDir: o.From}, stores.Options{})
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := stores.Open(ctx, stores.Location{URL: o.To}, stores.Options{})
	if err != nil {
		return err
	}
	defer dst.Close()
	st, err := service.Migrate(ctx, src, dst)
	if err != nil {
		return fmt.Errorf("--to %s: %w", postgres.Redact(o.To), err)
	}
	fmt.Fprintf(o.IO.Out, "migrated %d organizations, %d tokens, %d sealing keys, %d public keys, %d objects (%d values), %d agents (%d deployments), %d audit records\n", st.Orgs, st.Tokens, st.SealingKeys, st.PublicKeys, st.Objects, st.Values, st.Agents, st.Deployments, st.Audit)
	fmt.Fprintf(o.IO.ErrOut, "Start the replicas with --store and --master-key-file %s (unless the old server used another key file).\n", filepath.Join(o.From, platform.MasterKeyFile))
	return nil
}

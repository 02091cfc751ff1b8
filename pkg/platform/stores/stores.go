// Package stores opens the store a botkit-platform command names: the
// SQLite database of a data directory, or a PostgreSQL database by URL. It
// links both drivers; the CLI's embedded platform opens SQLite directly and
// does not import it.
package stores

import (
	"context"
	"fmt"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/postgres"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Location names a store: a PostgreSQL URL, which wins when set, or the
// SQLite database in a data directory.
type Location struct {
	DataDir string
	URL     string
}

// Shared reports whether several servers may share the store (PostgreSQL).
func (l Location) Shared() bool { return l.URL != "" }

// Options tune the store opened.
type Options struct {
	// OnCommit is called after every durable commit (metrics).
	OnCommit func(batch int, d time.Duration)
	// CommitDelay and CommitBatch are postgres.Options' (PostgreSQL only).
	CommitDelay time.Duration
	CommitBatch int
}

// MaxCommitBatch is the largest Options.CommitBatch: the most writes a
// replica commits together.
const MaxCommitBatch = postgres.MaxBatch

// DefaultCommitDelay is botkit-platform serve's --commit-delay on
// PostgreSQL: the longest a replica waits after a shared commit for the
// writers it answered to write again (bench/platform measured 1 ms
// against 0.5 and 2; see docs/performance.md).
const DefaultCommitDelay = time.Millisecond

// Open opens the store at loc.
func Open(ctx context.Context, loc Location, opts Options) (store.Store, error) {
	if loc.URL != "" {
		if !postgres.IsURL(loc.URL) {
			return nil, &resources.Error{Code: resources.CodeInvalid, Message: fmt.Sprintf("--store %s: want a postgres:// URL (or no --store for SQLite in --data-dir)", postgres.Redact(loc.URL))}
		}
		return postgres.Open(ctx, loc.URL, postgres.Options{OnCommit: opts.OnCommit, CommitDelay: opts.CommitDelay, CommitBatch: opts.CommitBatch})
	}
	if loc.DataDir == "" {
		return nil, &resources.Error{Code: resources.CodeInvalid, Message: "--data-dir is required"}
	}
	return sqlite.OpenDir(ctx, loc.DataDir, sqlite.Options{OnCommit: opts.OnCommit})
}

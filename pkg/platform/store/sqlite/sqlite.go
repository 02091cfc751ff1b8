// Package sqlite implements store.Store over a SQLite file with
// modernc.org/sqlite (pure Go, no cgo).
//
// The database runs in WAL mode with synchronous=FULL: a write is
// acknowledged only after its commit reached the disk. All writes go through
// one writer goroutine that batches the transactions queued while the
// previous commit was being synced into a single SQLite transaction (group
// commit); each request runs inside its own SAVEPOINT, so it still commits or
// fails on its own, and requests touching the same row are applied one after
// the other. Reads use a separate pool of read-only connections.
//
// The write-ahead log (platform.db-wal) stays bounded under any load: a
// background connection copies it into the database (PASSIVE checkpoints,
// which never delay a commit), and when a commit leaves the log larger than
// Options.WALLimit the writer, between two batches, checkpoints it whole
// (RESTART), so that the next commit writes the log from its beginning, and
// SQLite truncates the file back to the limit (journal_size_limit). Once
// writes stop (Options.IdleCheckpoint) the writer truncates the log to
// nothing.
//
// Several processes may open the same file at once (the admin commands of
// botkit-platform do so while `serve` runs): SQLite's file locks serialize
// their writes, with a busy timeout.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options tune the store.
type Options struct {
	// MaxBatch bounds how many write transactions are committed together
	// (default 256).
	MaxBatch int
	// OnCommit, if set, is called after every commit with the number of
	// transactions it held and how long the commit took.
	OnCommit func(batch int, d time.Duration)
	// BusyTimeout is how long a write waits for another process's lock
	// (default 10s).
	BusyTimeout time.Duration
	// OnBusy, if set, is called each time a batch of writes found the
	// database locked by another process and is to be tried again (tests
	// see a write waiting instead of timing it).
	OnBusy func()
	// WALLimit bounds the write-ahead log: a commit that leaves the -wal
	// file larger makes the writer checkpoint the whole log before its next
	// batch, and the file is truncated back to this size (default
	// DefaultWALLimit).
	WALLimit int64
	// IdleCheckpoint is how long the store must go without a change before
	// the writer truncates the log to nothing (default 1s): the log
	// shrinks back once load stops.
	IdleCheckpoint time.Duration

	// idleTicks replaces the idle ticker (tests): the log is truncated at
	// a tick that follows a tick with no change in between.
	idleTicks <-chan time.Time
}

// DefaultWALLimit is the default Options.WALLimit: SQLite's own default
// checkpoint threshold (1,000 pages of 4 KiB).
const DefaultWALLimit = 4 << 20

// Store is a SQLite store.Store.
type Store struct {
	w, r     *sql.DB
	ckpt     *sql.DB
	wc       *stmtCache     // writer goroutine only
	reused   map[string]int // writer goroutine only: see batchTx.stmt
	cache    *objCache      // writer goroutine only
	rc       *stmtCache
	opts     Options
	reqs     chan *request
	stop     chan struct{}
	done     chan struct{}
	ckptDone chan struct{}
	close    sync.Once
	walPath  string
}

var _ store.Store = (*Store)(nil)

// ErrClosed is returned by Update after Close.
var ErrClosed = errors.New("store is closed")

type request struct {
	ctx  context.Context
	fn   func(context.Context, store.Tx) error
	done chan error
}

func dsn(path string, busy time.Duration, extra ...string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(FULL)")
	for i := 0; i+1 < len(extra); i += 2 {
		q.Add(extra[i], extra[i+1])
	}
	return "file:" + path + "?" + q.Encode()
}

// DatabaseFile is the database's name inside a platform's data directory.
const DatabaseFile = "platform.db"

// OpenDir opens (creating if needed) the database DatabaseFile in dir,
// creating dir (0700) if it is missing.
func OpenDir(ctx context.Context, dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("no data directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	return Open(ctx, filepath.Join(dir, DatabaseFile), opts)
}

// Open opens (creating if needed, mode 0600) the database at path and applies
// the embedded schema migrations.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 256
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 10 * time.Second
	}
	if opts.WALLimit <= 0 {
		opts.WALLimit = DefaultWALLimit
	}
	if opts.IdleCheckpoint <= 0 {
		opts.IdleCheckpoint = time.Second
	}
	// SQLite's own busy handler waits without looking at any context: the
	// writer asks it for short waits and retries them itself (commit),
	// within BusyTimeout and while a request of the batch still waits.
	writerBusy := min(opts.BusyTimeout, busyStep)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	f.Close()

	// The writer never checkpoints automatically: a background connection
	// does, so the copy of WAL pages into the database file does not delay
	// commits. The writer checkpoints itself only to bound the log
	// (boundLog) and to truncate it when idle (truncateLog).
	w, err := sql.Open("sqlite", dsn(path, writerBusy, "_txlock", "immediate", "_pragma", "wal_autocheckpoint(0)",
		"_pragma", fmt.Sprintf("journal_size_limit(%d)", opts.WALLimit)))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := enableWAL(ctx, w, opts.BusyTimeout); err != nil {
		w.Close()
		return nil, fmt.Errorf("database %s: enable WAL: %w", path, err)
	}
	if err := whileBusy(ctx, opts.BusyTimeout, func() error { return migrate(ctx, w) }); err != nil {
		w.Close()
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", dsn(path, opts.BusyTimeout, "_pragma", "query_only(1)"))
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	s := &Store{w: w, r: r, wc: newStmtCache(w), reused: map[string]int{}, cache: newObjCache(), rc: newStmtCache(r), opts: opts, reqs: make(chan *request, 1024), stop: make(chan struct{}), done: make(chan struct{}), ckptDone: make(chan struct{}), walPath: path + "-wal"}
	if s.ckpt, err = sql.Open("sqlite", dsn(path, opts.BusyTimeout)); err != nil {
		s.wc.close()
		w.Close()
		r.Close()
		return nil, err
	}
	s.ckpt.SetMaxOpenConns(1)
	go s.writer()
	go s.checkpointer()
	return s, nil
}

// migrationFiles returns the embedded migrations in order with their
// versions.
func migrationFiles() ([]string, []int, error) {
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	versions := make([]int, len(names))
	for i, name := range names {
		vs, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(vs)
		if err != nil {
			return nil, nil, fmt.Errorf("migration %s: name must start with a number", name)
		}
		versions[i] = v
	}
	return names, versions, nil
}

// enableWAL switches the database to write-ahead logging. Changing the
// journal mode needs an exclusive lock, for which SQLite does not call the
// busy handler (it answers SQLITE_BUSY, or leaves the mode unchanged), so
// processes opening a fresh database at the same moment — parallel CLI
// commands on a new machine — retry here for up to wait.
func enableWAL(ctx context.Context, db *sql.DB, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		switch {
		case err == nil && strings.EqualFold(mode, "wal"):
			return nil
		case err != nil && !isBusy(err):
			return err
		case time.Now().After(deadline):
			if err == nil {
				err = fmt.Errorf("journal mode stays %q", mode)
			}
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

func migrate(ctx context.Context, db *sql.DB) error {
	names, versions, err := migrationFiles()
	if err != nil {
		return err
	}
	// An up-to-date database costs one query (the CLI's embedded platform
	// opens it for every command).
	var applied int
	var latest sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT count(*), max(version) FROM schema_migrations`).Scan(&applied, &latest); err == nil &&
		applied == len(versions) && len(versions) > 0 && latest.Int64 == int64(versions[len(versions)-1]) {
		return nil
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	for i, name := range names {
		v := versions[i]
		body, err := migrations.ReadFile("migrations/" + name)
		if err != nil {
			return err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, v).Scan(&n); err != nil {
			tx.Rollback()
			return err
		}
		if n > 0 {
			tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, v, time.Now().UnixNano()); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

func (s *Store) rdb() cachedDB { return cachedDB{c: s.rc} }

// Close stops the writer (after finishing queued writes) and closes the
// database.
func (s *Store) Close() error {
	s.close.Do(func() { close(s.stop) })
	<-s.done
	<-s.ckptDone
	s.wc.close()
	s.rc.close()
	// A final checkpoint (PASSIVE: it never waits for another process), on
	// the writer's connection, idle now: the checkpointer's connection is
	// opened by its first tick only, which a short-lived process (a botkit
	// command) never reaches.
	_, _ = s.w.Exec("PRAGMA wal_checkpoint(PASSIVE)")
	return errors.Join(s.w.Close(), s.r.Close(), s.ckpt.Close())
}

// Update implements store.Store: fn is queued for the writer goroutine and
// Update returns after the durable commit of the batch that held it.
func (s *Store) Update(ctx context.Context, fn func(context.Context, store.Tx) error) error {
	req := &request{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case s.reqs <- req:
	case <-s.stop:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued, wait for the outcome even if ctx ends: the caller must
	// not report failure for a write that may commit.
	return <-req.done
}

// checkpointer copies the WAL into the database file in the background
// (PASSIVE: it never blocks the writer or readers).
func (s *Store) checkpointer() {
	defer close(s.ckptDone)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			_, _ = s.ckpt.Exec("PRAGMA wal_checkpoint(PASSIVE)")
		}
	}
}

func (s *Store) writer() {
	defer close(s.done)
	ticks := s.opts.idleTicks
	if ticks == nil {
		t := time.NewTicker(s.opts.IdleCheckpoint)
		defer t.Stop()
		ticks = t.C
	}
	// changes: the rows the writer had changed at the last tick (commits
	// that change nothing, such as the provisioner's polls, leave the log
	// as it is); logged: the log may hold frames. The log is truncated at
	// the first tick that follows a tick without a change.
	changes, logged := int64(-1), true
	for {
		var first *request
		select {
		case first = <-s.reqs:
		case <-ticks:
			var n int64
			if err := s.w.QueryRow("SELECT total_changes()").Scan(&n); err != nil {
				continue
			}
			if n == changes && logged {
				logged = !s.truncateLog()
			}
			changes = n
			continue
		case <-s.stop:
			// Finish what is queued, then refuse.
			for {
				select {
				case r := <-s.reqs:
					s.commit([]*request{r})
				default:
					return
				}
			}
		}
		batch := []*request{first}
	fill:
		for len(batch) < s.opts.MaxBatch {
			select {
			case r := <-s.reqs:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		s.commit(batch)
		s.boundLog()
		logged = true
	}
}

// boundLog checkpoints the whole log (RESTART) when the last commit left it
// larger than Options.WALLimit: the next commit then writes the log from its
// beginning and truncates the file to the limit (journal_size_limit). It
// runs on the writer's connection between two batches, so no write of this
// process competes with it; it waits for readers on older snapshots only up
// to the writer's busy step, and a checkpoint that could not finish (a
// reader, another process, the background checkpointer) is tried again
// after the next batch.
func (s *Store) boundLog() {
	fi, err := os.Stat(s.walPath)
	if err != nil || fi.Size() <= s.opts.WALLimit {
		return
	}
	s.checkpoint("RESTART")
}

// truncateLog checkpoints the whole log and truncates the file to nothing
// (the store is idle). It reports whether it did.
func (s *Store) truncateLog() bool {
	return s.checkpoint("TRUNCATE")
}

// checkpoint runs a checkpoint of mode on the writer's connection and
// reports whether it copied the whole log.
func (s *Store) checkpoint(mode string) bool {
	var busy, frames, copied int64
	err := s.w.QueryRow("PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &copied)
	return err == nil && busy == 0 && frames == copied
}

func runFn(ctx context.Context, fn func(context.Context, store.Tx) error, tx store.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error in write transaction")
		}
	}()
	return fn(ctx, tx)
}

// errRetrySafe asks for a batch to be run again with savepoints.
var errRetrySafe = errors.New("retry the batch with savepoints")

// whileBusy runs fn again while it fails with SQLITE_BUSY (another process
// holds the write lock), until bound has passed or ctx ends.
func whileBusy(ctx context.Context, bound time.Duration, fn func() error) error {
	start := time.Now()
	for {
		err := fn()
		if !isBusy(err) {
			return err
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if time.Since(start) >= bound {
			return fmt.Errorf("%w (waited %s)", store.ErrBusy, bound.Round(time.Second))
		}
		time.Sleep(busyStep / 4)
	}
}

// busyStep is how long SQLite's busy handler waits for another process's
// lock before the writer looks at its requests' contexts again.
const busyStep = 100 * time.Millisecond

// commit runs a batch in one transaction and acknowledges every request
// after the durable commit. It first runs the batch without savepoints: a
// request that fails before writing anything needs no rollback. Only if a
// request fails after it wrote is the batch rolled back and run again with a
// savepoint around every request.
//
// While another process holds the database's write lock, the batch is
// tried again every busyStep: a request whose context ends meanwhile gets
// its context's error (Ctrl-C ends a command at once), and after
// Options.BusyTimeout the rest get store.ErrBusy.
func (s *Store) commit(batch []*request) {
	start := time.Now()
	var results []error
	var err error
	for {
		results, err = s.runBatch(batch, false)
		if errors.Is(err, errRetrySafe) {
			results, err = s.runBatch(batch, true)
		}
		if !isBusy(err) {
			break
		}
		waited := time.Since(start)
		live := batch[:0]
		for _, r := range batch {
			bound := s.opts.BusyTimeout
			if d, ok := store.BusyBound(r.ctx); ok && d < bound {
				bound = d
			}
			switch {
			case r.ctx.Err() != nil:
				r.done <- r.ctx.Err()
			case waited >= bound:
				r.done <- fmt.Errorf("%w (waited %s)", store.ErrBusy, waited.Round(100*time.Millisecond))
			default:
				live = append(live, r)
			}
		}
		if batch = live; len(batch) == 0 {
			return
		}
		if s.opts.OnBusy != nil {
			s.opts.OnBusy()
		}
		time.Sleep(busyStep / 4)
	}
	// A full disk fails the statement that needed space, or the commit:
	// either way nothing of the batch was kept (SQLite rolls the whole
	// transaction back), and the requests are told the storage is full.
	if err != nil {
		err = asFull(err)
		for _, r := range batch {
			r.done <- err
		}
		return
	}
	if s.opts.OnCommit != nil {
		s.opts.OnCommit(len(batch), time.Since(start))
	}
	for i, r := range batch {
		r.done <- asFull(results[i])
	}
}

// prepareReused puts in the writer's cache the writer queries that two
// batches had to prepare for themselves (batchTx.stmt): they are the
// statements this process keeps running. Between two batches, the writer's
// connection is free to prepare them. A statement that does not prepare is
// left to the batches (the unprepared path reports its error).
func (s *Store) prepareReused(ctx context.Context) {
	for q, n := range s.reused {
		if n < 2 {
			continue
		}
		_, _ = s.wc.get(ctx, q)
		delete(s.reused, q)
	}
}

func (s *Store) runBatch(batch []*request, safe bool) ([]error, error) {
	ctx := context.Background()
	results := make([]error, len(batch))
	s.prepareReused(ctx)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin transaction: %w", err)
	}
	b := &batchTx{tx: tx, c: s.wc, stmts: map[string]*sql.Stmt{}, cache: s.cache, over: map[objKey]overlayEntry{}, reused: s.reused}
	// Another connection or process committed since the last batch: the
	// object cache may be stale.
	var dv int64
	if err := b.QueryRowContext(ctx, qDataVersion).Scan(&dv); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("data_version: %w", err)
	}
	if !s.cache.known || dv != s.cache.dataVersion {
		s.cache.clear()
		s.cache.dataVersion, s.cache.known = dv, true
	}
	abort := func(what string, err error) ([]error, error) {
		tx.Rollback()
		err = fmt.Errorf("%s: %w", what, err)
		// After SQLITE_FULL SQLite may have rolled the transaction back
		// itself, and the savepoint's statements then fail in turn.
		if i := slices.IndexFunc(results, isFull); i >= 0 {
			err = fmt.Errorf("%w: %w", err, results[i])
		}
		return nil, err
	}
	for i, r := range batch {
		if err := r.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		if safe {
			if _, err := b.ExecContext(ctx, qSavepoint); err != nil {
				return abort("savepoint", err)
			}
		}
		t := &sqlTx{b: b}
		// Once the batch runs, the request's statements are not interrupted
		// when its context ends (it was checked above): a context with a
		// Done channel costs the driver a watcher goroutine per statement.
		err := runFn(context.WithoutCancel(r.ctx), r.fn, t)
		if err == nil {
			b.audit = append(b.audit, t.audit...)
			b.finish(t)
		} else {
			results[i] = err
			switch {
			case safe:
				if _, err := b.ExecContext(ctx, qRollbackTo); err != nil {
					return abort("rollback to savepoint", err)
				}
			case t.dirty:
				tx.Rollback()
				return nil, errRetrySafe
			}
		}
		if safe {
			if _, err := b.ExecContext(ctx, qRelease); err != nil {
				return abort("release savepoint", err)
			}
		}
	}
	if err := b.flushVersion(ctx); err != nil {
		return abort("store version", err)
	}
	if err := b.flushAudit(ctx); err != nil {
		return abort("audit", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	s.cache.apply(b)
	return results, nil
}

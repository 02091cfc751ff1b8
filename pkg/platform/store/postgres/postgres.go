// Package postgres implements store.Store over PostgreSQL with
// github.com/jackc/pgx/v5 (pgxpool), so that several platform processes
// (replicas) share one database and behave as one platform.
//
// An Update runs in a READ COMMITTED transaction on a pooled connection:
// its own, or — when its context declares the objects it reads
// (store.WithObjects, as the platform's single-object writes do) — one it
// shares with the other declared updates queued at that moment (group
// commit, batch.go). What the SQLite store gets from its single writer, this
// store gets from the database:
//   - Tx.Object reads the row with SELECT ... FOR UPDATE, so concurrent
//     read-modify-writes of one object, from any replica, run one after the
//     other and never lose a key; a missing object takes a transaction-scoped
//     advisory lock on (organization, name) and reads again, so two replicas
//     creating one name serialize too.
//   - Writes whose outcome the caller does not read (updates of an object
//     row, values, audit records) are queued and sent together with COMMIT in
//     one pipelined round trip, as one multi-row statement per table
//     (compact.go); a merge costs two round trips, shared by its batch.
//   - A replica remembers the rows its batches last read or wrote; a batch
//     whose objects are all remembered skips the locked read and commits in
//     ONE round trip that first locks the rows and checks that each is still
//     at the remembered version — or writes nothing and runs again under
//     lock (cache.go). This is the counterpart of the SQLite store's
//     data_version check: what is remembered is never trusted unchecked.
//   - Versions come from a sequence in blocks (see takeVersion).
//   - Deadlocks and serialization failures are retried with a new
//     transaction; connection failures are store.ErrUnavailable.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botkit-dev/botkit/internal/redact"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/puddle/v2"
)

//go:embed migrations/*.sql
var migrations embed.FS

// IsURL reports whether s names a PostgreSQL database (postgres:// or
// postgresql://).
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns u with its password replaced, for messages.
func Redact(u string) string { return redact.Location(u) }

// Options tune the store.
type Options struct {
	// OnCommit, if set, is called after every commit with the number of
	// transactions it held (always 1) and how long the commit took.
	OnCommit func(batch int, d time.Duration)
	// MaxConns bounds the connection pool unless the URL sets
	// pool_max_conns (default 16).
	MaxConns int32
	// Batches is how many group-commit transactions (see batch.go) may run
	// at once (default 1: fewer, larger transactions did best in
	// bench/platform; negative: no group commit).
	Batches int
	// CommitDelay, when positive, is how long at most a batch runner waits,
	// after a batch of more than one write, for the writers it answered to
	// write again: it starts the next batch once the queue holds as many
	// writes as it held when the answers went out plus as many as were
	// answered (at most CommitBatch), or when the delay is out. Clients
	// that wait for each answer before the next write (a closed loop)
	// then share one batch instead of splitting into two alternating
	// groups that pay the per-batch cost twice. A lone write never waits;
	// a writer that does not come back costs the next batch at most the
	// delay. (PostgreSQL's commit_delay with commit_siblings, at the
	// replica, counting writers instead of guessing them.)
	CommitDelay time.Duration
	// CommitBatch caps the batch a runner waits for (default: the largest
	// batch, 64).
	CommitBatch int
}

// Store is a PostgreSQL store.Store.
type Store struct {
	pool *pgxpool.Pool
	opts Options

	vmu      sync.Mutex
	vnext    int64 // next version of the current block
	vend     int64 // end (exclusive) of the current block
	closeOne sync.Once

	batches int // Options.Batches
	bmu     sync.Mutex
	pending []*request
	running int                      // batch runners
	busy    map[store.ObjectKey]bool // objects of running batches
	want    int                      // the queue a waiting runner waits for (batch.go)
	grown   chan struct{}            // closed when pending reaches want
	cache   objectCache              // rows of the objects batches last read or wrote
	// Seams for tests that drive the batch runner (nil: none): batchDone
	// is called by a runner after each batch, before it looks at the
	// queue again; delayTimer stands for the commit delay's timer, called
	// with the writes the runner waits for (batch.go).
	batchDone  func(size int)
	delayTimer func(want int) <-chan struct{}

	optimistic, stale atomic.Int64 // optimistic batches committed; found stale
}

var _ store.Store = (*Store)(nil)

// qVersionBlock takes a block of versions: the sequence's next value and
// its increment (the block's size, set by the migrations alone). A version
// must exceed every version of the object it replaces, so takeVersion
// takes a new block when the transaction read a version at or above its
// next one (a block starts above every version of every earlier block).
const qVersionBlock = `SELECT nextval('versions'), seqincrement FROM pg_sequence WHERE seqrelid = 'versions'::regclass`

// Open connects to the database at rawURL, checks that it answers, and
// applies the embedded schema migrations (under an advisory lock, so that
// replicas starting together apply them once).
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		// The parse error may quote the URL, password included.
		return nil, fmt.Errorf("database %s: invalid connection URL", Redact(rawURL))
	}
	if !strings.Contains(rawURL, "pool_max_conns") {
		cfg.MaxConns = opts.MaxConns
		if cfg.MaxConns <= 0 {
			cfg.MaxConns = 16
		}
	}
	// Every statement is prepared once per connection and looks rows up by
	// key. Its generic plan is as good as a custom one, and planning anew
	// for each execution's arrays cost a batch more than running some of
	// its statements (bench/platform). But a generic plan is kept for the
	// connection's life with the table sizes it was made with: made while
	// objects held a few rows, it scans every page and hashes them; a set
	// written many times a second then leaves dead row versions over tens
	// of pages (96 pages for 32 rows in bench/platform) and every batch
	// paid for scanning them (~10% of PostgreSQL's CPU per write with three
	// replicas). With sequential scans off, the planner takes an index
	// wherever one applies, whatever the statistics say; a statement that
	// no index serves still scans (TestPlansUseIndexes).
	for name, value := range map[string]string{"plan_cache_mode": "force_generic_plan", "enable_seqscan": "off"} {
		if _, set := cfg.ConnConfig.RuntimeParams[name]; !set {
			cfg.ConnConfig.RuntimeParams[name] = value
		}
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	cfg.HealthCheckPeriod = 5 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database %s: %v", Redact(rawURL), err)
	}
	s := &Store{pool: pool, opts: opts, batches: opts.Batches, busy: map[store.ObjectKey]bool{}}
	if s.batches == 0 {
		s.batches = 1
	}
	if s.opts.CommitBatch <= 0 || s.opts.CommitBatch > MaxBatch {
		s.opts.CommitBatch = MaxBatch
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		if isUnavailable(err) {
			return nil, fmt.Errorf("database %s is unreachable: %v", Redact(rawURL), oneLine(err))
		}
		return nil, fmt.Errorf("database %s: %v", Redact(rawURL), oneLine(err))
	}
	return s, nil
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

const migrationLock = 7_271_311 // pg_advisory_lock key of schema migrations

func (s *Store) migrate(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	for _, name := range names {
		vs, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(vs)
		if err != nil {
			return fmt.Errorf("migration %s: name must start with a number", name)
		}
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, v).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		body, err := migrations.ReadFile("migrations/" + name)
		if err != nil {
			return err
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			// Simple protocol: a migration holds several statements.
			if _, err := tx.Exec(ctx, string(body), pgx.QueryExecModeSimpleProtocol); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`, v, time.Now().UnixNano())
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

// Close closes the pool.
func (s *Store) Close() error {
	s.closeOne.Do(s.pool.Close)
	return nil
}

// isUnavailable reports whether err means the database could not be reached
// or went away (as opposed to refusing a statement).
func isUnavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, store.ErrUnavailable) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // shutdown, crash, starting up
			pe.Code == "53300": // too many connections
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || pgconn.SafeToRetry(err) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, puddle.ErrClosedPool)
}

// retryable reports a deadlock or serialization failure: the transaction
// can run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// isDiskFull reports PostgreSQL's disk_full (53100): a file of the
// database could not be extended or written because its disk is full.
func isDiskFull(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "53100"
}

// wrap marks connection failures as store.ErrUnavailable, and a full disk
// as store.ErrStorageFull.
func wrap(err error) error {
	if err == nil || errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrStorageFull) {
		return err
	}
	if isDiskFull(err) {
		return fmt.Errorf("%w: %v", store.ErrStorageFull, oneLine(err))
	}
	if isUnavailable(err) {
		return fmt.Errorf("%w: %v", store.ErrUnavailable, oneLine(err))
	}
	return err
}

const maxAttempts = 5

// Update implements store.Store. Updates that declare their objects
// (store.WithObjects) are grouped into shared transactions (batch.go).
func (s *Store) Update(ctx context.Context, fn func(context.Context, store.Tx) error) error {
	keys := store.ObjectsOf(ctx)
	if len(keys) == 0 || s.batches < 0 {
		return s.updateAlone(ctx, fn)
	}
	r := &request{ctx: ctx, fn: fn, keys: slices.SortedFunc(slices.Values(keys), store.ObjectKey.Compare), done: make(chan error, 1)}
	s.enqueueRequest(r)
	return <-r.done
}

// updateAlone runs fn in a transaction of its own.
func (s *Store) updateAlone(ctx context.Context, fn func(context.Context, store.Tx) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		var safe bool
		safe, err = s.update(ctx, fn)
		if err == nil || attempt == maxAttempts || ctx.Err() != nil {
			break
		}
		// Run again after a deadlock, or when the connection failed
		// before COMMIT was sent (a pooled connection the server closed).
		if !retryable(err) && !(safe && isUnavailable(err)) {
			break
		}
		if !retryable(err) {
			time.Sleep(time.Duration(attempt) * 20 * time.Millisecond)
		}
	}
	return wrap(err)
}

// update runs fn in one transaction. safe reports that COMMIT was never
// sent, so a failure left nothing behind.
func (s *Store) update(ctx context.Context, fn func(context.Context, store.Tx) error) (safe bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return true, err
	}
	defer conn.Release()
	t := &pgTx{s: s, conn: conn.Conn()}
	start := time.Now()
	ferr := runFn(ctx, fn, t)
	if ferr != nil {
		if t.began {
			// An aborted or failed transaction: roll back (a broken
			// connection is dropped by the pool on release).
			_, _ = t.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		return !t.sentCommit, ferr
	}
	// Once COMMIT is sent, wait for its outcome even if ctx ends: the
	// caller must not report failure for a write that committed.
	if err := t.commit(context.WithoutCancel(ctx)); err != nil {
		if t.conn.PgConn().TxStatus() != 'I' {
			_, _ = t.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		return !t.sentCommit, err
	}
	if s.opts.OnCommit != nil && t.began {
		s.opts.OnCommit(1, time.Since(start))
	}
	return false, nil
}

func runFn(ctx context.Context, fn func(context.Context, store.Tx) error, tx store.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error in write transaction")
		}
	}()
	return fn(ctx, tx)
}

// read runs a read on a pooled connection, once more if the connection
// turned out dead.
func (s *Store) read(ctx context.Context, fn func(ctx context.Context) error) error {
	err := fn(ctx)
	if err != nil && isUnavailable(err) && ctx.Err() == nil {
		err = fn(ctx)
	}
	return wrap(err)
}

// takeVersion hands out the next version, greater than atLeast.
func (s *Store) takeVersion(ctx context.Context, q *pgx.Conn, atLeast int64) (int64, error) {
	s.vmu.Lock()
	defer s.vmu.Unlock()
	for s.vnext >= s.vend || s.vnext <= atLeast {
		var b, n int64
		if err := q.QueryRow(ctx, qVersionBlock).Scan(&b, &n); err != nil {
			return 0, err
		}
		s.vnext, s.vend = b, b+n
	}
	v := s.vnext
	s.vnext++
	return v, nil
}

func (s *Store) resetVersions() {
	s.vmu.Lock()
	s.vnext, s.vend = 0, 0
	s.vmu.Unlock()
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Prepared statements: the SQL of the store, the cache of statements
// prepared at Open, and the batch transaction that runs them.

// querier runs statements through a cache of prepared statements: parsing
// SQL is a large part of the cost of a small transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queryAll runs query on q and returns every row, read with scan.
func queryAll[T any](ctx context.Context, q querier, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Queries of the write path, prepared once when the store opens.
const (
	qOrgByName    = `SELECT id, name, default_region, created_at FROM orgs WHERE name = ?`
	qObjectByName = `SELECT ` + objectCols + ` FROM objects WHERE org_id = ? AND name = ?`
	qValues       = `SELECT key, size, ciphertext FROM secret_values WHERE object_id = ? ORDER BY key`
	qInsertOrg    = `INSERT INTO orgs (name, default_region, created_at) VALUES (?, ?, ?)`
	qInsertToken  = `INSERT INTO tokens (id, hash, org_id, user, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)`
	qRevokeToken  = `UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`
	qBumpEpoch    = `UPDATE counters SET value = value + 1 WHERE name = 'tokens_epoch'`
	qUpdateObject = `UPDATE objects SET labels = ?, keys = ?, host = ?, username = ?, version = ?, generation = ?, state = ?, message = ?, updated_at = ?, managed = ?, apply_set = ? WHERE id = ?`
	// qUpdateSpec leaves state and message alone: when they do not change,
	// naming them in SET would still make SQLite rewrite the row's entry in
	// the partial index objects_pending.
	qUpdateSpec   = `UPDATE objects SET labels = ?, keys = ?, host = ?, username = ?, version = ?, generation = ?, updated_at = ?, managed = ?, apply_set = ? WHERE id = ?`
	qDeleteValue  = `DELETE FROM secret_values WHERE object_id = ? AND key = ?`
	qDeleteValues = `DELETE FROM secret_values WHERE object_id = ?`
	qDeleteObject = `DELETE FROM objects WHERE id = ?`
	qLoadVersion  = `SELECT value FROM counters WHERE name = 'version'`
	qStoreVersion = `UPDATE counters SET value = ? WHERE name = 'version'`
	qDataVersion  = `PRAGMA data_version`
	qMarkReady    = `UPDATE objects SET state = 'ready', message = '' WHERE state = 'pending' AND region = ? AND kind = ?`
	qSetStatus    = `UPDATE objects SET state = ?, message = ?, claim_gen = 0 WHERE id = ? AND generation = ?`
	qInsertObject = `INSERT INTO objects (org_id, name, kind, region, labels, keys, host, username, version, generation, state, message, created_at, updated_at, managed, apply_set)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qAppliedObjects = `SELECT ` + objectCols + ` FROM objects WHERE org_id = ? AND apply_set = ? AND managed = 1 ORDER BY name`
	qUpsertValue    = `INSERT INTO secret_values (object_id, key, size, ciphertext) VALUES (?, ?, ?, ?)
			ON CONFLICT (object_id, key) DO UPDATE SET size = excluded.size, ciphertext = excluded.ciphertext`
	qSavepoint  = `SAVEPOINT req`
	qRollbackTo = `ROLLBACK TO req`
	qRelease    = `RELEASE req`
)

// qAuditRows[i] inserts 1<<i audit rows: batches write their audit records
// with a few prepared statements (sizes 1, 2, 4, ... 128) instead of
// parsing a statement of their own size every commit. Built at first use
// (the writer's first batch), not at init.
var qAuditRows = sync.OnceValue(func() []string {
	var qs []string
	for n := 1; n <= 128; n *= 2 {
		var q strings.Builder
		q.WriteString(`INSERT INTO audit (at, org, actor, action, kind, name, region, keys) VALUES `)
		for i := range n {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
		}
		qs = append(qs, q.String())
	}
	return qs
})

// writerQueries are the statements of the write path that the writer keeps
// prepared once they proved to be used again (see batchTx.stmt).
var writerQueries = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, q := range slices.Concat([]string{qOrgByName, qObjectByName, qValues, qInsertOrg, qInsertToken, qRevokeToken, qUpdateObject, qUpdateSpec, qDeleteValue, qDeleteValues, qDeleteObject, qLoadVersion, qStoreVersion, qSetStatus, qMarkReady, qDataVersion, qInsertObject, qAppliedObjects, qUpsertValue, qSavepoint, qRollbackTo, qRelease,
		qInsertVersion, qInsertVersionValue, qPurgeVersions, qPurgeVersionValues, qVersion, qVersionValues, qSetHistoryLimit}, agentQueries, sessionQueries, qAuditRows()) {
		m[q] = true
	}
	return m
})

// stmtCache prepares each distinct query once per database handle.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache { return &stmtCache{db: db, m: map[string]*sql.Stmt{}} }

func (c *stmtCache) get(ctx context.Context, q string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st, nil
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.m[q] = st
	return st, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = map[string]*sql.Stmt{}
}

// cachedDB runs queries on the read pool with prepared statements.
type cachedDB struct{ c *stmtCache }

func (d cachedDB) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := d.c.get(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (d cachedDB) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := d.c.get(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (d cachedDB) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := d.c.get(ctx, q)
	if err != nil {
		// Let the plain path report the error through Row.Scan.
		return d.c.db.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// batchTx is the write transaction of one batch: it reuses the
// transaction's copies of the prepared statements and hands out versions from
// a counter loaded once and stored once per batch.
type batchTx struct {
	tx    *sql.Tx
	c     *stmtCache
	stmts map[string]*sql.Stmt

	version       int64
	versionLoaded bool
	versionDirty  bool

	audit []any // queued audit rows of successful requests

	cache   *objCache
	over    map[objKey]overlayEntry // objects written by successful requests
	invalid bool                    // a successful request changed rows the cache cannot name

	// reused counts, per writer query not in c, the batches that prepared
	// it for themselves (the store's, kept across batches).
	reused map[string]int
}

// stmt returns the transaction's copy of a statement of the writer's cache;
// a writer query that is not in the cache yet is prepared for this
// transaction (its one connection cannot prepare for the cache during a
// transaction), and counted: a query that a second batch needs is put in
// the cache before the batch after it (Store.prepareReused). So a process
// that writes once (a botkit command) parses only the statements its write
// runs, once each, and a server keeps every statement it runs prepared. It
// returns nil for other queries (run unprepared).
func (b *batchTx) stmt(ctx context.Context, q string) *sql.Stmt {
	if st, ok := b.stmts[q]; ok {
		return st
	}
	b.c.mu.Lock()
	st := b.c.m[q]
	b.c.mu.Unlock()
	switch {
	case st != nil:
		st = b.tx.StmtContext(ctx, st)
	case writerQueries()[q]:
		var err error
		if st, err = b.tx.PrepareContext(ctx, q); err != nil {
			return nil // the unprepared path reports the error
		}
		b.reused[q]++
	default:
		return nil
	}
	b.stmts[q] = st
	return st
}

func (b *batchTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := b.stmt(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return b.tx.ExecContext(ctx, q, args...)
}

func (b *batchTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := b.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return b.tx.QueryContext(ctx, q, args...)
}

func (b *batchTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := b.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return b.tx.QueryRowContext(ctx, q, args...)
}

// flushVersion stores the version counter if the batch used it.
func (b *batchTx) flushVersion(ctx context.Context) error {
	if !b.versionDirty {
		return nil
	}
	_, err := b.ExecContext(ctx, qStoreVersion, b.version)
	return err
}

// isBusy reports whether err is SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// isFull reports whether err is SQLITE_FULL: the disk holding the
// database or its log is full.
func isFull(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL
}

// asFull marks err as store.ErrStorageFull when it is SQLITE_FULL.
func asFull(err error) error {
	if isFull(err) && !errors.Is(err, store.ErrStorageFull) {
		return fmt.Errorf("%w: %w", store.ErrStorageFull, err)
	}
	return err
}

func isUnique(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

func fromNanos(n int64) time.Time { return rowcodec.FromNanos(n) }

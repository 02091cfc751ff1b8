package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

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
	qSetStatus    = `UPDATE objects SET state = ?, message = ? WHERE id = ? AND generation = ?`
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
// parsing a statement of their own size every commit.
var qAuditRows = func() []string {
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
}()

var writerQueries = append([]string{qOrgByName, qObjectByName, qValues, qInsertOrg, qInsertToken, qRevokeToken, qUpdateObject, qUpdateSpec, qDeleteValue, qDeleteValues, qDeleteObject, qLoadVersion, qStoreVersion, qSetStatus, qMarkReady, qDataVersion, qInsertObject, qAppliedObjects, qUpsertValue, qSavepoint, qRollbackTo, qRelease}, qAuditRows...)

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
}

// stmt returns the transaction's copy of a statement prepared at Open, or
// nil for other queries (the writer's only connection is busy with the
// transaction, so nothing can be prepared on the side).
func (b *batchTx) stmt(ctx context.Context, q string) *sql.Stmt {
	if st, ok := b.stmts[q]; ok {
		return st
	}
	b.c.mu.Lock()
	st := b.c.m[q]
	b.c.mu.Unlock()
	if st == nil {
		return nil
	}
	st = b.tx.StmtContext(ctx, st)
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

// sqlTx is one request's view of a batch. dirty records whether it wrote.
type sqlTx struct {
	b       *batchTx
	dirty   bool
	audit   []any // rows of audit records, written with the batch
	over    map[objKey]overlayEntry
	invalid bool
}

func (t *sqlTx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	t.dirty = true
	return t.b.ExecContext(ctx, q, args...)
}

var _ store.Tx = (*sqlTx)(nil)

// isBusy reports whether err is SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

func isUnique(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

func fromNanos(n int64) time.Time { return rowcodec.FromNanos(n) }

func getOrg(ctx context.Context, q querier, name string) (store.Org, error) {
	var o store.Org
	var created int64
	err := q.QueryRowContext(ctx, qOrgByName, name).
		Scan(&o.ID, &o.Name, &o.DefaultRegion, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return o, store.ErrNotFound
	}
	o.CreatedAt = fromNanos(created)
	return o, err
}

const objectCols = `id, org_id, name, kind, region, labels, keys, host, username, version, generation, state, message, created_at, updated_at, managed, apply_set`

type scanner = rowcodec.Scanner

// scanObject reads one object row (the row format both stores share).
func scanObject(sc rowcodec.Scanner) (store.Object, error) { return rowcodec.ScanObject(sc) }

func getObject(ctx context.Context, q querier, orgID int64, name string) (store.Object, error) {
	o, err := scanObject(q.QueryRowContext(ctx, qObjectByName, orgID, name))
	if errors.Is(err, sql.ErrNoRows) {
		return o, store.ErrNotFound
	}
	return o, err
}

func getValues(ctx context.Context, q querier, objectID int64) ([]store.Value, error) {
	return queryAll(ctx, q, func(sc scanner) (store.Value, error) {
		var v store.Value
		err := sc.Scan(&v.Key, &v.Size, &v.Ciphertext)
		return v, err
	}, qValues, objectID)
}

func (t *sqlTx) Org(ctx context.Context, name string) (store.Org, error) {
	return getOrg(ctx, t.b, name)
}

func (t *sqlTx) CreateOrg(ctx context.Context, o store.Org) (store.Org, error) {
	if o.CreatedAt.IsZero() {
		o.CreatedAt = time.Now().UTC()
	}
	res, err := t.exec(ctx, qInsertOrg, o.Name, o.DefaultRegion, o.CreatedAt.UnixNano())
	if isUnique(err) {
		return o, store.ErrExists
	}
	if err != nil {
		return o, err
	}
	o.ID, err = res.LastInsertId()
	return o, err
}

func (t *sqlTx) CreateToken(ctx context.Context, tok store.Token) error {
	if tok.CreatedAt.IsZero() {
		tok.CreatedAt = time.Now().UTC()
	}
	var revoked any
	if tok.RevokedAt != nil {
		revoked = tok.RevokedAt.UnixNano()
	}
	_, err := t.exec(ctx, qInsertToken,
		tok.ID, tok.Hash, tok.OrgID, tok.User, tok.CreatedAt.UnixNano(), revoked)
	if isUnique(err) {
		return store.ErrExists
	}
	return err
}

func (t *sqlTx) RevokeToken(ctx context.Context, id string) error {
	res, err := t.exec(ctx, qRevokeToken, time.Now().UnixNano(), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	_, err = t.exec(ctx, qBumpEpoch)
	return err
}

// Object reads through this request's writes, the batch's writes and the
// writer's cache before the database. The maps of the returned object must
// not be modified.
func (t *sqlTx) Object(ctx context.Context, orgID int64, name string) (store.Object, error) {
	k := objKey{orgID, name}
	lookup := func(over map[objKey]overlayEntry) (store.Object, bool, error) {
		if e, ok := over[k]; ok {
			if e.deleted {
				return store.Object{}, true, store.ErrNotFound
			}
			return e.obj, true, nil
		}
		return store.Object{}, false, nil
	}
	if o, ok, err := lookup(t.over); ok {
		return o, err
	}
	cacheable := !t.invalid && !t.b.invalid
	if !t.invalid {
		if o, ok, err := lookup(t.b.over); ok {
			return o, err
		}
		if cacheable {
			if o, ok := t.b.cache.m[k]; ok {
				return o, nil
			}
		}
	}
	o, err := getObject(ctx, t.b, orgID, name)
	if err == nil && cacheable {
		t.b.cache.put(k, o)
	}
	return o, err
}

func (t *sqlTx) Values(ctx context.Context, objectID int64) ([]store.Value, error) {
	return getValues(ctx, t.b, objectID)
}

func (t *sqlTx) PutObject(ctx context.Context, o store.Object) (int64, error) {
	labels, err := rowcodec.EncodeLabels(o.Labels)
	if err != nil {
		return 0, err
	}
	keys := rowcodec.EncodeKeys(o.Keys)
	if o.ID == 0 {
		res, err := t.exec(ctx, qInsertObject,
			o.OrgID, o.Name, o.Kind, o.Region, labels, keys, o.Host, o.Username, o.Version, o.Generation, o.State, o.Message,
			o.CreatedAt.UnixNano(), o.UpdatedAt.UnixNano(), o.Managed, o.ApplySet)
		if isUnique(err) {
			return 0, store.ErrExists
		}
		if err != nil {
			return 0, err
		}
		if o.ID, err = res.LastInsertId(); err != nil {
			return 0, err
		}
		t.overlay(objKey{o.OrgID, o.Name}, overlayEntry{obj: o})
		return o.ID, nil
	}
	if cur, ok := t.current(objKey{o.OrgID, o.Name}); ok && cur.ID == o.ID && cur.State == o.State && cur.Message == o.Message {
		_, err = t.exec(ctx, qUpdateSpec, labels, keys, o.Host, o.Username, o.Version, o.Generation, o.UpdatedAt.UnixNano(), o.Managed, o.ApplySet, o.ID)
	} else {
		_, err = t.exec(ctx, qUpdateObject,
			labels, keys, o.Host, o.Username, o.Version, o.Generation, o.State, o.Message, o.UpdatedAt.UnixNano(), o.Managed, o.ApplySet, o.ID)
	}
	if err != nil {
		return 0, err
	}
	t.overlay(objKey{o.OrgID, o.Name}, overlayEntry{obj: o})
	return o.ID, nil
}

func (t *sqlTx) PutValues(ctx context.Context, objectID int64, vals []store.Value) error {
	for _, v := range vals {
		if _, err := t.exec(ctx, qUpsertValue,
			objectID, v.Key, v.Size, v.Ciphertext); err != nil {
			return err
		}
	}
	return nil
}

func (t *sqlTx) DeleteValues(ctx context.Context, objectID int64, keys []string) error {
	for _, k := range keys {
		if _, err := t.exec(ctx, qDeleteValue, objectID, k); err != nil {
			return err
		}
	}
	return nil
}

func (t *sqlTx) DeleteObject(ctx context.Context, objectID int64) error {
	if _, err := t.exec(ctx, qDeleteValues, objectID); err != nil {
		return err
	}
	res, err := t.exec(ctx, qDeleteObject, objectID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	if k, ok := t.keyOf(objectID); ok {
		t.overlay(k, overlayEntry{deleted: true})
	} else {
		t.markInvalid()
	}
	return nil
}

// AppliedObjects reads the database inside the batch's transaction, which
// holds every write of this request and the batch before it.
func (t *sqlTx) AppliedObjects(ctx context.Context, orgID int64, applySet string) ([]store.Object, error) {
	return queryAll(ctx, t.b, scanObject, qAppliedObjects, orgID, applySet)
}

func (t *sqlTx) NextVersion(ctx context.Context) (int64, error) {
	if !t.b.versionLoaded {
		if err := t.b.QueryRowContext(ctx, qLoadVersion).Scan(&t.b.version); err != nil {
			return 0, err
		}
		t.b.versionLoaded = true
	}
	t.b.version++
	t.b.versionDirty = true
	return t.b.version, nil
}

func (t *sqlTx) AdvanceVersion(ctx context.Context, v int64) error {
	if !t.b.versionLoaded {
		if err := t.b.QueryRowContext(ctx, qLoadVersion).Scan(&t.b.version); err != nil {
			return err
		}
		t.b.versionLoaded = true
	}
	if v > t.b.version {
		t.b.version = v
		t.b.versionDirty = true
	}
	return nil
}

// Audit queues the record; the batch writes the audit records of its
// successful requests in one statement before it commits.
func (t *sqlTx) Audit(ctx context.Context, r store.AuditRecord) error {
	at, keys, err := rowcodec.AuditColumns(r)
	if err != nil {
		return err
	}
	t.audit = append(t.audit, at, r.Org, r.Actor, r.Action, r.Kind, r.Name, r.Region, keys)
	return nil
}

const auditCols = 8

// flushAudit inserts the queued audit rows with the prepared statements of
// qAuditRows, largest first.
func (b *batchTx) flushAudit(ctx context.Context) error {
	for len(b.audit) > 0 {
		rows := len(b.audit) / auditCols
		i := len(qAuditRows) - 1
		for 1<<i > rows {
			i--
		}
		n := 1 << i
		args := b.audit[:n*auditCols]
		b.audit = b.audit[n*auditCols:]
		if _, err := b.ExecContext(ctx, qAuditRows[i], args...); err != nil {
			return err
		}
	}
	return nil
}

// Read side.

func (s *Store) Org(ctx context.Context, name string) (store.Org, error) {
	return getOrg(ctx, s.rdb(), name)
}

func (s *Store) Orgs(ctx context.Context) ([]store.Org, error) {
	return queryAll(ctx, s.rdb(), func(sc scanner) (store.Org, error) {
		var o store.Org
		var created int64
		err := sc.Scan(&o.ID, &o.Name, &o.DefaultRegion, &created)
		o.CreatedAt = fromNanos(created)
		return o, err
	}, `SELECT id, name, default_region, created_at FROM orgs ORDER BY name`)
}

func scanToken(sc scanner) (store.Token, error) {
	var t store.Token
	var created int64
	var revoked sql.NullInt64
	if err := sc.Scan(&t.ID, &t.Hash, &t.OrgID, &t.OrgName, &t.OrgRegion, &t.User, &created, &revoked); err != nil {
		return t, err
	}
	t.CreatedAt = fromNanos(created)
	if revoked.Valid {
		r := fromNanos(revoked.Int64)
		t.RevokedAt = &r
	}
	return t, nil
}

const tokenSelect = `SELECT t.id, t.hash, t.org_id, o.name, o.default_region, t.user, t.created_at, t.revoked_at FROM tokens t JOIN orgs o ON o.id = t.org_id`

func (s *Store) TokenByHash(ctx context.Context, hash []byte) (store.Token, error) {
	t, err := scanToken(s.rdb().QueryRowContext(ctx, tokenSelect+` WHERE t.hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return t, store.ErrNotFound
	}
	return t, err
}

func (s *Store) Tokens(ctx context.Context, orgID int64) ([]store.Token, error) {
	return queryAll(ctx, s.rdb(), scanToken, tokenSelect+` WHERE t.org_id = ? ORDER BY t.created_at, t.id`, orgID)
}

func (s *Store) Object(ctx context.Context, orgID int64, name string) (store.Object, error) {
	return getObject(ctx, s.rdb(), orgID, name)
}

func (s *Store) Values(ctx context.Context, objectID int64) ([]store.Value, error) {
	return getValues(ctx, s.rdb(), objectID)
}

// listCols are the columns a listing shows.
const listCols = `name, kind, region, labels, keys, host, username, version, state, message, created_at, updated_at, managed, apply_set`

func (s *Store) List(ctx context.Context, q store.ListQuery, fn func(*store.ListItem) (bool, error)) error {
	query := `SELECT ` + listCols + ` FROM objects WHERE org_id = ? AND name > ?`
	args := []any{q.OrgID, q.After}
	if q.Region != "" {
		query += ` AND region = ?`
		args = append(args, q.Region)
	}
	if q.Kind != "" {
		query += ` AND kind = ?`
		args = append(args, q.Kind)
	}
	query += ` ORDER BY name`
	rows, err := s.rdb().QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var it store.ListItem
	for rows.Next() {
		if err := rowcodec.ScanListItem(rows, &it); err != nil {
			return err
		}
		more, err := fn(&it)
		if err != nil || !more {
			return err
		}
	}
	return rows.Err()
}

func (s *Store) Pending(ctx context.Context, region, kind string, limit int) ([]store.Object, error) {
	return queryAll(ctx, s.rdb(), scanObject, `SELECT id, org_id, name, kind, region, '', '', host, username, version, generation, state, message, created_at, updated_at, managed, apply_set
		FROM objects WHERE state = 'pending' AND region = ? AND kind = ? ORDER BY id LIMIT ?`, region, kind, limit)
}

// ClaimPending implements store.Store. The claim columns are not part of
// store.Object, so the writer's object cache stays valid.
func (s *Store) ClaimPending(ctx context.Context, region, kind, holder string, lease time.Duration, limit int) ([]store.Object, error) {
	// Most passes find nothing to claim: look on the read pool first, so
	// that they cost the writer nothing.
	var one int
	err := s.rdb().QueryRowContext(ctx, `SELECT 1 FROM objects WHERE state = 'pending' AND region = ? AND kind = ? AND (claim_until < ? OR claim_gen <> generation) LIMIT 1`,
		region, kind, time.Now().UnixNano()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []store.Object
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		t := tx.(*sqlTx)
		t.dirty = true
		now := time.Now().UnixNano()
		var err error
		out, err = queryAll(ctx, t.b, scanObject, `UPDATE objects SET claimed_by = ?, claim_until = ?, claim_gen = generation
			WHERE id IN (SELECT id FROM objects WHERE state = 'pending' AND region = ? AND kind = ? AND (claim_until < ? OR claim_gen <> generation) ORDER BY id LIMIT ?)
			RETURNING id, org_id, name, kind, region, '', '', host, username, version, generation, state, message, created_at, updated_at, managed, apply_set`,
			holder, now+lease.Nanoseconds(), region, kind, now, limit)
		return err
	})
	slices.SortFunc(out, func(a, b store.Object) int { return cmp.Compare(a.ID, b.ID) })
	return out, err
}

func (s *Store) RenewClaims(ctx context.Context, holder string, ids []int64, lease time.Duration) error {
	if len(ids) == 0 {
		return nil
	}
	return s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		until := time.Now().UnixNano() + lease.Nanoseconds()
		for _, id := range ids {
			if _, err := tx.(*sqlTx).exec(ctx, `UPDATE objects SET claim_until = ? WHERE id = ? AND claimed_by = ? AND state = 'pending'`, until, id, holder); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *Store) Setting(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.rdb().QueryRowContext(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return v, err
}

func (s *Store) InitSetting(ctx context.Context, name string, value []byte) ([]byte, error) {
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.(*sqlTx).exec(ctx, `INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)`, name, value)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.Setting(ctx, name)
}

func (s *Store) SampleValue(ctx context.Context) (store.SampledValue, bool, error) {
	var v store.SampledValue
	err := s.rdb().QueryRowContext(ctx, `SELECT g.name, o.region, o.name, v.key, v.size, v.ciphertext
		FROM secret_values v JOIN objects o ON o.id = v.object_id JOIN orgs g ON g.id = o.org_id LIMIT 1`).
		Scan(&v.Org, &v.Region, &v.Name, &v.Value.Key, &v.Value.Size, &v.Value.Ciphertext)
	if errors.Is(err, sql.ErrNoRows) {
		return v, false, nil
	}
	return v, err == nil, err
}

func (s *Store) TokensEpoch(ctx context.Context) (int64, error) {
	var v int64
	err := s.rdb().QueryRowContext(ctx, `SELECT value FROM counters WHERE name = 'tokens_epoch'`).Scan(&v)
	return v, err
}

func (s *Store) SetStatus(ctx context.Context, updates []store.StatusUpdate) (int, error) {
	applied := 0
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		applied = 0
		for _, u := range updates {
			res, err := tx.(*sqlTx).exec(ctx, qSetStatus, u.State, u.Message, u.ObjectID, u.Generation)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			applied += int(n)
		}
		if applied > 0 {
			tx.(*sqlTx).markInvalid()
		}
		return nil
	})
	return applied, err
}

func (s *Store) MarkPendingReady(ctx context.Context, region, kind string) (int, error) {
	n := 0
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		res, err := tx.(*sqlTx).exec(ctx, qMarkReady, region, kind)
		if err != nil {
			return err
		}
		m, _ := res.RowsAffected()
		n = int(m)
		if n > 0 {
			tx.(*sqlTx).markInvalid()
		}
		return nil
	})
	return n, err
}

func (s *Store) Audit(ctx context.Context, org string, limit int) ([]store.AuditRecord, error) {
	return queryAll(ctx, s.rdb(), func(sc scanner) (store.AuditRecord, error) {
		var r store.AuditRecord
		var at int64
		var keys string
		if err := sc.Scan(&at, &r.Org, &r.Actor, &r.Action, &r.Kind, &r.Name, &r.Region, &keys); err != nil {
			return r, err
		}
		r.At = fromNanos(at)
		return r, json.Unmarshal([]byte(keys), &r.Keys)
	}, `SELECT at, org, actor, action, kind, name, region, keys FROM audit WHERE org = ? ORDER BY id DESC LIMIT ?`, org, limit)
}

package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
	"github.com/jackc/pgx/v5"
)

const objectCols = `id, org_id, name, kind, region, labels, keys, host, username, version, generation, state, message, created_at, updated_at, managed, apply_set`

const (
	qObjectLock   = `SELECT ` + objectCols + ` FROM objects WHERE org_id = $1 AND name = $2 FOR UPDATE`
	qNameLock     = `SELECT pg_advisory_xact_lock(hashtextextended($2, $1))`
	qObject       = `SELECT ` + objectCols + ` FROM objects WHERE org_id = $1 AND name = $2`
	qValues       = `SELECT key, size, ciphertext FROM secret_values WHERE object_id = $1 ORDER BY key`
	qOrgByName    = `SELECT id, name, default_region, created_at FROM orgs WHERE name = $1`
	qInsertOrg    = `INSERT INTO orgs (name, default_region, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id`
	qInsertToken  = `INSERT INTO tokens (id, hash, org_id, "user", created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`
	qRevokeToken  = `UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`
	qBumpEpoch    = `UPDATE counters SET value = value + 1 WHERE name = 'tokens_epoch'`
	qInsertObject = `INSERT INTO objects (org_id, name, kind, region, labels, keys, host, username, version, generation, state, message, created_at, updated_at, managed, apply_set)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT DO NOTHING RETURNING id`
	qUpdateObject = `UPDATE objects SET labels = $1, keys = $2, host = $3, username = $4, version = $5, generation = $6, state = $7, message = $8, updated_at = $9, managed = $10, apply_set = $11 WHERE id = $12`
	// qAppliedObjects locks the rows it returns, as Object does: apply
	// prunes some of them in this transaction.
	qAppliedObjects = `SELECT ` + objectCols + ` FROM objects WHERE org_id = $1 AND apply_set = $2 AND managed ORDER BY name FOR UPDATE`
	qUpsertValue    = `INSERT INTO secret_values (object_id, key, size, ciphertext) VALUES ($1, $2, $3, $4)
		ON CONFLICT (object_id, key) DO UPDATE SET size = excluded.size, ciphertext = excluded.ciphertext`
	qDeleteValues = `DELETE FROM secret_values WHERE object_id = $1 AND key = ANY($2)`
	qDeleteAll    = `DELETE FROM secret_values WHERE object_id = $1`
	// qDeleteHistory deletes an object's versions and their values (no
	// foreign key cascades: migration 0008).
	qDeleteHistory = `WITH d AS (DELETE FROM object_versions WHERE object_id = $1) DELETE FROM object_version_values WHERE object_id = $1`
	qDeleteObject  = `DELETE FROM objects WHERE id = $1`
	qInsertAudit   = `INSERT INTO audit (at, org, actor, action, kind, name, region, keys) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	qAdvance       = `SELECT setval('versions', GREATEST($1::bigint, (SELECT last_value FROM versions)))`
)

// queued is a write whose result nobody reads: it is sent with the next
// statement that needs an answer, or with COMMIT.
type queued struct {
	sql  string
	args []any
}

// pgTx is one Update's transaction. BEGIN is sent lazily with the first
// statement, and queued writes go out in the same round trip as the next
// statement or COMMIT.
type pgTx struct {
	s          *Store
	conn       *pgx.Conn
	began      bool
	sentCommit bool
	queue      []queued
	maxSeen    int64       // highest version read
	b          *batchState // nil unless the transaction is a batch
}

var _ store.Tx = (*pgTx)(nil)

// send sends the queued writes and then stmts (BEGIN first if needed) in one
// round trip, and calls each scan with its statement's result. A nil scan
// only checks for an error.
func (t *pgTx) send(ctx context.Context, stmts []queued, scans []func(pgx.BatchResults) error) error {
	return t.sendw(ctx, false, stmts, scans)
}

// sendw is send; write says that stmts change data. In a batch, the
// current request's first write that reaches the database (one of stmts or
// of its queued writes) is preceded by SAVEPOINT r.
func (t *pgTx) sendw(ctx context.Context, write bool, stmts []queued, scans []func(pgx.BatchResults) error) error {
	cut := len(t.queue)
	if t.b != nil {
		if t.b.optimistic != nil && t.b.failed == nil {
			t.b.failed = errNeedLocks // sends nothing until its commit
		}
		if t.b.failed != nil {
			return t.b.failed
		}
		ctx = t.b.ctx
		if !t.b.savepoint && (write || len(t.queue) > t.b.reqStart) {
			cut = t.b.reqStart
		}
	}
	b := &pgx.Batch{}
	n := 0
	if !t.began {
		b.Queue("BEGIN")
		n++
	}
	for _, q := range t.queue[:cut] {
		b.Queue(q.sql, q.args...)
	}
	if cut < len(t.queue) || (write && t.b != nil && !t.b.savepoint) {
		b.Queue("SAVEPOINT r")
		n++
		t.b.savepoint = true
	}
	for _, q := range t.queue[cut:] {
		b.Queue(q.sql, q.args...)
	}
	for _, q := range stmts {
		b.Queue(q.sql, q.args...)
	}
	queuedWrites := len(t.queue)
	t.queue = t.queue[:0]
	if t.b != nil {
		t.b.reqStart = 0
	}
	t.began = true
	br := t.conn.SendBatch(ctx, b)
	var first error
	for range n + queuedWrites {
		if _, err := br.Exec(); err != nil && first == nil {
			first = err
		}
	}
	for i := range stmts {
		if first != nil {
			break
		}
		if scans[i] == nil {
			if _, err := br.Exec(); err != nil {
				first = err
			}
			continue
		}
		if err := scans[i](br); err != nil {
			first = err
		}
	}
	if err := br.Close(); err != nil && first == nil {
		first = err
	}
	if first != nil && t.b != nil && !isDomain(first) {
		t.b.failed = first
	}
	return wrap(first)
}

// one sends a single statement (after the queue) and scans its result.
func (t *pgTx) one(ctx context.Context, sql string, args []any, scan func(pgx.BatchResults) error) error {
	return t.send(ctx, []queued{{sql, args}}, []func(pgx.BatchResults) error{scan})
}

// onew is one for a statement that changes data.
func (t *pgTx) onew(ctx context.Context, sql string, args []any, scan func(pgx.BatchResults) error) error {
	return t.sendw(ctx, true, []queued{{sql, args}}, []func(pgx.BatchResults) error{scan})
}

func (t *pgTx) enqueue(sql string, args ...any) { t.queue = append(t.queue, queued{sql, args}) }

// commit sends the queued writes with COMMIT.
func (t *pgTx) commit(ctx context.Context) error {
	if !t.began && len(t.queue) == 0 {
		return nil
	}
	t.sentCommit = true
	t.queue = compact(t.queue)
	return t.one(ctx, "COMMIT", nil, nil)
}

func rowsAffected(n *int64) func(pgx.BatchResults) error {
	return func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		*n = tag.RowsAffected()
		return err
	}
}

func fromNanos(n int64) time.Time { return rowcodec.FromNanos(n) }

func scanOrg(row pgx.Row) (store.Org, error) {
	var o store.Org
	var created int64
	err := row.Scan(&o.ID, &o.Name, &o.DefaultRegion, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, store.ErrNotFound
	}
	o.CreatedAt = fromNanos(created)
	return o, err
}

func (t *pgTx) Org(ctx context.Context, name string) (store.Org, error) {
	var o store.Org
	err := t.one(ctx, qOrgByName, []any{name}, func(br pgx.BatchResults) error {
		var err error
		o, err = scanOrg(br.QueryRow())
		return err
	})
	return o, err
}

func (t *pgTx) CreateOrg(ctx context.Context, o store.Org) (store.Org, error) {
	if o.CreatedAt.IsZero() {
		o.CreatedAt = time.Now().UTC()
	}
	err := t.onew(ctx, qInsertOrg, []any{o.Name, o.DefaultRegion, o.CreatedAt.UnixNano()}, func(br pgx.BatchResults) error {
		err := br.QueryRow().Scan(&o.ID)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrExists
		}
		return err
	})
	return o, err
}

func (t *pgTx) CreateToken(ctx context.Context, tok store.Token) error {
	if tok.CreatedAt.IsZero() {
		tok.CreatedAt = time.Now().UTC()
	}
	var revoked *int64
	if tok.RevokedAt != nil {
		r := tok.RevokedAt.UnixNano()
		revoked = &r
	}
	var n int64
	if err := t.onew(ctx, qInsertToken, []any{tok.ID, tok.Hash, tok.OrgID, tok.User, tok.CreatedAt.UnixNano(), revoked}, rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrExists
	}
	return nil
}

func (t *pgTx) RevokeToken(ctx context.Context, id string) error {
	var n int64
	if err := t.onew(ctx, qRevokeToken, []any{time.Now().UnixNano(), id}, rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	t.enqueue(qBumpEpoch)
	return nil
}

// scanObject reads one object row (the row format both stores share).
func scanObject(sc rowcodec.Scanner) (store.Object, error) { return rowcodec.ScanObject(sc) }

// Object reads and locks the row (FOR UPDATE) until the transaction ends. A
// missing object locks its name instead, so that concurrent creators of one
// name run one after the other: the second finds the first's row.
func (t *pgTx) Object(ctx context.Context, orgID int64, name string) (store.Object, error) {
	if t.b != nil {
		k := store.ObjectKey{OrgID: orgID, Name: name}
		if o, ok := t.b.rows[k]; ok {
			t.maxSeen = max(t.maxSeen, o.Version)
			return cloneObject(o), nil
		}
		if t.b.missing[k] {
			return store.Object{}, store.ErrNotFound
		}
	}
	var o store.Object
	found := false
	scan := func(br pgx.BatchResults) error {
		var err error
		o, err = scanObject(br.QueryRow())
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	}
	if err := t.one(ctx, qObjectLock, []any{orgID, name}, scan); err != nil {
		return o, err
	}
	if !found {
		err := t.send(ctx, []queued{{qNameLock, []any{orgID, name}}, {qObjectLock, []any{orgID, name}}},
			[]func(pgx.BatchResults) error{nil, scan})
		if err != nil {
			return o, err
		}
		if !found {
			return store.Object{}, store.ErrNotFound
		}
	}
	t.maxSeen = max(t.maxSeen, o.Version)
	return o, nil
}

func (t *pgTx) Values(ctx context.Context, objectID int64) ([]store.Value, error) {
	var out []store.Value
	err := t.one(ctx, qValues, []any{objectID}, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		out, err = scanValues(rows)
		return err
	})
	return out, err
}

func scanValues(rows pgx.Rows) ([]store.Value, error) {
	defer rows.Close()
	var out []store.Value
	for rows.Next() {
		var v store.Value
		if err := rows.Scan(&v.Key, &v.Size, &v.Ciphertext); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (t *pgTx) PutObject(ctx context.Context, o store.Object) (int64, error) {
	labels, err := rowcodec.EncodeLabels(o.Labels)
	if err != nil {
		return 0, err
	}
	keys := rowcodec.EncodeKeys(o.Keys, o.Digests)
	if o.ID != 0 {
		t.enqueue(qUpdateObject, labels, keys, o.Host, o.Username, o.Version, o.Generation, o.State, o.Message, o.UpdatedAt.UnixNano(), o.Managed, o.ApplySet, o.ID)
		if t.b != nil {
			t.b.remember(o)
		}
		return o.ID, nil
	}
	err = t.onew(ctx, qInsertObject, []any{o.OrgID, o.Name, o.Kind, o.Region, labels, keys, o.Host, o.Username, o.Version, o.Generation, o.State, o.Message,
		o.CreatedAt.UnixNano(), o.UpdatedAt.UnixNano(), o.Managed, o.ApplySet}, func(br pgx.BatchResults) error {
		err := br.QueryRow().Scan(&o.ID)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrExists
		}
		return err
	})
	if err == nil && t.b != nil {
		t.b.remember(o)
	}
	return o.ID, err
}

func (t *pgTx) PutValues(ctx context.Context, objectID int64, vals []store.Value) error {
	for _, v := range vals {
		t.enqueue(qUpsertValue, objectID, v.Key, v.Size, v.Ciphertext)
	}
	return nil
}

func (t *pgTx) DeleteValues(ctx context.Context, objectID int64, keys []string) error {
	if len(keys) > 0 {
		t.enqueue(qDeleteValues, objectID, keys)
	}
	return nil
}

func (t *pgTx) DeleteObject(ctx context.Context, objectID int64) error {
	var n int64
	err := t.sendw(ctx, true, []queued{{qDeleteAll, []any{objectID}}, {qDeleteHistory, []any{objectID}}, {qDeleteObject, []any{objectID}}},
		[]func(pgx.BatchResults) error{nil, nil, rowsAffected(&n)})
	if err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	if t.b != nil {
		t.b.forget(objectID)
	}
	return nil
}

func (t *pgTx) AppliedObjects(ctx context.Context, orgID int64, applySet string) ([]store.Object, error) {
	var out []store.Object
	err := t.one(ctx, qAppliedObjects, []any{orgID, applySet}, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		out, err = scanObjects(rows)
		return err
	})
	for _, o := range out {
		t.maxSeen = max(t.maxSeen, o.Version)
	}
	return out, err
}

func (t *pgTx) NextVersion(ctx context.Context) (int64, error) {
	if t.b != nil {
		if t.b.failed != nil {
			return 0, t.b.failed
		}
		ctx = t.b.ctx
	}
	v, err := t.s.takeVersion(ctx, t.conn, t.maxSeen)
	if err != nil {
		if t.b != nil {
			t.b.failed = err
		}
		return 0, wrap(err)
	}
	t.maxSeen = v
	return v, nil
}

func (t *pgTx) AdvanceVersion(ctx context.Context, v int64) error {
	if err := t.onew(ctx, qAdvance, []any{v}, nil); err != nil {
		return err
	}
	t.s.resetVersions()
	return nil
}

func (t *pgTx) Audit(ctx context.Context, r store.AuditRecord) error {
	at, keys, err := rowcodec.AuditColumns(r)
	if err != nil {
		return err
	}
	t.enqueue(qInsertAudit, at, r.Org, r.Actor, r.Action, r.Kind, r.Name, r.Region, keys)
	return nil
}

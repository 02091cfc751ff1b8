package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// The write transaction (store.Tx) of one request inside a batch.

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
	keys := rowcodec.EncodeKeys(o.Keys, o.Digests)
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
		i := len(qAuditRows()) - 1
		for 1<<i > rows {
			i--
		}
		n := 1 << i
		args := b.audit[:n*auditCols]
		b.audit = b.audit[n*auditCols:]
		if _, err := b.ExecContext(ctx, qAuditRows()[i], args...); err != nil {
			return err
		}
	}
	return nil
}

package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Reads outside a write transaction: organizations, tokens, objects,
// values, lists and the audit log.

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
const listCols = rowcodec.ListCols

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

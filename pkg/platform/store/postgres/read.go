package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
	"github.com/jackc/pgx/v5"
)

func (s *Store) Org(ctx context.Context, name string) (store.Org, error) {
	var o store.Org
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		o, err = scanOrg(s.pool.QueryRow(ctx, qOrgByName, name))
		return err
	})
	return o, err
}

func (s *Store) Orgs(ctx context.Context) ([]store.Org, error) {
	var out []store.Org
	err := s.read(ctx, func(ctx context.Context) error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, `SELECT id, name, default_region, created_at FROM orgs ORDER BY name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			o, err := scanOrg(rows)
			if err != nil {
				return err
			}
			out = append(out, o)
		}
		return rows.Err()
	})
	return out, err
}

const tokenSelect = `SELECT t.id, t.hash, t.org_id, o.name, o.default_region, t."user", t.created_at, t.revoked_at FROM tokens t JOIN orgs o ON o.id = t.org_id`

func scanToken(row pgx.Row) (store.Token, error) {
	var t store.Token
	var created int64
	var revoked *int64
	if err := row.Scan(&t.ID, &t.Hash, &t.OrgID, &t.OrgName, &t.OrgRegion, &t.User, &created, &revoked); err != nil {
		return t, err
	}
	t.CreatedAt = fromNanos(created)
	if revoked != nil {
		r := fromNanos(*revoked)
		t.RevokedAt = &r
	}
	return t, nil
}

func (s *Store) TokenByHash(ctx context.Context, hash []byte) (store.Token, error) {
	var t store.Token
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		t, err = scanToken(s.pool.QueryRow(ctx, tokenSelect+` WHERE t.hash = $1`, hash))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return t, err
}

func (s *Store) Tokens(ctx context.Context, orgID int64) ([]store.Token, error) {
	var out []store.Token
	err := s.read(ctx, func(ctx context.Context) error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, tokenSelect+` WHERE t.org_id = $1 ORDER BY t.created_at, t.id`, orgID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			t, err := scanToken(rows)
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, err
}

func (s *Store) Object(ctx context.Context, orgID int64, name string) (store.Object, error) {
	var o store.Object
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		o, err = scanObject(s.pool.QueryRow(ctx, qObject, orgID, name))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return o, err
}

func (s *Store) Values(ctx context.Context, objectID int64) ([]store.Value, error) {
	var out []store.Value
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, qValues, objectID)
		if err != nil {
			return err
		}
		out, err = scanValues(rows)
		return err
	})
	return out, err
}

const listCols = rowcodec.ListCols

func (s *Store) List(ctx context.Context, q store.ListQuery, fn func(*store.ListItem) (bool, error)) error {
	query := `SELECT ` + listCols + ` FROM objects WHERE org_id = $1 AND name > $2`
	args := []any{q.OrgID, q.After}
	if q.Region != "" {
		args = append(args, q.Region)
		query += fmt.Sprintf(` AND region = $%d`, len(args))
	}
	if q.Kind != "" {
		args = append(args, q.Kind)
		query += fmt.Sprintf(` AND kind = $%d`, len(args))
	}
	query += ` ORDER BY name`
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return wrap(err)
	}
	defer rows.Close()
	var it store.ListItem
	for rows.Next() {
		if err := rowcodec.ScanListItem(rows, &it); err != nil {
			return wrap(err)
		}
		more, err := fn(&it)
		if err != nil || !more {
			return err
		}
	}
	return wrap(rows.Err())
}

const pendingCols = `id, org_id, name, kind, region, '', '', host, username, version, generation, state, message, created_at, updated_at, managed, apply_set`

func scanObjects(rows pgx.Rows) ([]store.Object, error) {
	defer rows.Close()
	var out []store.Object
	for rows.Next() {
		o, err := scanObject(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

func (s *Store) Pending(ctx context.Context, region, kind string, limit int) ([]store.Object, error) {
	var out []store.Object
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, `SELECT `+pendingCols+` FROM objects WHERE state = 'pending' AND region = $1 AND kind = $2 ORDER BY id LIMIT $3`, region, kind, limit)
		if err != nil {
			return err
		}
		out, err = scanObjects(rows)
		return err
	})
	return out, err
}

// MarkPendingReady skips rows other transactions hold (SKIP LOCKED): an
// object being written is pending again after that write anyway, and the
// writer's provisioner looks for it next. So the passes of several replicas
// never wait for each other or for writes, and never deadlock.
func (s *Store) MarkPendingReady(ctx context.Context, region, kind string) (int, error) {
	var n int64
	err := s.read(ctx, func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `WITH c AS (SELECT id FROM objects WHERE state = 'pending' AND region = $1 AND kind = $2 FOR UPDATE SKIP LOCKED)
			UPDATE objects o SET state = 'ready', message = '' FROM c WHERE o.id = c.id`, region, kind)
		n = tag.RowsAffected()
		return err
	})
	return int(n), err
}

// ClaimPending implements store.Store with FOR UPDATE SKIP LOCKED: replicas
// claiming at the same moment get disjoint objects.
func (s *Store) ClaimPending(ctx context.Context, region, kind, holder string, lease time.Duration, limit int) ([]store.Object, error) {
	var out []store.Object
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, `WITH c AS (
				SELECT id FROM objects WHERE state = 'pending' AND region = $1 AND kind = $2
				AND (claim_until < now() OR claim_gen <> generation) ORDER BY id LIMIT $5 FOR UPDATE SKIP LOCKED)
			UPDATE objects o SET claimed_by = $3, claim_until = now() + $4 * interval '1 microsecond', claim_gen = o.generation
			FROM c WHERE o.id = c.id
			RETURNING o.id, o.org_id, o.name, o.kind, o.region, '', '', o.host, o.username, o.version, o.generation, o.state, o.message, o.created_at, o.updated_at, o.managed, o.apply_set`,
			region, kind, holder, lease.Microseconds(), limit)
		if err != nil {
			return err
		}
		out, err = scanObjects(rows)
		return err
	})
	slices.SortFunc(out, func(a, b store.Object) int { return cmp.Compare(a.ID, b.ID) })
	return out, err
}

func (s *Store) RenewClaims(ctx context.Context, holder string, ids []int64, lease time.Duration) error {
	if len(ids) == 0 {
		return nil
	}
	return s.read(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `UPDATE objects SET claim_until = now() + $3 * interval '1 microsecond'
			WHERE id = ANY($2) AND claimed_by = $1 AND state = 'pending'`, holder, ids, lease.Microseconds())
		return err
	})
}

func (s *Store) SetStatus(ctx context.Context, updates []store.StatusUpdate) (int, error) {
	applied := 0
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		applied = 0
		t := tx.(*pgTx)
		stmts := make([]queued, len(updates))
		scans := make([]func(pgx.BatchResults) error, len(updates))
		counts := make([]int64, len(updates))
		for i, u := range updates {
			stmts[i] = queued{`UPDATE objects SET state = $1, message = $2, claim_gen = 0 WHERE id = $3 AND generation = $4`, []any{u.State, u.Message, u.ObjectID, u.Generation}}
			scans[i] = rowsAffected(&counts[i])
		}
		if err := t.sendw(ctx, true, stmts, scans); err != nil {
			return err
		}
		for _, c := range counts {
			applied += int(c)
		}
		return nil
	})
	return applied, err
}

func (s *Store) Audit(ctx context.Context, org string, limit int) ([]store.AuditRecord, error) {
	var out []store.AuditRecord
	err := s.read(ctx, func(ctx context.Context) error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, `SELECT at, org, actor, action, kind, name, region, keys FROM audit WHERE org = $1 ORDER BY id DESC LIMIT $2`, org, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r store.AuditRecord
			var at int64
			var keys string
			if err := rows.Scan(&at, &r.Org, &r.Actor, &r.Action, &r.Kind, &r.Name, &r.Region, &keys); err != nil {
				return err
			}
			r.At = fromNanos(at)
			if err := json.Unmarshal([]byte(keys), &r.Keys); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

func (s *Store) Setting(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.read(ctx, func(ctx context.Context) error {
		err := s.pool.QueryRow(ctx, `SELECT value FROM settings WHERE name = $1`, name).Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			v = nil
			return nil
		}
		return err
	})
	return v, err
}

func (s *Store) InitSetting(ctx context.Context, name string, value []byte) ([]byte, error) {
	if _, err := s.pool.Exec(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, value); err != nil {
		return nil, wrap(err)
	}
	return s.Setting(ctx, name)
}

func (s *Store) SampleValue(ctx context.Context) (store.SampledValue, bool, error) {
	var v store.SampledValue
	ok := false
	err := s.read(ctx, func(ctx context.Context) error {
		err := s.pool.QueryRow(ctx, `SELECT g.name, o.region, o.name, v.key, v.size, v.ciphertext
			FROM secret_values v JOIN objects o ON o.id = v.object_id JOIN orgs g ON g.id = o.org_id LIMIT 1`).
			Scan(&v.Org, &v.Region, &v.Name, &v.Value.Key, &v.Value.Size, &v.Value.Ciphertext)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	return v, ok, err
}

func (s *Store) TokensEpoch(ctx context.Context) (int64, error) {
	var v int64
	err := s.read(ctx, func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, `SELECT value FROM counters WHERE name = 'tokens_epoch'`).Scan(&v)
	})
	return v, err
}

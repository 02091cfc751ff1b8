package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// Sealing keys: an organization's key pairs for sealed values.

const (
	qSealingKeys      = `SELECT org_id, seq, key_id, recipient, identity, created_at, retired_at FROM sealing_keys WHERE org_id = $1 ORDER BY seq`
	qPutSealingKey    = `INSERT INTO sealing_keys (org_id, seq, key_id, recipient, identity, created_at, retired_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`
	qRetireSealingKey = `UPDATE sealing_keys SET retired_at = COALESCE(retired_at, $1) WHERE org_id = $2 AND key_id = $3`
)

func scanSealingKeys(rows pgx.Rows) ([]store.SealingKey, error) {
	defer rows.Close()
	var out []store.SealingKey
	for rows.Next() {
		var k store.SealingKey
		var created int64
		var retired *int64
		if err := rows.Scan(&k.OrgID, &k.Seq, &k.ID, &k.Recipient, &k.Identity, &created, &retired); err != nil {
			return nil, err
		}
		k.CreatedAt = fromNanos(created)
		if retired != nil {
			t := fromNanos(*retired)
			k.RetiredAt = &t
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (s *Store) SealingKeys(ctx context.Context, orgID int64) ([]store.SealingKey, error) {
	var out []store.SealingKey
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, qSealingKeys, orgID)
		if err != nil {
			return err
		}
		out, err = scanSealingKeys(rows)
		return err
	})
	return out, err
}

func (t *pgTx) SealingKeys(ctx context.Context, orgID int64) ([]store.SealingKey, error) {
	var out []store.SealingKey
	err := t.one(ctx, qSealingKeys, []any{orgID}, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		out, err = scanSealingKeys(rows)
		return err
	})
	return out, err
}

func (t *pgTx) PutSealingKey(ctx context.Context, k store.SealingKey) error {
	if k.CreatedAt.IsZero() {
		k.CreatedAt = time.Now().UTC()
	}
	var retired *int64
	if k.RetiredAt != nil {
		r := k.RetiredAt.UnixNano()
		retired = &r
	}
	var n int64
	if err := t.onew(ctx, qPutSealingKey, []any{k.OrgID, k.Seq, k.ID, k.Recipient, k.Identity, k.CreatedAt.UnixNano(), retired}, rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrExists
	}
	return nil
}

func (t *pgTx) RetireSealingKey(ctx context.Context, orgID int64, id string, at time.Time) error {
	var n int64
	if err := t.onew(ctx, qRetireSealingKey, []any{at.UnixNano(), orgID, id}, rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

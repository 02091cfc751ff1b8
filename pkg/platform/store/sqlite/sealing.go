package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// Sealing keys: an organization's key pairs for sealed values.

const (
	qSealingKeys      = `SELECT org_id, seq, key_id, recipient, identity, created_at, retired_at FROM sealing_keys WHERE org_id = ? ORDER BY seq`
	qPutSealingKey    = `INSERT INTO sealing_keys (org_id, seq, key_id, recipient, identity, created_at, retired_at) VALUES (?, ?, ?, ?, ?, ?, ?)`
	qRetireSealingKey = `UPDATE sealing_keys SET retired_at = COALESCE(retired_at, ?) WHERE org_id = ? AND key_id = ?`
)

func scanSealingKey(sc scanner) (store.SealingKey, error) {
	var k store.SealingKey
	var created int64
	var retired sql.NullInt64
	if err := sc.Scan(&k.OrgID, &k.Seq, &k.ID, &k.Recipient, &k.Identity, &created, &retired); err != nil {
		return k, err
	}
	k.CreatedAt = fromNanos(created)
	if retired.Valid {
		t := fromNanos(retired.Int64)
		k.RetiredAt = &t
	}
	return k, nil
}

func (s *Store) SealingKeys(ctx context.Context, orgID int64) ([]store.SealingKey, error) {
	return queryAll(ctx, s.rdb(), scanSealingKey, qSealingKeys, orgID)
}

func (t *sqlTx) SealingKeys(ctx context.Context, orgID int64) ([]store.SealingKey, error) {
	return queryAll(ctx, t.b, scanSealingKey, qSealingKeys, orgID)
}

func (t *sqlTx) PutSealingKey(ctx context.Context, k store.SealingKey) error {
	if k.CreatedAt.IsZero() {
		k.CreatedAt = time.Now().UTC()
	}
	var retired any
	if k.RetiredAt != nil {
		retired = k.RetiredAt.UnixNano()
	}
	_, err := t.exec(ctx, qPutSealingKey, k.OrgID, k.Seq, k.ID, k.Recipient, k.Identity, k.CreatedAt.UnixNano(), retired)
	if isUnique(err) {
		return store.ErrExists
	}
	return err
}

func (t *sqlTx) RetireSealingKey(ctx context.Context, orgID int64, id string, at time.Time) error {
	res, err := t.exec(ctx, qRetireSealingKey, at.UnixNano(), orgID, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return store.ErrNotFound
	}
	return nil
}

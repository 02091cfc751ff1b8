package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Public keys: an organization's keys for the public session API.

const (
	qPublicKeySelect = `SELECT ` + rowcodec.PublicKeyCols + ` FROM public_keys k JOIN orgs o ON o.id = k.org_id`
	qInsertPublicKey = `INSERT INTO public_keys (id, org_id, name, hash, prefix, allowed_origins, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`
	qDeletePublicKey = `UPDATE public_keys SET deleted_at = $1 WHERE org_id = $2 AND id = $3 AND deleted_at IS NULL`
)

func (s *Store) PublicKeyByHash(ctx context.Context, hash []byte) (store.PublicKey, error) {
	var k store.PublicKey
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		k, err = rowcodec.ScanPublicKey(s.pool.QueryRow(ctx, qPublicKeySelect+` WHERE k.hash = $1`, hash))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return k, err
}

func (s *Store) PublicKeySession(ctx context.Context, hash []byte, sessionID string) (store.PublicKey, store.Session, error) {
	var k store.PublicKey
	var ss store.Session
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		k, ss, err = rowcodec.ScanPublicKeySession(s.pool.QueryRow(ctx, qPublicKeySession, sessionID, hash))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return k, ss, err
}

// qPublicKeySession reads a key by its hash and a session of its
// organization by its ID (the unique indexes of both).
const qPublicKeySession = `SELECT ` + rowcodec.PublicKeyCols + `, ` + rowcodec.SessionCols + rowcodec.PublicKeySessionFrom + `$1 WHERE k.hash = $2`

func (s *Store) PublicKeys(ctx context.Context, orgID int64) ([]store.PublicKey, error) {
	var out []store.PublicKey
	err := s.read(ctx, func(ctx context.Context) error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, qPublicKeySelect+` WHERE k.org_id = $1 AND k.deleted_at IS NULL ORDER BY k.created_at, k.id`, orgID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			k, err := rowcodec.ScanPublicKey(rows)
			if err != nil {
				return err
			}
			out = append(out, k)
		}
		return rows.Err()
	})
	return out, err
}

func (t *pgTx) CreatePublicKey(ctx context.Context, k store.PublicKey) error {
	args, err := rowcodec.PublicKeyArgs(k)
	if err != nil {
		return err
	}
	var n int64
	if err := t.onew(ctx, qInsertPublicKey, args, rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrExists
	}
	return nil
}

func (t *pgTx) DeletePublicKey(ctx context.Context, orgID int64, id string, at time.Time) error {
	var n int64
	if err := t.onew(ctx, qDeletePublicKey, []any{at.UnixNano(), orgID, id}, rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

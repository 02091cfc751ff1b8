package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Public keys: an organization's keys for the public session API.

const (
	qPublicKeySelect = `SELECT ` + rowcodec.PublicKeyCols + ` FROM public_keys k JOIN orgs o ON o.id = k.org_id`
	qInsertPublicKey = `INSERT INTO public_keys (id, org_id, name, hash, prefix, allowed_origins, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	qDeletePublicKey = `UPDATE public_keys SET deleted_at = ? WHERE org_id = ? AND id = ? AND deleted_at IS NULL`
)

func scanPublicKey(sc scanner) (store.PublicKey, error) { return rowcodec.ScanPublicKey(sc) }

func (s *Store) PublicKeyByHash(ctx context.Context, hash []byte) (store.PublicKey, error) {
	k, err := scanPublicKey(s.rdb().QueryRowContext(ctx, qPublicKeySelect+` WHERE k.hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return k, store.ErrNotFound
	}
	return k, err
}

func (s *Store) PublicKeySession(ctx context.Context, hash []byte, sessionID string) (store.PublicKey, store.Session, error) {
	// The read of every proxied request: two rows by unique indexes, never
	// waiting on a writer (WAL), so it runs without ctx's cancellation (a
	// cancellable context costs the driver and database/sql a watching
	// goroutine each per query).
	k, ss, err := rowcodec.ScanPublicKeySession(s.rdb().QueryRowContext(context.WithoutCancel(ctx), qPublicKeySession, sessionID, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return k, ss, store.ErrNotFound
	}
	return k, ss, err
}

// qPublicKeySession reads a key by its hash and a session of its
// organization by its ID (the unique indexes of both).
const qPublicKeySession = `SELECT ` + rowcodec.PublicKeyCols + `, ` + rowcodec.SessionCols + rowcodec.PublicKeySessionFrom + `? WHERE k.hash = ?`

func (s *Store) PublicKeys(ctx context.Context, orgID int64) ([]store.PublicKey, error) {
	return queryAll(ctx, s.rdb(), scanPublicKey, qPublicKeySelect+` WHERE k.org_id = ? AND k.deleted_at IS NULL ORDER BY k.created_at, k.id`, orgID)
}

func (t *sqlTx) CreatePublicKey(ctx context.Context, k store.PublicKey) error {
	args, err := rowcodec.PublicKeyArgs(k)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, qInsertPublicKey, args...)
	if isUnique(err) {
		return store.ErrExists
	}
	return err
}

func (t *sqlTx) DeletePublicKey(ctx context.Context, orgID int64, id string, at time.Time) error {
	res, err := t.exec(ctx, qDeletePublicKey, at.UnixNano(), orgID, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return store.ErrNotFound
	}
	return nil
}

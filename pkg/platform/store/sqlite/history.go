package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Secret-set history: the versions of an object's contents.

const (
	qInsertVersion     = `INSERT INTO object_versions (` + rowcodec.VersionCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qCopyVersionValues = `INSERT INTO object_version_values (object_id, version, key, size, ciphertext) SELECT object_id, ?, key, size, ciphertext FROM secret_values WHERE object_id = ?`
	qPurgeVersions     = `DELETE FROM object_versions WHERE object_id = ? AND version <= ? - (SELECT history_limit FROM orgs WHERE id = ?)`
	qVersion           = `SELECT ` + rowcodec.VersionCols + ` FROM object_versions WHERE object_id = ? AND version = ?`
	qVersionValues     = `SELECT key, size, ciphertext FROM object_version_values WHERE object_id = ? AND version = ? ORDER BY key`
	qSetHistoryLimit   = `UPDATE orgs SET history_limit = ? WHERE id = ?`
)

func (t *sqlTx) PutVersion(ctx context.Context, v store.Version) error {
	r, err := rowcodec.VersionColumns(v)
	if err != nil {
		return err
	}
	if _, err := t.exec(ctx, qInsertVersion, v.ObjectID, v.Version, r.At, v.Actor, v.Source,
		r.Added, r.Changed, r.Removed, r.Labels, r.Keys, v.Host, v.Username); err != nil {
		if isUnique(err) {
			return store.ErrExists
		}
		return err
	}
	_, err = t.exec(ctx, qCopyVersionValues, v.Version, v.ObjectID)
	return err
}

func (t *sqlTx) PurgeVersions(ctx context.Context, orgID, objectID, latest int64) error {
	_, err := t.exec(ctx, qPurgeVersions, objectID, latest, orgID)
	return err
}

func (t *sqlTx) Version(ctx context.Context, objectID, version int64) (store.Version, error) {
	v, err := getVersion(ctx, t.b, objectID, version)
	if err != nil {
		return v, err
	}
	v.Values, err = queryAll(ctx, t.b, func(sc scanner) (store.Value, error) {
		var val store.Value
		err := sc.Scan(&val.Key, &val.Size, &val.Ciphertext)
		return val, err
	}, qVersionValues, objectID, version)
	return v, err
}

func (t *sqlTx) SetHistoryLimit(ctx context.Context, orgID int64, limit int) error {
	res, err := t.exec(ctx, qSetHistoryLimit, limit, orgID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return store.ErrNotFound
	}
	return nil
}

func getVersion(ctx context.Context, q querier, objectID, version int64) (store.Version, error) {
	v, err := rowcodec.ScanVersion(q.QueryRowContext(ctx, qVersion, objectID, version))
	if errors.Is(err, sql.ErrNoRows) {
		return v, store.ErrNotFound
	}
	return v, err
}

func (s *Store) Versions(ctx context.Context, objectID, before int64, limit int) ([]store.Version, error) {
	if before <= 0 {
		before = 1 << 62
	}
	return queryAll(ctx, s.rdb(), func(sc scanner) (store.Version, error) { return rowcodec.ScanVersion(sc) },
		`SELECT `+rowcodec.VersionCols+` FROM object_versions WHERE object_id = ? AND version < ? ORDER BY version DESC LIMIT ?`,
		objectID, before, limit)
}

func (s *Store) Version(ctx context.Context, objectID, version int64) (store.Version, error) {
	return getVersion(ctx, s.rdb(), objectID, version)
}

func (s *Store) HistoryLimit(ctx context.Context, orgID int64) (int, error) {
	var n int
	err := s.rdb().QueryRowContext(ctx, `SELECT history_limit FROM orgs WHERE id = ?`, orgID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, store.ErrNotFound
	}
	return n, err
}

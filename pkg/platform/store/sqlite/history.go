package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Secret-set history: the versions of an object's contents. A version
// stores the values its write set and the keys it removed (a row without
// ciphertext) in object_version_values, keyed by the version they start
// at (since); a version's values are, for each key, its newest row from
// that version or before (migration 0016).

const (
	qInsertVersion      = `INSERT INTO object_versions (` + rowcodec.VersionCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qInsertVersionValue = `INSERT INTO object_version_values (object_id, key, since, size, ciphertext) VALUES (?, ?, ?, ?, ?)`
	qPurgeVersions      = `DELETE FROM object_versions WHERE object_id = ? AND version <= ? - (SELECT history_limit FROM orgs WHERE id = ?)`
	// qPurgeVersionValues deletes the value rows of object ?1 (latest
	// version ?2, organization ?3) that no kept version reads: with m the
	// oldest kept version, the rows with a newer row of their key from m
	// or before, and the removals from m or before.
	qPurgeVersionValues = `WITH l(m) AS (SELECT ?2 - history_limit + 1 FROM orgs WHERE id = ?3)
		DELETE FROM object_version_values AS r WHERE object_id = ?1 AND since <= (SELECT m FROM l)
		AND (ciphertext IS NULL OR EXISTS (SELECT 1 FROM object_version_values n WHERE n.object_id = ?1 AND n.key = r.key AND n.since > r.since AND n.since <= (SELECT m FROM l)))`
	qVersion = `SELECT ` + rowcodec.VersionCols + ` FROM object_versions WHERE object_id = ? AND version = ?`
	// qVersionValues reads a version's values: each key's newest row from
	// the version or before (SQLite takes a bare column of an aggregate
	// query with max() from the row that has the maximum), when it has a
	// ciphertext.
	qVersionValues = `SELECT key, size, ciphertext FROM (SELECT key, size, ciphertext, max(since) FROM object_version_values
		WHERE object_id = ? AND since <= ? GROUP BY key) WHERE ciphertext IS NOT NULL ORDER BY key`
	qSetHistoryLimit = `UPDATE orgs SET history_limit = ? WHERE id = ?`
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
	for _, val := range v.Values {
		if _, err := t.exec(ctx, qInsertVersionValue, v.ObjectID, val.Key, v.Version, val.Size, val.Ciphertext); err != nil {
			return err
		}
	}
	for _, k := range v.Removed {
		if _, err := t.exec(ctx, qInsertVersionValue, v.ObjectID, k, v.Version, 0, nil); err != nil {
			return err
		}
	}
	return nil
}

func (t *sqlTx) PurgeVersions(ctx context.Context, orgID, objectID, latest int64) error {
	if _, err := t.exec(ctx, qPurgeVersions, objectID, latest, orgID); err != nil {
		return err
	}
	_, err := t.exec(ctx, qPurgeVersionValues, objectID, latest, orgID)
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

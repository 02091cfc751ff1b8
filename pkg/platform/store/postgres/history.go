package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Secret-set history: the versions of an object's contents. A version
// stores the values its write set and the keys it removed (a row without
// ciphertext) in object_version_values, keyed by the version they start
// at (since); a version's values are, for each key, its newest row from
// that version or before (migration 0010).

const (
	qInsertVersion = `INSERT INTO object_versions (` + rowcodec.VersionCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
	// qPurgeVersions purges the history of one or more writes (arrays of
	// object, latest version and organization): the versions that fell
	// out of the window and the value rows no kept version reads any
	// more. With keep the organization's limit, the oldest kept version
	// is m = latest - keep + 1: a row is no longer read when a newer row
	// of its key starts at m or before, and a removal row is not read when
	// it does. So, for each key, its newest row n from m or before goes if
	// it is a removal, and every older row goes: one range of the primary
	// key (object_id, key, since) per key. (Joining every row of the
	// window's edge instead, each read all the older rows of its key.) It
	// looks at versions from latest - history_limit_max only (migration
	// 0008): rows that started before were purged by an earlier write.
	qPurgeVersions = `WITH p AS (SELECT u.object_id, u.latest - o.history_limit_max AS lo, u.latest - o.history_limit AS hi
			FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS u(object_id, latest, org_id) JOIN orgs o ON o.id = u.org_id),
		d AS (DELETE FROM object_versions v USING p WHERE v.object_id = p.object_id AND v.version >= p.lo AND v.version <= p.hi),
		n AS (SELECT DISTINCT ON (x.object_id, x.key) x.object_id, x.key, x.since FROM p JOIN object_version_values x
			ON x.object_id = p.object_id AND x.since >= p.lo AND x.since <= p.hi + 1 ORDER BY x.object_id, x.key, x.since DESC)
		DELETE FROM object_version_values r USING n
		WHERE r.object_id = n.object_id AND r.key = n.key AND r.since <= n.since AND (r.since < n.since OR r.ciphertext IS NULL)`
	qVersion = `SELECT ` + rowcodec.VersionCols + ` FROM object_versions WHERE object_id = $1 AND version = $2`
	// qVersionValues reads a version's values: each key's newest row from
	// the version or before, when it has a ciphertext.
	qVersionValues = `SELECT key, size, ciphertext FROM (SELECT DISTINCT ON (key) key, size, ciphertext FROM object_version_values
		WHERE object_id = $1 AND since <= $2 ORDER BY key, since DESC) v WHERE ciphertext IS NOT NULL ORDER BY key`
	qSetHistoryLimit = `UPDATE orgs SET history_limit = $1, history_limit_max = GREATEST(history_limit_max, $1) WHERE id = $2`
)

var (
	// versionValueCols are the columns of qInsertVersionValues' arrays.
	versionValueCols = []column{{"object_id", "bigint"}, {"key", "text"}, {"since", "bigint"}, {"size", "int"}, {"ciphertext", "bytea"}}
	// qInsertVersionValues inserts the rows of one or more versions: one
	// array per column of versionValueCols.
	qInsertVersionValues = `INSERT INTO object_version_values (` + names(versionValueCols) + `) SELECT * FROM ` + unnestOf(versionValueCols, 1, "u")
)

func (t *pgTx) PutVersion(ctx context.Context, v store.Version) error {
	r, err := rowcodec.VersionColumns(v)
	if err != nil {
		return err
	}
	t.enqueue(qInsertVersion, v.ObjectID, v.Version, r.At, v.Actor, v.Source, r.Added, r.Changed, r.Removed, r.Labels, r.Keys, v.Host, v.Username)
	n := len(v.Values) + len(v.Removed)
	if n == 0 {
		return nil
	}
	ids, keys, since, sizes, cts := make([]int64, n), make([]string, 0, n), make([]int64, n), make([]int32, n), make([][]byte, n)
	for i := range n {
		ids[i], since[i] = v.ObjectID, v.Version
	}
	for i, val := range v.Values {
		keys = append(keys, val.Key)
		sizes[i], cts[i] = int32(val.Size), val.Ciphertext
	}
	keys = append(keys, v.Removed...) // no ciphertext: removed
	t.enqueue(qInsertVersionValues, ids, keys, since, sizes, cts)
	return nil
}

func (t *pgTx) PurgeVersions(ctx context.Context, orgID, objectID, latest int64) error {
	t.enqueue(qPurgeVersions, []int64{objectID}, []int64{latest}, []int64{orgID})
	return nil
}

func (t *pgTx) Version(ctx context.Context, objectID, version int64) (store.Version, error) {
	var v store.Version
	err := t.send(ctx, []queued{{qVersion, []any{objectID, version}}, {qVersionValues, []any{objectID, version}}},
		[]func(pgx.BatchResults) error{
			func(br pgx.BatchResults) error {
				var err error
				v, err = rowcodec.ScanVersion(br.QueryRow())
				if errors.Is(err, pgx.ErrNoRows) {
					return store.ErrNotFound
				}
				return err
			},
			func(br pgx.BatchResults) error {
				rows, err := br.Query()
				if err != nil {
					return err
				}
				v.Values, err = scanValues(rows)
				return err
			},
		})
	return v, err
}

func (t *pgTx) SetHistoryLimit(ctx context.Context, orgID int64, limit int) error {
	var n int64
	if err := t.onew(ctx, qSetHistoryLimit, []any{limit, orgID}, rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

func (s *Store) Versions(ctx context.Context, objectID, before int64, limit int) ([]store.Version, error) {
	if before <= 0 {
		before = 1 << 62
	}
	var out []store.Version
	err := s.read(ctx, func(ctx context.Context) error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, `SELECT `+rowcodec.VersionCols+` FROM object_versions WHERE object_id = $1 AND version < $2 ORDER BY version DESC LIMIT $3`, objectID, before, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v, err := rowcodec.ScanVersion(rows)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	return out, err
}

func (s *Store) Version(ctx context.Context, objectID, version int64) (store.Version, error) {
	var v store.Version
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		v, err = rowcodec.ScanVersion(s.pool.QueryRow(ctx, qVersion, objectID, version))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return v, err
}

func (s *Store) HistoryLimit(ctx context.Context, orgID int64) (int, error) {
	var n int
	err := s.read(ctx, func(ctx context.Context) error {
		err := s.pool.QueryRow(ctx, `SELECT history_limit FROM orgs WHERE id = $1`, orgID).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return n, err
}

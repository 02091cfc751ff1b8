package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Secret-set history: the versions of an object's contents.

const (
	qInsertVersion     = `INSERT INTO object_versions (` + rowcodec.VersionCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
	qCopyVersionValues = `INSERT INTO object_version_values (object_id, version, key, size, ciphertext) SELECT object_id, $2, key, size, ciphertext FROM secret_values WHERE object_id = $1`
	// qPurgeVersions deletes the versions that fell out of the window and
	// their values (no foreign key links them: migration 0008). It looks at
	// versions from latest - history_limit_max only: older ones cannot
	// exist (see migration 0008), and an index range from the object's
	// first version would cross the dead entries of every version purged
	// since the last vacuum.
	qPurgeVersions = `WITH l AS (SELECT history_limit AS keep, history_limit_max AS widest FROM orgs WHERE id = $3),
		d AS (DELETE FROM object_versions WHERE object_id = $1 AND version >= $2::bigint - (SELECT widest FROM l) AND version <= $2::bigint - (SELECT keep FROM l) RETURNING version)
		DELETE FROM object_version_values v USING d WHERE v.object_id = $1 AND v.version = d.version`
	qVersion         = `SELECT ` + rowcodec.VersionCols + ` FROM object_versions WHERE object_id = $1 AND version = $2`
	qVersionValues   = `SELECT key, size, ciphertext FROM object_version_values WHERE object_id = $1 AND version = $2 ORDER BY key`
	qSetHistoryLimit = `UPDATE orgs SET history_limit = $1, history_limit_max = GREATEST(history_limit_max, $1) WHERE id = $2`
)

func (t *pgTx) PutVersion(ctx context.Context, v store.Version) error {
	r, err := rowcodec.VersionColumns(v)
	if err != nil {
		return err
	}
	t.enqueue(qInsertVersion, v.ObjectID, v.Version, r.At, v.Actor, v.Source, r.Added, r.Changed, r.Removed, r.Labels, r.Keys, v.Host, v.Username)
	t.enqueue(qCopyVersionValues, v.ObjectID, v.Version)
	return nil
}

func (t *pgTx) PurgeVersions(ctx context.Context, orgID, objectID, latest int64) error {
	t.enqueue(qPurgeVersions, objectID, latest, orgID)
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

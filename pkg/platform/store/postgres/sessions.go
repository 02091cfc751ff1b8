package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Sessions: calls, each on one agent (container). The unique index on the
// container is the claim: of the replicas writing a session on one
// container at once, the write that commits first wins and the others,
// having waited for it, write nothing (ErrExists). A session read in a
// transaction is locked until it ends, so that the updates of one session
// from any replica run one after the other.

const (
	qSession     = `SELECT ` + rowcodec.SessionCols + rowcodec.SessionFrom + ` WHERE s.org_id = $1 AND s.id = $2`
	qSessionLock = qSession + ` FOR UPDATE OF s`
	// qInsertSession inserts nothing when the session's ID or container is
	// taken: a unique violation would abort the transaction, which a
	// batch of updates shares.
	qInsertSession  = `INSERT INTO sessions (` + rowcodec.SessionInsertCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING`
	qUpdateSession  = `UPDATE sessions SET container = $1, state = $2, ws_token = $3, started_at = $4, ended_at = $5, end_reason = $6 WHERE org_id = $7 AND id = $8`
	qDeleteSessions = `DELETE FROM sessions WHERE agent_id = $1`
	// The savepoint of UpdateSession: rolled back to when the update
	// failed, then released.
	qSessionSavepoint = `SAVEPOINT session`
	qSessionRelease   = `RELEASE SAVEPOINT session`
	qSessionRollback  = `ROLLBACK TO SAVEPOINT session`
	qAgentSessions    = `SELECT ` + rowcodec.SessionCols + rowcodec.SessionFrom + ` WHERE s.agent_id = $1 ORDER BY s.created_at DESC, s.id DESC LIMIT $2`
	qLiveSessions     = `SELECT ` + rowcodec.SessionCols + rowcodec.SessionFrom + ` WHERE s.region = $1 AND s.state IN ('starting', 'active') ORDER BY s.created_at, s.id`
	qSessionByIDLock  = `SELECT ` + rowcodec.SessionCols + rowcodec.SessionFrom + ` WHERE s.id = $1 FOR UPDATE OF s`
	qLiveSessionCount = `SELECT count(*) FROM sessions WHERE agent_id = $1 AND state IN ('starting', 'active')`
)

func (t *pgTx) CreateSession(ctx context.Context, s store.Session) error {
	var n int64
	if err := t.onew(ctx, qInsertSession, rowcodec.SessionArgs(s), rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrExists
	}
	return nil
}

// UpdateSession runs the update under a savepoint of its own: an update
// naming a container another session holds fails on the unique index
// (UPDATE has no ON CONFLICT), and rolling back to the savepoint leaves
// the rest of the transaction (of a batch, the other updates) as it was.
func (t *pgTx) UpdateSession(ctx context.Context, s store.Session) error {
	var n int64
	err := t.sendw(ctx, true, []queued{{qSessionSavepoint, nil}, {qUpdateSession, rowcodec.SessionUpdateArgs(s)}},
		[]func(pgx.BatchResults) error{nil, func(br pgx.BatchResults) error {
			err := rowsAffected(&n)(br)
			if isUniqueViolation(err) {
				return store.ErrExists
			}
			return err
		}})
	switch {
	case errors.Is(err, store.ErrExists):
		// At once: until then the transaction is aborted, and the
		// server refuses to prepare any other statement.
		if err := t.one(ctx, qSessionRollback, nil, nil); err != nil {
			return err
		}
		t.enqueue(qSessionRelease)
		return store.ErrExists
	case err != nil:
		return err
	}
	t.enqueue(qSessionRelease)
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// Session reads and locks the session's row until the transaction ends.
func (t *pgTx) Session(ctx context.Context, orgID int64, id string) (store.Session, error) {
	return t.lockedSession(ctx, qSessionLock, orgID, id)
}

// SessionByID reads and locks a session of any organization.
func (t *pgTx) SessionByID(ctx context.Context, id string) (store.Session, error) {
	return t.lockedSession(ctx, qSessionByIDLock, id)
}

// lockedSession reads the session query q selects, locked (ErrNotFound).
func (t *pgTx) lockedSession(ctx context.Context, q string, args ...any) (store.Session, error) {
	var s store.Session
	err := t.one(ctx, q, args, func(br pgx.BatchResults) error {
		var err error
		s, err = rowcodec.ScanSession(br.QueryRow())
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return s, err
}

func (s *Store) Session(ctx context.Context, orgID int64, id string) (store.Session, error) {
	var out store.Session
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		out, err = rowcodec.ScanSession(s.pool.QueryRow(ctx, qSession, orgID, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return out, err
}

func (s *Store) Sessions(ctx context.Context, agentID int64, limit int) ([]store.Session, error) {
	return s.querySessions(ctx, qAgentSessions, agentID, limit)
}

func (s *Store) LiveSessions(ctx context.Context, region string) ([]store.Session, error) {
	return s.querySessions(ctx, qLiveSessions, region)
}

func (s *Store) querySessions(ctx context.Context, q string, args ...any) ([]store.Session, error) {
	var out []store.Session
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Session, error) { return rowcodec.ScanSession(row) })
		return err
	})
	return out, err
}

// LiveSessionCount counts in the transaction: a statement of its own, whose
// snapshot (read committed) holds what the agent's lock holders before it
// committed.
func (t *pgTx) LiveSessionCount(ctx context.Context, agentID int64) (int, error) {
	var n int
	err := t.one(ctx, qLiveSessionCount, []any{agentID}, func(br pgx.BatchResults) error {
		return br.QueryRow().Scan(&n)
	})
	return n, err
}

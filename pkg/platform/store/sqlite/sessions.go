package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Sessions: calls, each on one agent (container). The unique index on the
// container is the claim: one writer at a time holds the database, and a
// second session naming a container fails its insert or update, which
// leaves the rest of the transaction as it was.

const (
	qSession        = `SELECT ` + rowcodec.SessionCols + rowcodec.SessionFrom + ` WHERE s.org_id = ? AND s.id = ?`
	qInsertSession  = `INSERT INTO sessions (` + rowcodec.SessionInsertCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qUpdateSession  = `UPDATE sessions SET container = ?, state = ?, ws_token = ?, started_at = ?, ended_at = ?, end_reason = ? WHERE org_id = ? AND id = ?`
	qDeleteSessions = `DELETE FROM sessions WHERE agent_id = ?`
	qAgentSessions  = `SELECT ` + rowcodec.SessionCols + rowcodec.SessionFrom + ` WHERE s.agent_id = ? ORDER BY s.created_at DESC, s.id DESC LIMIT ?`
	// qLiveSessions names the partial index's condition as it is written
	// (sessions_live), so that SQLite uses the index.
	qLiveSessions = `SELECT ` + rowcodec.SessionCols + rowcodec.SessionFrom + ` WHERE s.region = ? AND s.state IN ('starting', 'active') ORDER BY s.created_at, s.id`
)

// sessionQueries are the sessions' statements the writer prepares.
// qSessionByID reads a session of any organization.
const qSessionByID = `SELECT ` + rowcodec.SessionCols + rowcodec.SessionFrom + ` WHERE s.id = ?`

// qLiveSessionCount counts an agent's live sessions.
const qLiveSessionCount = `SELECT count(*) FROM sessions WHERE agent_id = ? AND state IN ('starting', 'active')`

var sessionQueries = []string{qSession, qSessionByID, qInsertSession, qUpdateSession, qDeleteSessions, qLiveSessionCount}

func getSession(ctx context.Context, q querier, orgID int64, id string) (store.Session, error) {
	s, err := rowcodec.ScanSession(q.QueryRowContext(ctx, qSession, orgID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, store.ErrNotFound
	}
	return s, err
}

func (t *sqlTx) CreateSession(ctx context.Context, s store.Session) error {
	_, err := t.exec(ctx, qInsertSession, rowcodec.SessionArgs(s)...)
	if isUnique(err) {
		return store.ErrExists
	}
	return err
}

func (t *sqlTx) UpdateSession(ctx context.Context, s store.Session) error {
	res, err := t.exec(ctx, qUpdateSession, rowcodec.SessionUpdateArgs(s)...)
	if isUnique(err) {
		return store.ErrExists
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return store.ErrNotFound
	}
	return nil
}

func (t *sqlTx) Session(ctx context.Context, orgID int64, id string) (store.Session, error) {
	return getSession(ctx, t.b, orgID, id)
}

func (s *Store) Session(ctx context.Context, orgID int64, id string) (store.Session, error) {
	return getSession(ctx, s.rdb(), orgID, id)
}

func (s *Store) Sessions(ctx context.Context, agentID int64, limit int) ([]store.Session, error) {
	return queryAll(ctx, s.rdb(), rowcodec.ScanSession, qAgentSessions, agentID, limit)
}

func (s *Store) LiveSessions(ctx context.Context, region string) ([]store.Session, error) {
	return queryAll(ctx, s.rdb(), rowcodec.ScanSession, qLiveSessions, region)
}

func (t *sqlTx) SessionByID(ctx context.Context, id string) (store.Session, error) {
	s, err := rowcodec.ScanSession(t.b.QueryRowContext(ctx, qSessionByID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, store.ErrNotFound
	}
	return s, err
}

func (t *sqlTx) LiveSessionCount(ctx context.Context, agentID int64) (int, error) {
	var n int
	err := t.b.QueryRowContext(ctx, qLiveSessionCount, agentID).Scan(&n)
	return n, err
}

package store

import (
	"context"
	"time"
)

// Session is one call: a caller's session on one agent (container) of an
// agent's deployment. A container serves one session, ever: the session
// that names it claims it, exactly once (CreateSession refuses a second
// session on the same container, on every store and across replicas).
type Session struct {
	ID      string // public, random ("ses_…")
	OrgID   int64
	OrgName string // filled by lookups
	AgentID int64
	Agent   string // the agent's name, as when the session started
	Region  string
	// Deployment is the number of the deployment whose agent runs it.
	Deployment int64
	// Container is the engine's ID of the agent (container) it runs on.
	Container string
	// Transport: webrtc, websocket or daily.
	Transport string
	// State: starting, active, ended, failed (resources.Session*).
	State string
	// WSToken is the SHA-256 of the session's one-time websocket token
	// (nil: none, or used).
	WSToken   []byte
	CreatedAt time.Time
	StartedAt *time.Time
	EndedAt   *time.Time
	// EndReason says why it ended (the caller ended it, the agent's
	// session ended, max duration, the agent died: with its last lines,
	// values masked).
	EndReason string
	// MaxSeconds is the longest it may last (0: no bound).
	MaxSeconds int64
}

// PendingContainer is the Container of a session that waits for an agent:
// a placeholder unique to it, replaced when it claims one.
func PendingContainer(sessionID string) string { return "pending/" + sessionID }

// Pending reports whether the session still waits for an agent.
func (s Session) Pending() bool { return s.Container == PendingContainer(s.ID) }

// Live reports whether the session is still starting or active.
func (s Session) Live() bool { return s.State == "starting" || s.State == "active" }

// SessionTx is the sessions' part of a write transaction.
type SessionTx interface {
	// CreateSession inserts s (ErrExists: its ID is taken, or another
	// session ever named its Container).
	CreateSession(ctx context.Context, s Session) error
	// UpdateSession writes s's Container, State, WSToken, StartedAt,
	// EndedAt and EndReason (ErrNotFound: no session s.ID of s.OrgID;
	// ErrExists: another session ever named that Container; a claim runs
	// in a transaction that read the agent first, which serializes the
	// claims of its containers). A session
	// waiting for an agent names a placeholder container (PendingContainer)
	// until it claims one.
	UpdateSession(ctx context.Context, s Session) error
	// Session returns the organization's session id (ErrNotFound).
	Session(ctx context.Context, orgID int64, id string) (Session, error)
	// SessionByID returns session id of any organization (ErrNotFound):
	// what a websocket's one-time token, which names no organization,
	// reaches.
	SessionByID(ctx context.Context, id string) (Session, error)
	// LiveSessionCount returns how many sessions of the agent are starting
	// or active, as this transaction sees them: after AgentTx.Agent, whose
	// lock the sessions' starts take first, the count holds until the
	// transaction ends, also across replicas.
	LiveSessionCount(ctx context.Context, agentID int64) (int, error)
}

// SessionStore is the sessions' part of the store's reads.
type SessionStore interface {
	// Session returns the organization's session id (ErrNotFound).
	Session(ctx context.Context, orgID int64, id string) (Session, error)
	// Sessions returns up to limit sessions of an agent, newest first.
	Sessions(ctx context.Context, agentID int64, limit int) ([]Session, error)
	// LiveSessions returns the sessions of a region that are starting or
	// active, of every organization, OrgName filled: which containers
	// are in a session (the controller leaves them running).
	LiveSessions(ctx context.Context, region string) ([]Session, error)
}

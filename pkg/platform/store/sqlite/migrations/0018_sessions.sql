-- Sessions: one call each, on one agent (container) of an agent's
-- deployment. agent is the agent's name as when the session started;
-- deployment the number of the deployment whose container runs it. A
-- container serves one session, ever: the unique index on container is
-- the claim, taken exactly once by every process sharing the database. A
-- session waiting for an agent names a placeholder of its own
-- (pending/<id>) until an update claims a container.
-- ws_token is the SHA-256 of the session's one-time websocket token (NULL:
-- none, or used). Times are Unix nanoseconds; max_seconds 0 is no bound.
-- DeleteAgent deletes an agent's sessions itself (no cascade, as on
-- PostgreSQL).
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    org_id      INTEGER NOT NULL REFERENCES orgs(id),
    agent_id    INTEGER NOT NULL,
    agent       TEXT NOT NULL,
    region      TEXT NOT NULL,
    deployment  INTEGER NOT NULL,
    container   TEXT NOT NULL UNIQUE,
    transport   TEXT NOT NULL,
    state       TEXT NOT NULL,
    ws_token    BLOB,
    created_at  INTEGER NOT NULL,
    started_at  INTEGER,
    ended_at    INTEGER,
    end_reason  TEXT NOT NULL DEFAULT '',
    max_seconds INTEGER NOT NULL DEFAULT 0
);

-- An agent's sessions, newest first (store.SessionStore.Sessions).
CREATE INDEX sessions_agent ON sessions (agent_id, created_at, id);

-- A region's live sessions (store.SessionStore.LiveSessions).
CREATE INDEX sessions_live ON sessions (region) WHERE state IN ('starting', 'active');

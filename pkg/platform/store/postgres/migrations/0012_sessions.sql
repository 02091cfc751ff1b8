-- Sessions (see the SQLite store's 0018_sessions.sql). The unique index on
-- container is the claim of a container, taken exactly once across
-- replicas. No foreign key to the agent (as deployments): DeleteAgent
-- deletes an agent's sessions in the same transaction.
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    org_id      BIGINT NOT NULL REFERENCES orgs(id),
    agent_id    BIGINT NOT NULL,
    agent       TEXT NOT NULL,
    region      TEXT NOT NULL,
    deployment  BIGINT NOT NULL,
    container   TEXT NOT NULL UNIQUE,
    transport   TEXT NOT NULL,
    state       TEXT NOT NULL,
    ws_token    BYTEA,
    created_at  BIGINT NOT NULL,
    started_at  BIGINT,
    ended_at    BIGINT,
    end_reason  TEXT NOT NULL DEFAULT '',
    max_seconds BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX sessions_agent ON sessions (agent_id, created_at, id);

CREATE INDEX sessions_live ON sessions (region) WHERE state IN ('starting', 'active');

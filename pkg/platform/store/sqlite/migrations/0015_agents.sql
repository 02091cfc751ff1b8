-- Agents (docs/deploy.md): an organization's agents, in a namespace of their own
-- (an Agent and a SecretSet may share a name). spec is the agent's spec as
-- JSON, opaque to the store; serving and latest are the numbers of the
-- serving and the newest deployment (0: none).
CREATE TABLE agents (
    id         INTEGER PRIMARY KEY,
    org_id     INTEGER NOT NULL REFERENCES orgs(id),
    name       TEXT NOT NULL,
    region     TEXT NOT NULL,
    labels     TEXT NOT NULL DEFAULT '', -- as objects.labels
    spec       TEXT NOT NULL,
    version    INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    serving    INTEGER NOT NULL DEFAULT 0,
    latest     INTEGER NOT NULL DEFAULT 0,
    managed    INTEGER NOT NULL DEFAULT 0,
    apply_set  TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (org_id, name)
);

-- What a region's reconciler reads (store.AgentStore.RegionAgents).
CREATE INDEX agents_region ON agents (region);

-- An agent's deployments, numbered 1, 2, ... per agent: immutable but for
-- result, message and finished_at. DeleteAgent deletes them itself (no
-- cascade, as on PostgreSQL).
CREATE TABLE deployments (
    agent_id           INTEGER NOT NULL,
    number             INTEGER NOT NULL,
    at                 INTEGER NOT NULL,
    actor              TEXT NOT NULL,
    source             TEXT NOT NULL,
    rollback_of        INTEGER NOT NULL DEFAULT 0,
    image              TEXT NOT NULL,
    image_digest       TEXT NOT NULL,
    image_pull_secret  TEXT NOT NULL DEFAULT '',
    secret_set         TEXT NOT NULL DEFAULT '',
    secret_set_version INTEGER NOT NULL DEFAULT 0,
    profile            TEXT NOT NULL DEFAULT '',
    result             TEXT NOT NULL,
    message            TEXT NOT NULL DEFAULT '',
    finished_at        INTEGER,
    PRIMARY KEY (agent_id, number)
) WITHOUT ROWID;

-- Leases (store.AgentStore.AcquireLease): who holds name until when (Unix
-- nanoseconds on the clock of the machine that holds the database file:
-- every process sharing a SQLite file runs on it).
CREATE TABLE leases (
    name    TEXT PRIMARY KEY,
    holder  TEXT NOT NULL,
    expires INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE orgs (
    id             INTEGER PRIMARY KEY,
    name           TEXT NOT NULL UNIQUE,
    default_region TEXT NOT NULL,
    created_at     INTEGER NOT NULL
);

CREATE TABLE tokens (
    id         TEXT PRIMARY KEY,
    hash       BLOB NOT NULL UNIQUE,
    org_id     INTEGER NOT NULL REFERENCES orgs(id),
    user       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);

CREATE TABLE objects (
    id         INTEGER PRIMARY KEY,
    org_id     INTEGER NOT NULL REFERENCES orgs(id),
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    region     TEXT NOT NULL,
    labels     TEXT NOT NULL DEFAULT '', -- k=v,k=v (sorted), or JSON
    keys       TEXT NOT NULL DEFAULT '', -- KEY:size,KEY:size (sorted)
    host       TEXT NOT NULL DEFAULT '',
    username   TEXT NOT NULL DEFAULT '',
    version    INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    state      TEXT NOT NULL,
    message    TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (org_id, name)
);

CREATE INDEX objects_pending ON objects (region, id) WHERE state = 'pending';

CREATE TABLE secret_values (
    object_id  INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    size       INTEGER NOT NULL,
    ciphertext BLOB NOT NULL,
    PRIMARY KEY (object_id, key)
) WITHOUT ROWID;

CREATE TABLE audit (
    id     INTEGER PRIMARY KEY,
    at     INTEGER NOT NULL,
    org    TEXT NOT NULL,
    actor  TEXT NOT NULL,
    action TEXT NOT NULL,
    kind   TEXT NOT NULL DEFAULT '',
    name   TEXT NOT NULL DEFAULT '',
    region TEXT NOT NULL DEFAULT '',
    keys   TEXT NOT NULL DEFAULT '[]'
);

CREATE INDEX audit_org ON audit (org, id);

CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);

INSERT INTO counters (name, value) VALUES ('version', 0);

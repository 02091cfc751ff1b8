-- Secret-set history (see the SQLite store's 0013_history.sql).
CREATE TABLE object_versions (
    object_id  BIGINT NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
    version    BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    actor      TEXT NOT NULL,
    source     TEXT NOT NULL,
    added      TEXT NOT NULL DEFAULT '[]',
    changed    TEXT NOT NULL DEFAULT '[]',
    removed    TEXT NOT NULL DEFAULT '[]',
    labels     TEXT NOT NULL DEFAULT '',
    keys       TEXT NOT NULL DEFAULT '',
    host       TEXT NOT NULL DEFAULT '',
    username   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (object_id, version)
);

CREATE TABLE object_version_values (
    object_id  BIGINT NOT NULL,
    version    BIGINT NOT NULL,
    key        TEXT COLLATE "C" NOT NULL,
    size       INTEGER NOT NULL,
    ciphertext BYTEA NOT NULL,
    PRIMARY KEY (object_id, version, key),
    FOREIGN KEY (object_id, version) REFERENCES object_versions (object_id, version) ON DELETE CASCADE
);

ALTER TABLE orgs ADD COLUMN history_limit INTEGER NOT NULL DEFAULT 10;

UPDATE objects SET generation = 1;
INSERT INTO object_versions (object_id, version, created_at, actor, source, labels, keys, host, username)
    SELECT id, 1, updated_at, 'botkit-platform', 'migration', labels, keys, host, username FROM objects;
INSERT INTO object_version_values (object_id, version, key, size, ciphertext)
    SELECT object_id, 1, key, size, ciphertext FROM secret_values;

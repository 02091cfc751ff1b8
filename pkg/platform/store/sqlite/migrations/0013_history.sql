-- Secret-set history: every write of an object's contents is a version
-- (the object's generation after the write), kept with its key names and
-- its values (encrypted, as the current ones are), so that nothing a user
-- overwrites is lost. A delete removes the history with the object.
CREATE TABLE object_versions (
    object_id  INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    actor      TEXT NOT NULL,
    source     TEXT NOT NULL,
    added      TEXT NOT NULL DEFAULT '[]', -- key names, JSON
    changed    TEXT NOT NULL DEFAULT '[]',
    removed    TEXT NOT NULL DEFAULT '[]',
    labels     TEXT NOT NULL DEFAULT '',
    keys       TEXT NOT NULL DEFAULT '',   -- KEY:size,... as objects.keys
    host       TEXT NOT NULL DEFAULT '',
    username   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (object_id, version)
) WITHOUT ROWID;

CREATE TABLE object_version_values (
    object_id  INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    key        TEXT NOT NULL,
    size       INTEGER NOT NULL,
    ciphertext BLOB NOT NULL,
    PRIMARY KEY (object_id, version, key),
    FOREIGN KEY (object_id, version) REFERENCES object_versions (object_id, version) ON DELETE CASCADE
) WITHOUT ROWID;

-- How many versions an object keeps (botkit-platform orgs set --history-limit).
ALTER TABLE orgs ADD COLUMN history_limit INTEGER NOT NULL DEFAULT 10;

-- Existing objects start their history at version 1, their current contents.
UPDATE objects SET generation = 1;
INSERT INTO object_versions (object_id, version, created_at, actor, source, labels, keys, host, username)
    SELECT id, 1, updated_at, 'botkit-platform', 'migration', labels, keys, host, username FROM objects;
INSERT INTO object_version_values (object_id, version, key, size, ciphertext)
    SELECT object_id, 1, key, size, ciphertext FROM secret_values;

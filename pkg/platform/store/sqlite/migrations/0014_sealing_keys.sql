-- Sealing keys: every organization's age X25519 key pairs for sealed values
-- (values in git that only the platform decrypts). The private part is
-- encrypted under the master key, as values are. seq orders an
-- organization's keys: the newest one not retired is current.
CREATE TABLE sealing_keys (
    org_id     INTEGER NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    key_id     TEXT NOT NULL,
    recipient  TEXT NOT NULL,
    identity   BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    retired_at INTEGER,
    PRIMARY KEY (org_id, seq),
    UNIQUE (org_id, key_id)
) WITHOUT ROWID;

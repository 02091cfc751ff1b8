-- Sealing keys (see the SQLite store's 0014_sealing_keys.sql).
CREATE TABLE sealing_keys (
    org_id     BIGINT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    key_id     TEXT NOT NULL,
    recipient  TEXT NOT NULL,
    identity   BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    retired_at BIGINT,
    PRIMARY KEY (org_id, seq),
    UNIQUE (org_id, key_id)
);

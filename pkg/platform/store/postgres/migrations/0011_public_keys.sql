-- Public keys (see the SQLite store's 0017_public_keys.sql).
CREATE TABLE public_keys (
    id              TEXT PRIMARY KEY,
    org_id          BIGINT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name            TEXT NOT NULL DEFAULT '',
    hash            BYTEA NOT NULL UNIQUE,
    prefix          TEXT NOT NULL,
    allowed_origins TEXT NOT NULL DEFAULT '[]',
    created_at      BIGINT NOT NULL,
    created_by      TEXT NOT NULL,
    deleted_at      BIGINT
);
CREATE INDEX public_keys_org ON public_keys (org_id, created_at);

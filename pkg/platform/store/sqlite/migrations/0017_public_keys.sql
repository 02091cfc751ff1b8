-- Public keys (pk_…): an organization's keys for the public session API.
-- Only the SHA-256 of a key is kept (hash), with its first characters
-- (prefix) to tell keys apart. allowed_origins is a JSON array of the
-- origins browsers may call with the key. A deleted key keeps its row
-- (deleted_at set) and authenticates nothing.
CREATE TABLE public_keys (
    id              TEXT PRIMARY KEY,
    org_id          INTEGER NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name            TEXT NOT NULL DEFAULT '',
    hash            BLOB NOT NULL UNIQUE,
    prefix          TEXT NOT NULL,
    allowed_origins TEXT NOT NULL DEFAULT '[]',
    created_at      INTEGER NOT NULL,
    created_by      TEXT NOT NULL,
    deleted_at      INTEGER
);
CREATE INDEX public_keys_org ON public_keys (org_id, created_at);

-- Platform settings (store.Store.Setting): the master key check among them.
CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);

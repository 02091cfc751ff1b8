-- A deployment pins its secret set's identity with its version: the set's
-- creation time (Unix nanoseconds). A set deleted and created again under
-- the same name is another set, whose version 1 is not the one pinned.
-- 0: none pinned (no set, or a deployment recorded before this column).
ALTER TABLE deployments ADD COLUMN secret_set_created INTEGER NOT NULL DEFAULT 0;

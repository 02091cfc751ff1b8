-- A deployment pins its secret set's identity (see the SQLite store's
-- 0019_deployment_set_identity.sql).
ALTER TABLE deployments ADD COLUMN secret_set_created BIGINT NOT NULL DEFAULT 0;

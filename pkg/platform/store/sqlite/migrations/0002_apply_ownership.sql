-- Who last wrote an object: apply (managed = 1, under apply_set) or an
-- imperative write (managed = 0). Prune only ever deletes managed objects.
ALTER TABLE objects ADD COLUMN managed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE objects ADD COLUMN apply_set TEXT NOT NULL DEFAULT '';

CREATE INDEX objects_applied ON objects (org_id, apply_set, name) WHERE managed = 1;

-- Who last wrote an object: apply (managed, under apply_set) or an
-- imperative write (not managed). Prune only ever deletes managed objects.
ALTER TABLE objects ADD COLUMN managed BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE objects ADD COLUMN apply_set TEXT NOT NULL DEFAULT '';

CREATE INDEX objects_applied ON objects (org_id, apply_set, name) WHERE managed;

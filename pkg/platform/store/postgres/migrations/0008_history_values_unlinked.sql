-- History without foreign-key triggers: the purge deletes a
-- version's values itself, in the same statement as its header, and
-- DeleteObject deletes an object's versions and their values with its
-- values. The constraints' triggers (a key-share lock on the object row
-- for every version and on the header for every copied value, a cascading
-- DELETE per purged version) were a large part of a merge's database work.
ALTER TABLE object_version_values DROP CONSTRAINT object_version_values_object_id_version_fkey;
ALTER TABLE object_versions DROP CONSTRAINT object_versions_object_id_fkey;

-- The widest history limit an organization has had: the purge deletes the
-- versions between latest - history_limit_max and latest - history_limit
-- (an index range of one version while the limit has not been lowered)
-- instead of every version up to latest - history_limit, whose index range
-- starts at the object's first version and crosses the entries of every
-- version purged since the last vacuum. The versions an object keeps are
-- its latest ones without gap, never more than the widest limit, so
-- nothing older than the window can remain. Existing data may keep more
-- (a limit lowered before its object's next write): the start value covers
-- it.
ALTER TABLE orgs ADD COLUMN history_limit_max INTEGER NOT NULL DEFAULT 10;
UPDATE orgs o SET history_limit_max = GREATEST(o.history_limit, COALESCE(
    (SELECT max(ob.generation - v.version + 1) FROM object_versions v JOIN objects ob ON ob.id = v.object_id WHERE ob.org_id = o.id), 0));

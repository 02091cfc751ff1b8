-- History stores what each write changed: a value row is a
-- key's value from version `since` on, until the next row of that key (a
-- later value, or a removal: a row without ciphertext). Version V's values
-- are, for each key, its newest row with since <= V when that row has a
-- ciphertext. A write inserts rows for the keys it set or removed only,
-- instead of a copy of every value of the object; the purge deletes the
-- rows that no kept version reads any more. An object's rows go with it.
CREATE TABLE object_version_deltas (
    object_id  INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    since      INTEGER NOT NULL,
    size       INTEGER NOT NULL,
    ciphertext BLOB, -- NULL: the key was removed at version since
    PRIMARY KEY (object_id, key, since)
) WITHOUT ROWID;

-- Each version's values that differ from the version before it (all of
-- them for an object's oldest kept version)...
WITH h AS (SELECT object_id, version, lag(version) OVER (PARTITION BY object_id ORDER BY version) AS prev FROM object_versions)
INSERT INTO object_version_deltas (object_id, key, since, size, ciphertext)
SELECT v.object_id, v.key, v.version, v.size, v.ciphertext
FROM object_version_values v JOIN h ON h.object_id = v.object_id AND h.version = v.version
WHERE h.prev IS NULL OR NOT EXISTS (SELECT 1 FROM object_version_values p
    WHERE p.object_id = v.object_id AND p.version = h.prev AND p.key = v.key AND p.size = v.size AND p.ciphertext = v.ciphertext);

-- ...the keys each version removed...
WITH h AS (SELECT object_id, version, lag(version) OVER (PARTITION BY object_id ORDER BY version) AS prev FROM object_versions)
INSERT INTO object_version_deltas (object_id, key, since, size, ciphertext)
SELECT p.object_id, p.key, h.version, 0, NULL
FROM h JOIN object_version_values p ON p.object_id = h.object_id AND p.version = h.prev
WHERE NOT EXISTS (SELECT 1 FROM object_version_values v WHERE v.object_id = h.object_id AND v.version = h.version AND v.key = p.key);

-- ...and the values of objects that have no version: their current
-- values from their current generation on, which the versions of their
-- next writes build on.
INSERT INTO object_version_deltas (object_id, key, since, size, ciphertext)
SELECT s.object_id, s.key, o.generation, s.size, s.ciphertext
FROM secret_values s JOIN objects o ON o.id = s.object_id
WHERE NOT EXISTS (SELECT 1 FROM object_versions v WHERE v.object_id = o.id);

DROP TABLE object_version_values;
ALTER TABLE object_version_deltas RENAME TO object_version_values;

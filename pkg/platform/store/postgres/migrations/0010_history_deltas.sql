-- History stores what each write changed: a value row is a
-- key's value from version `since` on, until the next row of that key (a
-- later value, or a removal: a row without ciphertext). Version V's values
-- are, for each key, its newest row with since <= V when that row has a
-- ciphertext. A write inserts rows for the keys it set or removed only,
-- instead of a copy of every value of the object; the purge deletes the
-- rows that no kept version reads any more (see the SQLite store's
-- 0016_history_deltas.sql, which is the same conversion).
ALTER TABLE object_version_values RENAME TO object_version_values_full;
ALTER TABLE object_version_values_full RENAME CONSTRAINT object_version_values_pkey TO object_version_values_full_pkey;

CREATE TABLE object_version_values (
    object_id  BIGINT NOT NULL,
    key        TEXT COLLATE "C" NOT NULL,
    since      BIGINT NOT NULL,
    size       INTEGER NOT NULL,
    ciphertext BYTEA, -- NULL: the key was removed at version since
    PRIMARY KEY (object_id, key, since)
);

-- Each version's values that differ from the version before it (all of
-- them for an object's oldest kept version)...
WITH h AS (SELECT object_id, version, lag(version) OVER (PARTITION BY object_id ORDER BY version) AS prev FROM object_versions)
INSERT INTO object_version_values (object_id, key, since, size, ciphertext)
SELECT v.object_id, v.key, v.version, v.size, v.ciphertext
FROM object_version_values_full v JOIN h ON h.object_id = v.object_id AND h.version = v.version
WHERE h.prev IS NULL OR NOT EXISTS (SELECT 1 FROM object_version_values_full p
    WHERE p.object_id = v.object_id AND p.version = h.prev AND p.key = v.key AND p.size = v.size AND p.ciphertext = v.ciphertext);

-- ...the keys each version removed...
WITH h AS (SELECT object_id, version, lag(version) OVER (PARTITION BY object_id ORDER BY version) AS prev FROM object_versions)
INSERT INTO object_version_values (object_id, key, since, size, ciphertext)
SELECT p.object_id, p.key, h.version, 0, NULL
FROM h JOIN object_version_values_full p ON p.object_id = h.object_id AND p.version = h.prev
WHERE NOT EXISTS (SELECT 1 FROM object_version_values_full v WHERE v.object_id = h.object_id AND v.version = h.version AND v.key = p.key);

-- ...and the values of objects that have no version (imported by an
-- older `botkit-platform migrate`): their current values from their
-- current generation on, which the versions of their next writes build on.
INSERT INTO object_version_values (object_id, key, since, size, ciphertext)
SELECT s.object_id, s.key, o.generation, s.size, s.ciphertext
FROM secret_values s JOIN objects o ON o.id = s.object_id
WHERE NOT EXISTS (SELECT 1 FROM object_versions v WHERE v.object_id = o.id);

DROP TABLE object_version_values_full;

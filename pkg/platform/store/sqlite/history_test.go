package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/storetest"
)

// A database written before history existed gets it at its next open:
// each object's current contents become its version 1, values and all.
func TestHistoryMigrationStartsAtVersionOne(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "platform.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var objID int64
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err := tx.CreateOrg(ctx, store.Org{Name: "acme", DefaultRegion: "us-west"})
		if err != nil {
			return err
		}
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		objID, err = tx.PutObject(ctx, store.Object{OrgID: org.ID, Name: "bot", Kind: "SecretSet", Region: "us-west",
			Keys: map[string]int{"A": 1, "B": 2}, Version: v, Generation: 7, State: "ready"})
		if err != nil {
			return err
		}
		return tx.PutValues(ctx, objID, []store.Value{{Key: "A", Size: 1, Ciphertext: []byte("ct-a")}, {Key: "B", Size: 2, Ciphertext: []byte("ct-b")}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Back to the schema before history: no history tables, no limit, the
	// migrations not applied (13, then 16 converts its versions).
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE object_version_values`, `DROP TABLE object_versions`, `ALTER TABLE orgs DROP COLUMN history_limit`,
		`DELETE FROM schema_migrations WHERE version IN (13, 16)`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	vs, err := s.Versions(ctx, objID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Version != 1 || vs[0].Source != "migration" || len(vs[0].Keys) != 2 {
		t.Fatalf("history after the migration: %+v, want version 1 with keys A and B", vs)
	}
	var got []store.Value
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		v, err := tx.Version(ctx, objID, 1)
		got = v.Values
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, []store.Value{{Key: "A", Size: 1, Ciphertext: []byte("ct-a")}, {Key: "B", Size: 2, Ciphertext: []byte("ct-b")}},
		func(a, b store.Value) bool {
			return a.Key == b.Key && a.Size == b.Size && string(a.Ciphertext) == string(b.Ciphertext)
		}) {
		t.Errorf("version 1 values %+v", got)
	}
	o, err := s.Object(ctx, 1, "bot")
	if err != nil || o.Generation != 1 {
		t.Errorf("object generation %d (%v), want 1", o.Generation, err)
	}
	if n, err := s.HistoryLimit(ctx, 1); err != nil || n != 10 {
		t.Errorf("history limit %d (%v), want the default 10", n, err)
	}
}

// The purge deletes the values no kept version reads from the database:
// a value overwritten and a key removed before the oldest kept version
// leave no row, and their ciphertexts are nowhere in the history table.
func TestHistoryPurgeDeletesValues(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "platform.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var orgID int64
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err := tx.CreateOrg(ctx, store.Org{Name: "acme", DefaultRegion: "us-west"})
		orgID = org.ID
		if err != nil {
			return err
		}
		return tx.SetHistoryLimit(ctx, org.ID, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	storetest.WriteDelta(t, s, orgID, "bot", storetest.DeltaWrite{Set: map[string]string{"A": "canary-old-a", "B": "canary-b"}})
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := raw.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM object_version_values WHERE CAST(ciphertext AS TEXT) IN ('canary-old-a', 'canary-b')`); n != 2 {
		t.Fatalf("%d history rows of version 1's values, want 2", n)
	}
	storetest.WriteDelta(t, s, orgID, "bot", storetest.DeltaWrite{Set: map[string]string{"A": "a2"}, Removed: []string{"B"}})
	if n := count(`SELECT count(*) FROM object_version_values WHERE CAST(ciphertext AS TEXT) LIKE '%canary%'`); n != 0 {
		t.Errorf("%d purged values still in the history table", n)
	}
	if n := count(`SELECT count(*) FROM object_version_values`); n != 1 {
		t.Errorf("%d history rows, want 1 (A of version 2; the removal of B is read by no kept version)", n)
	}
}

// A database whose versions are full copies (before migration 0016)
// migrates to value rows from the version they start at, and every kept
// version reads the same values: a key removed and added again, an
// overwritten value, an object without history (an older migrate); the
// next writes build on the migrated rows.
func TestHistoryMigrationOfFullCopies(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "platform.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var orgID, impID int64
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err := tx.CreateOrg(ctx, store.Org{Name: "acme", DefaultRegion: "us-west"})
		orgID = org.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Headers of versions 1 to 4 (1 is purged below) and the current
	// values: A=a2, B=b4.
	var bot store.Object
	for _, w := range []storetest.DeltaWrite{
		{Set: map[string]string{"A": "a1", "B": "b1"}},
		{Set: map[string]string{"A": "a2"}},
		{Removed: []string{"B"}},
		{Set: map[string]string{"B": "b4"}},
	} {
		bot = storetest.WriteDelta(t, s, orgID, "bot", w)
	}
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		impID, err = tx.PutObject(ctx, store.Object{OrgID: orgID, Name: "imported", Kind: "SecretSet", Region: "us-west",
			Keys: map[string]int{"X": 2}, Version: v, Generation: 3, State: "ready"})
		if err != nil {
			return err
		}
		return tx.PutValues(ctx, impID, []store.Value{{Key: "X", Size: 2, Ciphertext: []byte("x3")}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The history as the full-copy schema stored it (0013): versions 2 to
	// 4 of bot, each with all its values; nothing for imported.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{`DROP TABLE object_version_values`, `DELETE FROM object_versions WHERE version = 1`,
		`CREATE TABLE object_version_values (object_id INTEGER NOT NULL, version INTEGER NOT NULL, key TEXT NOT NULL, size INTEGER NOT NULL,
			ciphertext BLOB NOT NULL, PRIMARY KEY (object_id, version, key),
			FOREIGN KEY (object_id, version) REFERENCES object_versions (object_id, version) ON DELETE CASCADE) WITHOUT ROWID`,
		`INSERT INTO object_version_values (object_id, version, key, size, ciphertext) VALUES
			(?1, 2, 'A', 2, CAST('a2' AS BLOB)), (?1, 2, 'B', 2, CAST('b1' AS BLOB)), (?1, 3, 'A', 2, CAST('a2' AS BLOB)),
			(?1, 4, 'A', 2, CAST('a2' AS BLOB)), (?1, 4, 'B', 2, CAST('b4' AS BLOB))`,
		`DELETE FROM schema_migrations WHERE version = 16`} {
		var args []any
		if strings.Contains(q, "?1") {
			args = []any{bot.ID}
		}
		if _, err := raw.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	read := func(id, v int64) map[string]string {
		t.Helper()
		var got map[string]string
		err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			ver, err := tx.Version(ctx, id, v)
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			got = map[string]string{}
			for _, val := range ver.Values {
				got[val.Key] = string(val.Ciphertext)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for v, want := range map[int64]map[string]string{1: nil, 2: {"A": "a2", "B": "b1"}, 3: {"A": "a2"}, 4: {"A": "a2", "B": "b4"}} {
		if got := read(bot.ID, v); !maps.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("version %d after the migration: %v, want %v", v, got, want)
		}
	}
	var rows int
	if err := raw.QueryRow(`SELECT count(*) FROM object_version_values WHERE object_id = ?`, bot.ID).Scan(&rows); err != nil || rows != 4 {
		t.Errorf("%d value rows of bot (%v), want 4 (A and B of version 2, the removal of B at 3, B at 4)", rows, err)
	}
	bot = storetest.WriteDelta(t, s, orgID, "bot", storetest.DeltaWrite{Set: map[string]string{"A": "a5"}})
	if got := read(bot.ID, 5); !maps.Equal(got, map[string]string{"A": "a5", "B": "b4"}) {
		t.Errorf("version 5: %v", got)
	}
	imp := storetest.WriteDelta(t, s, orgID, "imported", storetest.DeltaWrite{Set: map[string]string{"Y": "y4"}})
	if got := read(impID, imp.Generation); imp.Generation != 4 || !maps.Equal(got, map[string]string{"X": "x3", "Y": "y4"}) {
		t.Errorf("version %d of the imported object: %v, want X and Y", imp.Generation, got)
	}
	// The object's history goes with it.
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.DeleteObject(ctx, bot.ID) })
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`SELECT count(*) FROM object_version_values WHERE object_id = ?`, bot.ID).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("%d value rows of a deleted object (%v)", rows, err)
	}
}

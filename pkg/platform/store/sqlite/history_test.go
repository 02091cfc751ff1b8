package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
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

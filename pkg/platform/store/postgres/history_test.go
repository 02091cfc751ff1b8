package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// A database written before history existed gets it at its next open:
// each object's current contents become its version 1, values and all.
func TestHistoryMigrationStartsAtVersionOne(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var orgID, objID int64
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err := tx.CreateOrg(ctx, store.Org{Name: "acme", DefaultRegion: "us-west"})
		if err != nil {
			return err
		}
		orgID = org.ID
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		objID, err = tx.PutObject(ctx, store.Object{OrgID: org.ID, Name: "bot", Kind: "SecretSet", Region: "us-west",
			Keys: map[string]int{"A": 1}, Version: v, Generation: 7, State: "ready", CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()})
		if err != nil {
			return err
		}
		return tx.PutValues(ctx, objID, []store.Value{{Key: "A", Size: 1, Ciphertext: []byte("ct-a")}})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE object_version_values`, `DROP TABLE object_versions`, `ALTER TABLE orgs DROP COLUMN history_limit`,
		`DELETE FROM schema_migrations WHERE version = 6`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close(ctx)
	s, err = Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	vs, err := s.Versions(ctx, objID, 0, 10)
	if err != nil || len(vs) != 1 || vs[0].Version != 1 || vs[0].Source != "migration" || vs[0].Keys["A"] != 1 {
		t.Fatalf("history after the migration: %+v (%v), want version 1 with key A", vs, err)
	}
	var v store.Version
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		v, err = tx.Version(ctx, objID, 1)
		return err
	})
	if err != nil || len(v.Values) != 1 || string(v.Values[0].Ciphertext) != "ct-a" {
		t.Errorf("version 1 values %+v (%v)", v.Values, err)
	}
	if o, err := s.Object(ctx, orgID, "bot"); err != nil || o.Generation != 1 {
		t.Errorf("object generation %d (%v), want 1", o.Generation, err)
	}
	if n, err := s.HistoryLimit(ctx, orgID); err != nil || n != 10 {
		t.Errorf("history limit %d (%v), want 10", n, err)
	}
}

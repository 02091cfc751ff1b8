package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/storetest"
)

// A database written before history existed gets it at its next open:
// each object's current contents become its version 1, values and all.
func TestHistoryMigrationStartsAtVersionOne(t *testing.T) {
	ctx := context.Background()
	url, s, orgID := openWithOrg(ctx, t, 0)
	var objID int64
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		objID, err = tx.PutObject(ctx, store.Object{OrgID: orgID, Name: "bot", Kind: "SecretSet", Region: "us-west",
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
	// Back to the schema before history: 0006, 0008 and 0010 run again.
	for _, q := range []string{`DROP TABLE object_version_values`, `DROP TABLE object_versions`, `ALTER TABLE orgs DROP COLUMN history_limit`,
		`ALTER TABLE orgs DROP COLUMN history_limit_max`, `DELETE FROM schema_migrations WHERE version IN (6, 8, 10)`} {
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

// No foreign key links a version to its object or its values to it (migration 0008):
// the purge and DeleteObject delete them themselves, leaving no value of a
// version that is gone.
func TestHistoryValuesGoWithTheirVersions(t *testing.T) {
	ctx := context.Background()
	url, s, orgID := openWithOrg(ctx, t, 2)
	defer s.Close()
	var objID int64
	write := func(tx store.Tx, gen int64, keys ...string) error {
		var err error
		objID, err = writeVersion(ctx, tx, orgID, objID, gen, keys...)
		return err
	}
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		return write(tx, 1, "A", "B")
	})
	if err != nil {
		t.Fatal(err)
	}
	for gen := int64(2); gen <= 5; gen++ {
		if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error { return write(tx, gen, "A", "B") }); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	versionsOfValues := func() []int64 {
		t.Helper()
		rows, err := conn.Query(ctx, `SELECT DISTINCT since FROM object_version_values ORDER BY since`)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		return vs
	}
	if vs := versionsOfValues(); len(vs) != 2 || vs[0] != 4 || vs[1] != 5 {
		t.Fatalf("values kept of versions %v, want [4 5] (the history limit)", vs)
	}
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.DeleteObject(ctx, objID) }); err != nil {
		t.Fatal(err)
	}
	if vs := versionsOfValues(); len(vs) != 0 {
		t.Fatalf("values of versions %v left after the object was deleted", vs)
	}
	var headers int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM object_versions`).Scan(&headers); err != nil || headers != 0 {
		t.Fatalf("%d versions left after the object was deleted (%v)", headers, err)
	}
}

// writeVersion writes generation gen of object bot (objID 0: creates it)
// with keys, its version, and purges as the platform does.
func writeVersion(ctx context.Context, tx store.Tx, orgID, objID, gen int64, keys ...string) (int64, error) {
	v, err := tx.NextVersion(ctx)
	if err != nil {
		return 0, err
	}
	o := store.Object{ID: objID, OrgID: orgID, Name: "bot", Kind: "SecretSet", Region: "us-west", Keys: map[string]int{},
		Version: v, Generation: gen, State: "ready", CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}
	var vals []store.Value
	for _, k := range keys {
		o.Keys[k] = 1
		vals = append(vals, store.Value{Key: k, Size: 1, Ciphertext: []byte("ct-" + k)})
	}
	if objID, err = tx.PutObject(ctx, o); err != nil {
		return 0, err
	}
	if err := tx.PutValues(ctx, objID, vals); err != nil {
		return 0, err
	}
	if err := tx.PutVersion(ctx, store.Version{ObjectID: objID, Version: gen, Actor: "a", Source: "set", Keys: o.Keys, Values: vals}); err != nil {
		return 0, err
	}
	return objID, tx.PurgeVersions(ctx, orgID, objID, gen)
}

// The purge looks at versions from latest - history_limit_max only
// (migration 0008). A database where a limit was lowered before 0008, and
// whose objects kept their versions since, gets a history_limit_max that
// covers them: the next write purges every version past the limit.
func TestHistoryWindowCoversVersionsFromBeforeItsMigration(t *testing.T) {
	ctx := context.Background()
	url, s, orgID := openWithOrg(ctx, t, 20)
	var objID int64
	for gen := int64(1); gen <= 15; gen++ {
		err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			var err error
			objID, err = writeVersion(ctx, tx, orgID, objID, gen, "A")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The database as 0007 left it, after the limit was lowered to 2.
	toFullCopies(ctx, t, conn)
	for _, q := range []string{`ALTER TABLE orgs DROP COLUMN history_limit_max`, `UPDATE orgs SET history_limit = 2`,
		`ALTER TABLE object_versions ADD CONSTRAINT object_versions_object_id_fkey FOREIGN KEY (object_id) REFERENCES objects(id) ON DELETE CASCADE`,
		`ALTER TABLE object_version_values ADD CONSTRAINT object_version_values_object_id_version_fkey FOREIGN KEY (object_id, version) REFERENCES object_versions (object_id, version) ON DELETE CASCADE`,
		`DELETE FROM schema_migrations WHERE version IN (8, 10)`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s, err = Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := writeVersion(ctx, tx, orgID, objID, 16, "A")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.Versions(ctx, objID, 0, 100)
	if err != nil || len(vs) != 2 || vs[0].Version != 16 || vs[1].Version != 15 {
		t.Fatalf("%d versions kept after the first write since the migration (%v), want 16 and 15", len(vs), err)
	}
	var values int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM object_version_values`).Scan(&values); err != nil || values != 2 {
		t.Fatalf("%d version values kept (%v), want 2", values, err)
	}
}

// toFullCopies turns the history tables back into their form before
// migration 0010, a copy of every value of each version, and marks 0010
// not applied.
func toFullCopies(ctx context.Context, t *testing.T, conn *pgx.Conn) {
	t.Helper()
	for _, q := range []string{
		`CREATE TABLE object_version_values_full (object_id BIGINT NOT NULL, version BIGINT NOT NULL, key TEXT COLLATE "C" NOT NULL,
			size INTEGER NOT NULL, ciphertext BYTEA NOT NULL, PRIMARY KEY (object_id, version, key))`,
		`INSERT INTO object_version_values_full SELECT h.object_id, h.version, x.key, x.size, x.ciphertext FROM object_versions h
			CROSS JOIN LATERAL (SELECT DISTINCT ON (key) key, size, ciphertext FROM object_version_values
				WHERE object_id = h.object_id AND since <= h.version ORDER BY key, since DESC) x WHERE x.ciphertext IS NOT NULL`,
		`DROP TABLE object_version_values`,
		`ALTER TABLE object_version_values_full RENAME TO object_version_values`,
		`ALTER TABLE object_version_values RENAME CONSTRAINT object_version_values_full_pkey TO object_version_values_pkey`,
		`DELETE FROM schema_migrations WHERE version = 10`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// openWithOrg opens the store on a fresh database and creates organization
// acme in it, with history limit limit (0: the default).
func openWithOrg(ctx context.Context, t *testing.T, limit int) (url string, s *Store, orgID int64) {
	t.Helper()
	url = pg.Database(t)
	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err := tx.CreateOrg(ctx, store.Org{Name: "acme", DefaultRegion: "us-west"})
		if err != nil {
			return err
		}
		orgID = org.ID
		if limit == 0 {
			return nil
		}
		return tx.SetHistoryLimit(ctx, orgID, limit)
	})
	if err != nil {
		t.Fatal(err)
	}
	return url, s, orgID
}

// The purge deletes the values no kept version reads from the database:
// a value overwritten and a key removed before the oldest kept version
// leave no row, and their ciphertexts are nowhere in the history table.
func TestHistoryPurgeDeletesValues(t *testing.T) {
	ctx := context.Background()
	url, s, orgID := openWithOrg(ctx, t, 1)
	defer s.Close()
	storetest.WriteDelta(t, s, orgID, "bot", storetest.DeltaWrite{Set: map[string]string{"A": "canary-old-a", "B": "canary-b"}})
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(q string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM object_version_values WHERE ciphertext IN ('canary-old-a', 'canary-b')`); n != 2 {
		t.Fatalf("%d history rows of version 1's values, want 2", n)
	}
	storetest.WriteDelta(t, s, orgID, "bot", storetest.DeltaWrite{Set: map[string]string{"A": "a2"}, Removed: []string{"B"}})
	if n := count(`SELECT count(*) FROM object_version_values WHERE position('canary' IN convert_from(ciphertext, 'UTF8')) > 0`); n != 0 {
		t.Errorf("%d purged values still in the history table", n)
	}
	if n := count(`SELECT count(*) FROM object_version_values`); n != 1 {
		t.Errorf("%d history rows, want 1 (A of version 2; the removal of B is read by no kept version)", n)
	}
}

// A database whose versions are full copies (before migration 0010)
// migrates to value rows from the version they start at, and every kept
// version reads the same values: a key removed and added again, an
// overwritten value, an object without history (an older migrate); the
// next writes build on the migrated rows.
func TestHistoryMigrationOfFullCopies(t *testing.T) {
	ctx := context.Background()
	url, s, orgID := openWithOrg(ctx, t, 0)
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
	var impID int64
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		impID, err = tx.PutObject(ctx, store.Object{OrgID: orgID, Name: "imported", Kind: "SecretSet", Region: "us-west",
			Keys: map[string]int{"X": 2}, Version: v, Generation: 3, State: "ready", CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()})
		if err != nil {
			return err
		}
		return tx.PutValues(ctx, impID, []store.Value{{Key: "X", Size: 2, Ciphertext: []byte("x3")}})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The history as the full-copy schema stored it: versions 2 to 4 of
	// bot, each with all its values; nothing for imported.
	toFullCopies(ctx, t, conn)
	for _, q := range []string{`DELETE FROM object_versions WHERE version = 1`, `DELETE FROM object_version_values`,
		`INSERT INTO object_version_values (object_id, version, key, size, ciphertext) VALUES
			($1, 2, 'A', 2, 'a2'), ($1, 2, 'B', 2, 'b1'), ($1, 3, 'A', 2, 'a2'), ($1, 4, 'A', 2, 'a2'), ($1, 4, 'B', 2, 'b4')`} {
		var args []any
		if strings.Contains(q, "$1") {
			args = []any{bot.ID}
		}
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s, err = Open(ctx, url, Options{})
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
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM object_version_values WHERE object_id = $1`, bot.ID).Scan(&rows); err != nil || rows != 4 {
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
}

// A transaction's history writes go out compacted (one statement per
// table for its versions, their values, the purges): several versions of
// one object, a removal and another object in one transaction leave what
// they leave one by one. With a limit of 1, bot keeps only version 3.
func TestHistoryCompacted(t *testing.T) {
	ctx := context.Background()
	url, s, orgID := openWithOrg(ctx, t, 1)
	defer s.Close()
	var ids [2]int64
	var compacted []string
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		objs := [2]store.Object{{OrgID: orgID, Name: "bot", Kind: "SecretSet", Region: "us-west", Keys: map[string]int{}},
			{OrgID: orgID, Name: "other", Kind: "SecretSet", Region: "us-west", Keys: map[string]int{}}}
		write := func(i int, set map[string]string, removed ...string) error {
			o := &objs[i]
			var err error
			if o.Version, err = tx.NextVersion(ctx); err != nil {
				return err
			}
			o.Generation++
			var vals []store.Value
			for _, k := range slices.Sorted(maps.Keys(set)) {
				o.Keys[k] = len(set[k])
				vals = append(vals, store.Value{Key: k, Size: len(set[k]), Ciphertext: []byte(set[k])})
			}
			for _, k := range removed {
				delete(o.Keys, k)
			}
			if o.ID, err = tx.PutObject(ctx, *o); err != nil {
				return err
			}
			ids[i] = o.ID
			if err := tx.DeleteValues(ctx, o.ID, removed); err != nil {
				return err
			}
			if err := tx.PutValues(ctx, o.ID, vals); err != nil {
				return err
			}
			if err := tx.PutVersion(ctx, store.Version{ObjectID: o.ID, Version: o.Generation, Actor: "a", Source: "set", Removed: removed, Keys: maps.Clone(o.Keys), Values: vals}); err != nil {
				return err
			}
			return tx.PurgeVersions(ctx, orgID, o.ID, o.Generation)
		}
		// The objects exist (their inserts are sent at once); then
		// everything queues.
		if err := write(0, map[string]string{"A": "a1", "B": "b1"}); err != nil {
			return err
		}
		if err := write(1, map[string]string{"X": "x1"}); err != nil {
			return err
		}
		if err := write(0, map[string]string{"A": "a2"}); err != nil {
			return err
		}
		if err := write(0, nil, "B"); err != nil {
			return err
		}
		for _, w := range compact(tx.(*pgTx).queue) {
			compacted = append(compacted, map[string]string{qInsertVersions: "versions", qInsertVersionValues: "version values", qPurgeVersions: "purges"}[w.sql])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(compacted, ","); !strings.Contains(got, "versions,version values,purges") {
		t.Errorf("queued history writes compact to %q, want one statement each for versions, values and purges", got)
	}
	vs, err := s.Versions(ctx, ids[0], 0, 10)
	if err != nil || len(vs) != 1 || vs[0].Version != 3 {
		t.Fatalf("versions of bot %+v (%v), want 3 only", vs, err)
	}
	var v store.Version
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		v, err = tx.Version(ctx, ids[0], 3)
		return err
	})
	if err != nil || len(v.Values) != 1 || string(v.Values[0].Ciphertext) != "a2" {
		t.Errorf("version 3 of bot: %+v (%v), want A=a2", v.Values, err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows []string
	r, err := conn.Query(ctx, `SELECT object_id::text || ' ' || key || ' ' || since::text FROM object_version_values ORDER BY object_id, key, since`)
	if err == nil {
		rows, err = pgx.CollectRows(r, pgx.RowTo[string])
	}
	if want := fmt.Sprintf("[%d A 2 %d X 1]", ids[0], ids[1]); err != nil || fmt.Sprint(rows) != want {
		t.Errorf("history rows %v (%v), want %s", rows, err, want)
	}
}

// The purges of many writes of one object in one compacted statement (a
// transaction that writes 17 versions of it, a key removed and added again
// on the way) leave what they leave one by one: the newest 3 versions with
// their values and the rows they read, nothing older.
func TestHistoryCompactedPurgesOfOneObject(t *testing.T) {
	ctx := context.Background()
	url, s, orgID := openWithOrg(ctx, t, 3)
	defer s.Close()
	const last = 17
	want := map[int64]map[string]string{}
	var id int64
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		o := store.Object{OrgID: orgID, Name: "bot", Kind: "SecretSet", Region: "us-west", Keys: map[string]int{}}
		cur := map[string]string{}
		for g := int64(1); g <= last; g++ {
			var err error
			if o.Version, err = tx.NextVersion(ctx); err != nil {
				return err
			}
			o.Generation = g
			set := map[string]string{"A": fmt.Sprint("a", g)}
			var removed []string
			switch {
			case g%5 == 0:
				removed = []string{"B"}
			case g%5 == 1:
				set["B"] = fmt.Sprint("b", g)
			}
			var vals []store.Value
			for _, k := range slices.Sorted(maps.Keys(set)) {
				o.Keys[k], cur[k] = len(set[k]), set[k]
				vals = append(vals, store.Value{Key: k, Size: len(set[k]), Ciphertext: []byte(set[k])})
			}
			for _, k := range removed {
				delete(o.Keys, k)
				delete(cur, k)
			}
			want[g] = maps.Clone(cur)
			if o.ID, err = tx.PutObject(ctx, o); err != nil {
				return err
			}
			id = o.ID
			if err := tx.DeleteValues(ctx, o.ID, removed); err != nil {
				return err
			}
			if err := tx.PutValues(ctx, o.ID, vals); err != nil {
				return err
			}
			if err := tx.PutVersion(ctx, store.Version{ObjectID: o.ID, Version: g, Actor: "a", Source: "set", Removed: removed, Keys: maps.Clone(o.Keys), Values: vals}); err != nil {
				return err
			}
			if err := tx.PurgeVersions(ctx, orgID, o.ID, g); err != nil {
				return err
			}
		}
		purges := 0
		for _, w := range compact(tx.(*pgTx).queue) {
			if w.sql == qPurgeVersions {
				purges++
				if n := len(w.args[0].([]int64)); n != last {
					t.Errorf("one purge statement for %d writes, want %d", n, last)
				}
			}
		}
		if purges != 1 {
			t.Errorf("%d purge statements, want 1", purges)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.Versions(ctx, id, 0, 100)
	if err != nil || len(vs) != 3 || vs[0].Version != last || vs[2].Version != last-2 {
		t.Fatalf("versions %+v (%v), want %d down to %d", vs, err, last, last-2)
	}
	for g := int64(last - 2); g <= last; g++ {
		var got map[string]string
		err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			v, err := tx.Version(ctx, id, g)
			got = map[string]string{}
			for _, val := range v.Values {
				got[val.Key] = string(val.Ciphertext)
			}
			return err
		})
		if err != nil || !maps.Equal(got, want[g]) {
			t.Errorf("version %d: %v (%v), want %v", g, got, err, want[g])
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var headers, rows int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM object_versions), (SELECT count(*) FROM object_version_values)`).Scan(&headers, &rows); err != nil {
		t.Fatal(err)
	}
	// Oldest kept 15: versions 15 to 17; rows A of 15 to 17, and of B only
	// b16 — B's rows of 1, 5 (a removal), 6, 10 (a removal), 11 and its
	// removal at 15 go.
	if headers != 3 || rows != 4 {
		t.Errorf("%d versions and %d value rows stored, want 3 and 4", headers, rows)
	}
}

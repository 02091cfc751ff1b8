package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/jackc/pgx/v5"
)

// setKey is what a platform merge does to a secret set, as a declared
// update: read it (create it if missing), add key, give it a new version
// and generation, mark it pending, write its value and an audit record.
func setKey(s *Store, orgID int64, name, key string) (store.Object, error) {
	var out store.Object
	ctx := store.WithObjects(context.Background(), store.ObjectKey{OrgID: orgID, Name: name})
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		var err error
		out, err = writeKey(ctx, tx, orgID, name, key)
		return err
	})
	return out, err
}

// setKeyAll is setKey on several sets in one declared update.
func setKeyAll(s *Store, orgID int64, key string, names ...string) error {
	var keys []store.ObjectKey
	for _, n := range names {
		keys = append(keys, store.ObjectKey{OrgID: orgID, Name: n})
	}
	return s.Update(store.WithObjects(context.Background(), keys...), func(ctx context.Context, tx store.Tx) error {
		for _, n := range names {
			if _, err := writeKey(ctx, tx, orgID, n, key); err != nil {
				return err
			}
		}
		return nil
	})
}

func writeKey(ctx context.Context, tx store.Tx, orgID int64, name, key string) (store.Object, error) {
	o, err := tx.Object(ctx, orgID, name)
	if errors.Is(err, store.ErrNotFound) {
		o = store.Object{OrgID: orgID, Name: name, Kind: "SecretSet", Region: "r"}
	} else if err != nil {
		return o, err
	}
	o.Keys = maps.Clone(o.Keys)
	if o.Keys == nil {
		o.Keys = map[string]int{}
	}
	o.Keys[key] = 1
	o.Generation++
	o.State, o.Message = "pending", ""
	if o.Version, err = tx.NextVersion(ctx); err != nil {
		return o, err
	}
	if o.ID, err = tx.PutObject(ctx, o); err != nil {
		return o, err
	}
	if err := tx.PutValues(ctx, o.ID, []store.Value{{Key: key, Size: 1, Ciphertext: []byte("x")}}); err != nil {
		return o, err
	}
	return o, tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "u", Action: "merge", Kind: "SecretSet", Name: name, Region: "r", Keys: []string{key}})
}

// seen runs a declared update that only reads name, and returns what it saw.
func seen(s *Store, orgID int64, name string) (store.Object, error) {
	var out store.Object
	ctx := store.WithObjects(context.Background(), store.ObjectKey{OrgID: orgID, Name: name})
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		var err error
		out, err = tx.Object(ctx, orgID, name)
		return err
	})
	return out, err
}

// openStore opens a store on url, closed when the test ends.
func openStore(t testing.TB, url string, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// createOrg creates organization "o" (default region "r") through s.
func createOrg(t testing.TB, s *Store) store.Org {
	t.Helper()
	var org store.Org
	if err := s.Update(context.Background(), func(ctx context.Context, tx store.Tx) error {
		var err error
		org, err = tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "r"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return org
}

func keyNames(o store.Object) string { return fmt.Sprint(slices.Sorted(maps.Keys(o.Keys))) }

// Two replicas (two stores on one database). A replica's batches run on
// the rows it remembers, in one round trip, and are still never wrong: an
// object another replica changed (or deleted and created again) since is
// found stale at commit, nothing of the batch is written, and the batch
// runs again on the rows read under lock.
func TestOptimisticBatches(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	a := openStore(t, url, Options{})
	b := openStore(t, url, Options{})
	org := createOrg(t, a)
	check := func(step string, wantKeys string, wantOptimistic, wantStale int64) {
		t.Helper()
		o, err := a.Object(ctx, org.ID, "s")
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := keyNames(o); got != wantKeys {
			t.Errorf("%s: keys %s, want %s", step, got, wantKeys)
		}
		vals, err := a.Values(ctx, o.ID)
		if err != nil || len(vals) != len(o.Keys) {
			t.Errorf("%s: %d values for %d keys (%v)", step, len(vals), len(o.Keys), err)
		}
		if got := a.optimistic.Load(); got != wantOptimistic {
			t.Errorf("%s: %d optimistic batches, want %d", step, got, wantOptimistic)
		}
		if got := a.stale.Load(); got != wantStale {
			t.Errorf("%s: %d stale batches, want %d", step, got, wantStale)
		}
	}

	// write sets key in set s through replica r.
	write := func(r *Store, key string) {
		t.Helper()
		if _, err := setKey(r, org.ID, "s", key); err != nil {
			t.Fatal(err)
		}
	}

	// The create reads under lock; the next write runs on the remembered row.
	write(a, "K1")
	check("create", "[K1]", 0, 0)
	write(a, "K2")
	check("remembered", "[K1 K2]", 1, 0)

	// Another replica writes: a's row is stale. Its batch writes nothing,
	// runs again under lock and keeps b's key.
	write(b, "B1")
	write(a, "K3")
	check("after another replica's write", "[B1 K1 K2 K3]", 1, 1)

	// An object found changed once (its writer moved to this replica) is
	// remembered again at once: the next write runs on the row that run
	// read.
	write(a, "K4")
	check("changed once", "[B1 K1 K2 K3 K4]", 2, 1)

	// Found changed again within staleFor (both replicas write it): not
	// remembered for a while. The next write reads under lock directly,
	// and is right.
	write(b, "B2")
	write(a, "K5")
	check("changed twice", "[B1 B2 K1 K2 K3 K4 K5]", 2, 2)
	write(a, "K6")
	check("kept out", "[B1 B2 K1 K2 K3 K4 K5 K6]", 2, 2)

	// The provisioner changes an object's state without a new version. A
	// write overwrites the state, so it may run on the remembered row...
	a.cache.forget([]store.ObjectKey{{OrgID: org.ID, Name: "s"}}, nil)
	clear(a.cache.stale)
	write(a, "P1") // under lock: remembered again
	if _, err := a.pool.Exec(ctx, `UPDATE objects SET state = 'ready', message = 'provisioned' WHERE name = 's'`); err != nil {
		t.Fatal(err)
	}
	written, err := setKey(a, org.ID, "s", "P2")
	if err != nil {
		t.Fatal(err)
	}
	check("after the provisioner", "[B1 B2 K1 K2 K3 K4 K5 K6 P1 P2]", 3, 2)
	if o, err := a.Object(ctx, org.ID, "s"); err != nil || o.State != "pending" || o.Message != "" || o.Version != written.Version {
		t.Errorf("stored %s %q v%d, written v%d", o.State, o.Message, o.Version, written.Version)
	}
	// ... but an update that only reads must see the state as stored.
	if _, err := a.pool.Exec(ctx, `UPDATE objects SET state = 'ready', message = 'provisioned' WHERE name = 's'`); err != nil {
		t.Fatal(err)
	}
	if o, err := seen(a, org.ID, "s"); err != nil || o.State != "ready" || o.Message != "provisioned" {
		t.Errorf("a reading update saw %s %q (%v), want ready", o.State, o.Message, err)
	}

	// Deleted and created again by another replica: a new row under the
	// same name. a must not write the old row's keys into it.
	write(a, "K7") // remembered
	optimistic := a.optimistic.Load()
	del := store.WithObjects(ctx, store.ObjectKey{OrgID: org.ID, Name: "s"})
	if err := b.Update(del, func(ctx context.Context, tx store.Tx) error {
		o, err := tx.Object(ctx, org.ID, "s")
		if err != nil {
			return err
		}
		return tx.DeleteObject(ctx, o.ID)
	}); err != nil {
		t.Fatal(err)
	}
	write(b, "NEW")
	write(a, "K8")
	check("deleted and created again", "[K8 NEW]", optimistic, 3)

	// An optimistic batch that removes a key as well (deletions, upserts,
	// the object row and audit records in its one statement).
	for _, k := range []string{"X", "Y"} {
		if _, err := setKey(a, org.ID, "r", k); err != nil {
			t.Fatal(err)
		}
	}
	optimistic = a.optimistic.Load()
	rm := store.WithObjects(ctx, store.ObjectKey{OrgID: org.ID, Name: "r"})
	if err := a.Update(rm, func(ctx context.Context, tx store.Tx) error {
		o, err := tx.Object(ctx, org.ID, "r")
		if err != nil {
			return err
		}
		o.Keys = maps.Clone(o.Keys)
		delete(o.Keys, "X")
		o.Keys["Z"] = 1
		if o.Version, err = tx.NextVersion(ctx); err != nil {
			return err
		}
		if _, err := tx.PutObject(ctx, o); err != nil {
			return err
		}
		if err := tx.DeleteValues(ctx, o.ID, []string{"X"}); err != nil {
			return err
		}
		if err := tx.PutValues(ctx, o.ID, []store.Value{{Key: "Z", Size: 1, Ciphertext: []byte("z")}}); err != nil {
			return err
		}
		return tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "u", Action: "merge", Kind: "SecretSet", Name: "r", Region: "r", Keys: []string{"Z", "X"}})
	}); err != nil {
		t.Fatal(err)
	}
	if a.optimistic.Load() != optimistic+1 {
		t.Error("the removal did not run optimistically")
	}
	o, err := a.Object(ctx, org.ID, "r")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := a.Values(ctx, o.ID)
	var got []string
	for _, v := range vals {
		got = append(got, v.Key)
	}
	if keyNames(o) != "[Y Z]" || fmt.Sprint(got) != "[Y Z]" || err != nil {
		t.Errorf("after removing X and setting Z: keys %s, values %v (%v)", keyNames(o), got, err)
	}
	recs, err := a.Audit(ctx, "o", 1)
	if err != nil || len(recs) != 1 || fmt.Sprint(recs[0].Keys) != "[X Z]" || recs[0].Name != "r" {
		t.Errorf("last audit record %+v (%v)", recs, err)
	}
}

// Many writers on two replicas, distinct keys into three sets — set-0
// written through one replica only, set-1 through the other, set-2 through
// both: every key is kept, whichever path each batch took, and a set that
// one replica writes alone is still written optimistically afterwards
// although its batches shared transactions with the contended set.
func TestOptimisticBatchesConcurrent(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	var stores []*Store
	for range 2 {
		s, err := Open(ctx, url, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	var org store.Org
	var err error
	if err := stores[0].Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err = tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "r"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	const writers, rounds, sets = 24, 20, 3
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				set := w % sets
				replica := set
				if set == 2 {
					replica = w % 2
				}
				if _, err := setKey(stores[replica], org.ID, fmt.Sprint("set-", set), fmt.Sprintf("W%02dR%02d", w, r)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := 0
	for i := range sets {
		o, err := stores[0].Object(ctx, org.ID, fmt.Sprint("set-", i))
		if err != nil {
			t.Fatal(err)
		}
		vals, err := stores[0].Values(ctx, o.ID)
		if err != nil || len(vals) != len(o.Keys) {
			t.Errorf("set-%d: %d values, %d keys (%v)", i, len(vals), len(o.Keys), err)
		}
		total += len(o.Keys)
	}
	if total != writers*rounds {
		t.Errorf("%d keys kept, want %d", total, writers*rounds)
	}
	opt := stores[0].optimistic.Load() + stores[1].optimistic.Load()
	stale := stores[0].stale.Load() + stores[1].stale.Load()
	t.Logf("optimistic batches committed: %d; found stale: %d", opt, stale)
	// Only the contended set was found stale: set-0 is still remembered.
	before := stores[0].optimistic.Load()
	if _, err := setKey(stores[0], org.ID, "set-0", "AFTER"); err != nil {
		t.Fatal(err)
	}
	if stores[0].optimistic.Load() != before+1 {
		t.Error("set-0, written through one replica only, is no longer written optimistically")
	}
}

// The cache stays within its bounds however many objects, and however
// large, its batches touch; its size accounting matches its rows; what it
// keeps about objects found changed is bounded too.
func TestObjectCacheBounds(t *testing.T) {
	var c objectCache
	check := func(step string) {
		t.Helper()
		n := 0
		for _, o := range c.rows {
			n += entries(o)
		}
		if n != c.size || len(c.rows) > cacheLimit || c.size > cacheEntries+1000 {
			t.Fatalf("%s: %d rows, size %d, counted %d", step, len(c.rows), c.size, n)
		}
	}
	big := map[string]int{}
	for i := range 1000 {
		big[fmt.Sprint("K", i)] = 1
	}
	for i := range 3 * cacheLimit {
		k := store.ObjectKey{OrgID: 1, Name: fmt.Sprint("s", i%(cacheLimit+7))}
		o := store.Object{ID: int64(i), Name: k.Name}
		if i%50 == 0 {
			o.Keys = big // a few large sets
		}
		c.remember([]store.ObjectKey{k}, map[store.ObjectKey]store.Object{k: o})
		if i%4096 == 0 {
			check(fmt.Sprint("after ", i))
		}
		if i%3 == 0 {
			c.forget([]store.ObjectKey{k}, nil)
		}
	}
	check("end")

	// Objects found changed, many of them twice (written through several
	// replicas): what the cache keeps about them stays bounded too.
	changed := func(k store.ObjectKey) {
		keys := []store.ObjectKey{k}
		c.forget(keys, &optimism{ids: []int64{1}, versions: []int64{1}})
		c.markStale(keys, map[store.ObjectKey]store.Object{k: {ID: 1, Version: 2}})
	}
	for i := range 2 * cacheLimit { // each once: more than the cache keeps
		changed(store.ObjectKey{OrgID: 2, Name: fmt.Sprint("once", i)})
	}
	for i := range cacheLimit { // each twice: kept out
		changed(store.ObjectKey{OrgID: 2, Name: fmt.Sprint("twice", i%(cacheLimit/4))})
	}
	if len(c.changed) > cacheLimit || len(c.stale) > cacheLimit || len(c.suspect) > cacheLimit {
		t.Fatalf("changed %d, stale %d, suspect %d entries (limit %d)", len(c.changed), len(c.stale), len(c.suspect), cacheLimit)
	}
	if len(c.stale) == 0 {
		t.Fatal("no object found changed twice was kept out")
	}
}

// A write that fails on a remembered row is checked too: a client that
// sends If-Match with the version another replica just wrote must not get
// a conflict from a replica that remembers the older version.
func TestOptimisticFailedWriteIsChecked(t *testing.T) {
	url := pg.Database(t)
	a := openStore(t, url, Options{})
	b := openStore(t, url, Options{})
	org := createOrg(t, a)
	for _, k := range []string{"K1", "K2"} { // a remembers s
		if _, err := setKey(a, org.ID, "s", k); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := setKey(b, org.ID, "s", "K3")
	if err != nil {
		t.Fatal(err)
	}
	errConflict := errors.New("409: If-Match does not match")
	before := a.optimistic.Load() + a.stale.Load()
	ctx := store.WithObjects(context.Background(), store.ObjectKey{OrgID: org.ID, Name: "s"})
	err = a.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		o, err := tx.Object(ctx, org.ID, "s")
		if err != nil {
			return err
		}
		if o.Version != cur.Version { // If-Match: the version b wrote
			return errConflict
		}
		return nil
	})
	if err != nil {
		t.Errorf("If-Match with the current version through the other replica: %v", err)
	}
	if a.stale.Load()+a.optimistic.Load() == before {
		t.Error("the write did not run on the remembered row: nothing was checked")
	}
}

// Batches of all replicas lock their rows in one order, (organization,
// name), whichever path they take, so they never deadlock each other. A
// transaction of another replica holds the row of "a"; an optimistic batch
// of two sets, "a" and "b" (whose row comes first in the table), must wait
// for "a" before it locks "b": the other replica can still lock "b" (in
// the same order) and finish.
func TestOptimisticBatchLocksInKeyOrder(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	s := openStore(t, url, Options{})
	org := createOrg(t, s)
	for i := range 2 { // remembered, and b's row before a's
		for _, name := range []string{"b", "a"} {
			if _, err := setKey(s, org.ID, name, fmt.Sprint("K", i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	other, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	lock := func(name, nowait string) error {
		_, err := other.Exec(ctx, `SELECT 1 FROM objects WHERE org_id = $1 AND name = $2 FOR UPDATE`+nowait, org.ID, name)
		return err
	}
	if _, err := other.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if err := lock("a", ""); err != nil {
		t.Fatal(err)
	}
	before := s.optimistic.Load()
	done := make(chan error, 1)
	go func() { done <- setKeyAll(s, org.ID, "K2", "a", "b") }()
	// Wait until the batch waits for a lock.
	testenv.Eventually(t, "the batch to wait for the row of a", func() bool {
		var n int
		if err := other.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	if err := lock("b", " NOWAIT"); err != nil {
		t.Errorf("the batch locked b while it waited for a: %v", err)
	}
	if _, err := other.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.optimistic.Load() == before {
		t.Error("the batch did not take the optimistic path")
	}
}

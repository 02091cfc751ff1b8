package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// Concurrent declared updates share transactions, and one whose statement
// fails inside a shared transaction fails alone: the others run again on
// their own and commit.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	largest := 0
	s := openStore(t, pg.Database(t), Options{OnCommit: func(batch int, _ time.Duration) {
		mu.Lock()
		largest = max(largest, batch)
		mu.Unlock()
	}})
	org := createOrg(t, s)
	const n, bad = 128, 64 + 17 // two waves of 64; the second has the failing update
	errs := make([]error, n)
	for wave := range 2 {
		var wg sync.WaitGroup
		for i := wave * n / 2; i < (wave+1)*n/2; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprint("set-", i%4)
				errs[i] = s.Update(store.WithObjects(ctx, store.ObjectKey{OrgID: org.ID, Name: name}), func(ctx context.Context, tx store.Tx) error {
					o, err := tx.Object(ctx, org.ID, name)
					if errors.Is(err, store.ErrNotFound) {
						o = store.Object{OrgID: org.ID, Name: name, Kind: "SecretSet", Region: "r", State: "pending", Keys: map[string]int{}}
					} else if err != nil {
						return err
					}
					k := fmt.Sprintf("K%03d", i)
					o.Keys[k] = 1
					o.Generation++
					if o.Version, err = tx.NextVersion(ctx); err != nil {
						return err
					}
					if o.ID, err = tx.PutObject(ctx, o); err != nil {
						return err
					}
					id := o.ID
					if i == bad {
						id = 1 << 40 // no such object: the foreign key fails at COMMIT
					}
					return tx.PutValues(ctx, id, []store.Value{{Key: k, Size: 1, Ciphertext: []byte("x")}})
				})
			}()
		}
		wg.Wait()
		if wave == 0 && largest < 2 {
			t.Errorf("largest transaction held %d updates: nothing was grouped", largest)
		}
	}
	keys := 0
	for i, err := range errs {
		if (i == bad) != (err != nil) {
			t.Errorf("update %d: %v", i, err)
		}
	}
	for i := range 4 {
		o, err := s.Object(ctx, org.ID, fmt.Sprint("set-", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := o.Keys[fmt.Sprintf("K%03d", bad)]; ok {
			t.Error("the failed update's key was stored")
		}
		keys += len(o.Keys)
		if vals, _ := s.Values(ctx, o.ID); len(vals) != len(o.Keys) {
			t.Errorf("%s: %d values, %d keys", o.Name, len(vals), len(o.Keys))
		}
	}
	if keys != n-1 {
		t.Errorf("%d keys stored, want %d", keys, n-1)
	}
}

// The writes queued by one transaction are sent as multi-row statements
// (compact) with the effect of the writes one by one: the last write of a
// row or value wins, deletions and upserts of one key keep their order,
// audit records theirs.
func TestCompactedWrites(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, pg.Database(t), Options{})
	var o store.Object
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err := tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "r"})
		if err != nil {
			return err
		}
		o = store.Object{OrgID: org.ID, Name: "x", Kind: "SecretSet", Region: "r", State: "pending", Version: 1, Generation: 1}
		o.ID, err = tx.PutObject(ctx, o)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	val := func(k, v string) store.Value { return store.Value{Key: k, Size: len(v), Ciphertext: []byte(v)} }
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		steps := []func() error{
			func() error {
				return tx.PutValues(ctx, o.ID, []store.Value{val("A", "a1"), val("B", "b1"), val("C", "c1")})
			},
			func() error { return tx.DeleteValues(ctx, o.ID, []string{"B", "C"}) },
			func() error { return tx.PutValues(ctx, o.ID, []store.Value{val("B", "b2"), val("A", "a2")}) },
			func() error {
				return tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "u", Action: "first", Name: "x", Keys: []string{"A"}})
			},
			func() error { o.Version, o.Message = 2, "m2"; _, err := tx.PutObject(ctx, o); return err },
			func() error {
				return tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "u", Action: "second", Name: "x"})
			},
			func() error { o.Version, o.Message = 3, "m3"; _, err := tx.PutObject(ctx, o); return err },
			func() error { return tx.DeleteValues(ctx, o.ID, []string{"A"}) },
			func() error { return tx.PutValues(ctx, o.ID, []store.Value{val("D", "d1")}) },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	vals, err := s.Values(ctx, o.ID)
	if got := fmt.Sprintf("%v", vals); err != nil || got != "[{B 2 [98 50]} {D 2 [100 49]}]" {
		t.Errorf("values %s %v", got, err)
	}
	if got, err := s.Object(ctx, o.OrgID, "x"); err != nil || got.Version != 3 || got.Message != "m3" {
		t.Errorf("object %+v %v", got, err)
	}
	recs, err := s.Audit(ctx, "o", 10)
	if err != nil || len(recs) != 2 || recs[0].Action != "second" || recs[1].Action != "first" || fmt.Sprint(recs[1].Keys) != "[A]" {
		t.Errorf("audit %+v %v", recs, err)
	}
}

// compact merges runs of row writes into one statement per table and keeps
// other statements (savepoints) where they were.
func TestCompactShape(t *testing.T) {
	up := func(id int64) queued {
		return queued{qUpdateObject, []any{"", "", "", "", int64(1), int64(1), "pending", "", int64(0), false, "", id}}
	}
	val := func(id int64, k string) queued { return queued{qUpsertValue, []any{id, k, 1, []byte("x")}} }
	aud := queued{qInsertAudit, []any{int64(0), "o", "a", "merge", "SecretSet", "x", "r", "[]"}}
	q := []queued{up(1), val(1, "A"), aud, up(2), val(2, "A"), aud, up(1), {"RELEASE SAVEPOINT r", nil}, up(3), aud}
	var got []string
	for _, w := range compact(q) {
		got = append(got, map[string]string{qUpdateObjects: "objects", qUpsertValues: "values", qInsertAudits: "audits",
			qUpdateObject: "object", qInsertAudit: "audit", "RELEASE SAVEPOINT r": "release"}[w.sql])
	}
	if fmt.Sprint(got) != "[objects values audits release object audit]" {
		t.Errorf("compacted: %v", got)
	}
}

// With a commit delay, a runner whose previous batch was shared waits for
// more writes before the next one, so writers that come back at once share
// larger batches; a lone write after a lone write does not wait.
func TestCommitDelay(t *testing.T) {
	const delay = 50 * time.Millisecond
	var mu sync.Mutex
	var batches, writes int
	s := openStore(t, pg.Database(t), Options{CommitDelay: delay, OnCommit: func(batch int, _ time.Duration) {
		mu.Lock()
		batches, writes = batches+1, writes+batch
		mu.Unlock()
	}})
	org := createOrg(t, s)
	for i := range 3 { // lone writes: none waits
		start := time.Now()
		if _, err := setKey(s, org.ID, "lone", fmt.Sprint("K", i)); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d >= delay {
			t.Errorf("lone write %d took %s: it waited for the commit delay", i, d)
		}
	}
	const writers, rounds = 8, 6
	mu.Lock()
	batches, writes = 0, 0
	mu.Unlock()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				if _, err := setKey(s, org.ID, fmt.Sprint("set-", w), fmt.Sprint("K", r)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	// Without the delay the writers split into about two alternating
	// groups (4 writes a batch); with it, all 8 come back within 50 ms.
	if mean := float64(writes) / float64(batches); writes != writers*rounds || mean < 6 {
		t.Errorf("%d writes in %d batches (%.1f a batch), want %d writes in batches of 6 or more", writes, batches, mean, writers*rounds)
	}
}

// A runner stops waiting as soon as CommitBatch writes are queued, long
// before the delay.
func TestCommitBatch(t *testing.T) {
	const delay = time.Second
	type commit struct {
		size       int
		start, end time.Time
	}
	var mu sync.Mutex
	var commits []commit
	s := openStore(t, pg.Database(t), Options{CommitDelay: delay, CommitBatch: 2, OnCommit: func(batch int, d time.Duration) {
		mu.Lock()
		now := time.Now()
		commits = append(commits, commit{batch, now.Add(-d), now})
		mu.Unlock()
	}})
	org := createOrg(t, s)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 5 {
				if _, err := setKey(s, org.ID, fmt.Sprint("set-", w), fmt.Sprint("K", r)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	early := 0 // batches after a shared one that did not wait the delay out
	for i := 1; i < len(commits); i++ {
		if commits[i-1].size > 1 && commits[i].start.Sub(commits[i-1].end) < delay/2 {
			early++
		}
	}
	if early == 0 {
		t.Errorf("every batch after a shared one waited the whole delay (%d batches)", len(commits))
	}
}

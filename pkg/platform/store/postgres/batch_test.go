package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
		if vals, err := s.Values(ctx, o.ID); err != nil || len(vals) != len(o.Keys) {
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
	s := openStore(t, pg.Database(t), Options{CommitDelay: delay})
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
	// Without the delay the writers split into about two alternating
	// groups (4 writes a batch); with it, all 8 come back within 50 ms.
	commits := recordCommits(t, Options{CommitDelay: delay}, 8, 6)
	if mean := float64(writes(commits)) / float64(len(commits)); mean < 6 {
		t.Errorf("%d batches of %.1f writes, want 6 or more (batches %v)", len(commits), mean, sizes(commits))
	}
}

// After a shared batch a runner waits for the writers it answered, not
// for the delay: writers that send their next write as soon as they are
// answered are batched together again at once.
func TestCommitDelayWaitsForItsWriters(t *testing.T) {
	const delay = time.Second
	commits := recordCommits(t, Options{CommitDelay: delay}, 4, 5)
	shared, waited := 0, 0 // batches after a shared one; those that waited out half the delay
	for i := 1; i < len(commits); i++ {
		if commits[i-1].size > 1 {
			shared++
			if commits[i].start.Sub(commits[i-1].end) >= delay/2 {
				waited++
			}
		}
	}
	// One wait is allowed: a writer one round ahead of the others ends
	// first, and the batch that answered its last write waits for it.
	if shared < 3 || waited > 1 {
		t.Errorf("%d of %d batches after a shared one waited out the delay (batches %v)", waited, shared, sizes(commits))
	}
}

// CommitBatch caps what a runner waits for: after a shared batch of
// writers that do not come back, CommitBatch new writes start the next
// batch long before the delay is out.
func TestCommitBatch(t *testing.T) {
	const delay = time.Second
	var mu sync.Mutex
	shared := false
	s := openStore(t, pg.Database(t), Options{CommitDelay: delay, CommitBatch: 2, OnCommit: func(batch int, _ time.Duration) {
		mu.Lock()
		shared = shared || batch > 1
		mu.Unlock()
	}})
	org := createOrg(t, s)
	concurrently := func(prefix string, n int) {
		var wg sync.WaitGroup
		for w := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := setKey(s, org.ID, fmt.Sprint(prefix, w), "K"); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	concurrently("once-", 6) // writers that never come back
	mu.Lock()
	if !shared {
		t.Fatal("6 concurrent writes never shared a batch: nothing to wait after")
	}
	mu.Unlock()
	start := time.Now()
	concurrently("new-", 2)
	if d := time.Since(start); d >= delay/2 {
		t.Errorf("2 new writes took %s with --commit-batch 2: the runner waited for the writers of its last batch", d)
	}
}

// commit is a committed batch: its size and when it ran.
type commit struct {
	size       int
	start, end time.Time
}

// recordCommits runs writers goroutines that each set rounds keys of a
// set of their own, one after the other, through a store with opts, and
// returns the batches that committed them.
func recordCommits(t *testing.T, opts Options, writers, rounds int) []commit {
	t.Helper()
	var mu sync.Mutex
	var commits []commit
	opts.OnCommit = func(batch int, d time.Duration) {
		mu.Lock()
		now := time.Now()
		commits = append(commits, commit{batch, now.Add(-d), now})
		mu.Unlock()
	}
	s := openStore(t, pg.Database(t), opts)
	org := createOrg(t, s)
	mu.Lock()
	commits = nil // the organization's
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
	if n := writes(commits); n != writers*rounds {
		t.Fatalf("%d writes committed, want %d", n, writers*rounds)
	}
	return slices.Clone(commits)
}

func writes(cs []commit) int {
	n := 0
	for _, c := range cs {
		n += c.size
	}
	return n
}

func sizes(cs []commit) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.size
	}
	return out
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// Concurrent declared updates share transactions, and one whose statement
// fails inside a shared transaction fails alone: the others run again on
// their own and commit. Each wave is queued while the runner is held, so
// that it is one batch whatever the scheduler does.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	d := openDriven(t, Options{})
	s, org := d.Store, d.org
	const n, bad = 128, 64 + 17 // two waves of 64; the second has the failing update
	errs := make([]error, n)
	for wave := range 2 {
		release := d.hold(t)
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
		d.queued(t, n/2)
		release()
		wg.Wait()
	}
	d.idle(t)
	if got := fmt.Sprint(d.sizes()); got != "[1 64 1 64]" {
		t.Errorf("batches %s, want [1 64 1 64]: each wave one transaction after the held one", got)
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

// A lone write after a lone write does not wait for the commit delay: the
// runner answers it and, with nothing queued, stops.
func TestCommitDelay(t *testing.T) {
	d := openDriven(t, Options{CommitDelay: time.Hour})
	d.onWait = func(int) { d.expire() } // a wait is the failure; don't make it last
	for i := range 3 {
		if _, err := setKey(d.Store, d.org.ID, "lone", fmt.Sprint("K", i)); err != nil {
			t.Fatal(err)
		}
		d.idle(t)
	}
	if got := d.sizes(); fmt.Sprint(got) != "[1 1 1]" {
		t.Errorf("batches %v, want [1 1 1]", got)
	}
	if w := d.waited(); len(w) > 0 {
		t.Errorf("lone writes waited for the commit delay (waits for %v writes)", w)
	}
}

// After a shared batch a runner waits for the writers it answered, not
// for the delay: writers that send their next write as soon as they are
// answered are batched together again, whichever comes first, the runner
// looking at the queue or the writers writing again. The delay never runs
// out here (the test ends the last wait itself).
func TestCommitDelayWaitsForItsWriters(t *testing.T) {
	const writers, rounds = 4, 3
	for _, first := range []string{"runner", "writers"} {
		t.Run(first+" first", func(t *testing.T) {
			d := openDriven(t, Options{CommitDelay: time.Hour})
			d.most = writers
			// The runner ends the batch of round r (batch r+1, after the
			// held one) and looks at the queue; the writers it answered
			// write round r+1 once back[r+1] is closed.
			back := make([]chan struct{}, rounds+1)
			for r := range back {
				back[r] = make(chan struct{})
			}
			close(back[0])
			batch := 0
			d.onBatch = func(int) {
				batch++
				r := batch - 2 // the round this batch wrote
				if r < 0 || r+1 == rounds {
					return
				}
				if first == "writers" {
					// A busy machine: the writers are back before the
					// runner looks at the queue.
					close(back[r+1])
					if !testenv.Poll(d.holds(writers)) {
						t.Errorf("the writers of round %d never came back", r+1)
					}
				}
			}
			d.onWait = func(want int) {
				// The runner waits: the writers are slower.
				if n := len(d.waited()); first == "runner" && n < rounds {
					close(back[n])
				}
			}
			release := d.hold(t)
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						<-back[r]
						if _, err := setKey(d.Store, d.org.ID, fmt.Sprint("set-", w), fmt.Sprint("K", r)); err != nil {
							t.Error(err)
						}
					}
				}()
			}
			d.queued(t, writers)
			release()
			testenv.Within(t, "the writers' last answers", waitGroupDone(&wg))
			// The batch of the last round waits for writers that are done:
			// the only wait the delay ends.
			testenv.Eventually(t, "the runner waiting after the last round", func() bool { return len(d.waited()) >= wantWaits(first, rounds) })
			d.expire()
			d.idle(t)
			if got, want := fmt.Sprint(d.sizes()), fmt.Sprint(append([]int{1}, slices.Repeat([]int{writers}, rounds)...)); got != want {
				t.Errorf("batches %v, want %v: the writers did not share each round's batch", got, want)
			}
			for i, w := range d.waited() {
				if w != writers {
					t.Errorf("wait %d after a shared batch of %d writers waited for %d writes (waits %v)", i, writers, w, d.waited())
				}
			}
		})
	}
}

// wantWaits is how many times the runner of TestCommitDelayWaitsForItsWriters
// waits: after every round when it looks at the queue before the writers
// are back, after the last one only when they are back first.
func wantWaits(first string, rounds int) int {
	if first == "runner" {
		return rounds
	}
	return 1
}

// CommitBatch caps what a runner waits for: after a shared batch of
// writers that do not come back, CommitBatch new writes start the next
// batch, the delay never running out.
func TestCommitBatch(t *testing.T) {
	d := openDriven(t, Options{CommitDelay: time.Hour, CommitBatch: 2})
	d.most = 2
	concurrently := func(prefix string, n int) chan struct{} {
		var wg sync.WaitGroup
		for w := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := setKey(d.Store, d.org.ID, fmt.Sprint(prefix, w), "K"); err != nil {
					t.Error(err)
				}
			}()
		}
		return waitGroupDone(&wg)
	}
	release := d.hold(t)
	once := concurrently("once-", 6) // writers that never come back
	d.queued(t, 6)
	release()
	testenv.Within(t, "6 concurrent writes", once)
	testenv.Eventually(t, "the runner waiting after the shared batch", func() bool { return len(d.waited()) >= 1 })
	if w := d.waited(); w[0] != 2 {
		t.Errorf("after a shared batch of 6 with CommitBatch 2, the runner waits for %d writes", w[0])
	}
	testenv.Within(t, "2 new writes while the runner waits for 2", concurrently("new-", 2))
	d.expire() // the batch of 2 waits for its writers in turn
	d.idle(t)
	if got := fmt.Sprint(d.sizes()); got != "[1 6 2]" {
		t.Errorf("batches %v, want [1 6 2]", got)
	}
}

// driven is a store whose batch runner a test drives through its seams
// (batchDone, delayTimer): it records every batch and every wait after a
// shared batch, and the commit delay runs out only when the test calls
// expire, or at once when a wait waits for more writes than can come (the
// test fails).
type driven struct {
	*Store
	org  store.Org
	most int // the most writes a wait may wait for (0: any)
	// onBatch and onWait, if set before the first write, run in the
	// runner after each batch and when it starts to wait.
	onBatch func(size int)
	onWait  func(want int)

	mu      sync.Mutex
	batches []int
	waits   []int
	expired chan struct{}
	once    sync.Once
}

func openDriven(t *testing.T, opts Options) *driven {
	t.Helper()
	d := &driven{Store: openStore(t, pg.Database(t), opts), expired: make(chan struct{})}
	done := make(chan struct{})
	close(done)
	d.batchDone = func(n int) {
		d.mu.Lock()
		d.batches = append(d.batches, n)
		d.mu.Unlock()
		if d.onBatch != nil {
			d.onBatch(n)
		}
	}
	d.delayTimer = func(want int) <-chan struct{} {
		d.mu.Lock()
		d.waits = append(d.waits, want)
		d.mu.Unlock()
		if d.most > 0 && want > d.most {
			t.Errorf("the runner waits for %d writes; at most %d can come, it would wait out the delay", want, d.most)
			return done
		}
		if d.onWait != nil {
			d.onWait(want)
		}
		return d.expired
	}
	t.Cleanup(d.expire) // before the store closes
	d.org = createOrg(t, d.Store)
	return d
}

// expire runs the commit delay out: every wait ends, now and later.
func (d *driven) expire() { d.once.Do(func() { close(d.expired) }) }

func (d *driven) sizes() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.batches)
}

func (d *driven) waited() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.waits)
}

// queued waits until n writes are queued.
func (d *driven) queued(t *testing.T, n int) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("%d writes queued", n), d.holds(n))
}

// holds reports whether the queue holds n writes.
func (d *driven) holds(n int) func() bool {
	return func() bool {
		d.bmu.Lock()
		defer d.bmu.Unlock()
		return len(d.pending) == n
	}
}

// idle waits until no runner runs (nothing queued, no wait).
func (d *driven) idle(t *testing.T) {
	t.Helper()
	testenv.Eventually(t, "the batch runner done", func() bool {
		d.bmu.Lock()
		defer d.bmu.Unlock()
		return d.running == 0
	})
}

// hold starts a declared update that keeps the runner in its batch until
// release is called: the writes queued meanwhile share the next batch.
func (d *driven) hold(t *testing.T) (release func()) {
	t.Helper()
	started, held, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var once sync.Once
	ctx := store.WithObjects(context.Background(), store.ObjectKey{OrgID: d.org.ID, Name: "hold"})
	go func() {
		done <- d.Update(ctx, func(context.Context, store.Tx) error {
			once.Do(func() { close(started) })
			<-held
			return nil
		})
	}()
	testenv.Within(t, "the holding update to run", started)
	return func() {
		t.Helper()
		close(held)
		if err := testenv.Within(t, "the holding update's answer", done); err != nil {
			t.Fatal(err)
		}
	}
}

func waitGroupDone(wg *sync.WaitGroup) chan struct{} {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

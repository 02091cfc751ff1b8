package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "platform.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStatusUpdates(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	var orgID int64
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		o, err := tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "us-west"})
		orgID = o.ID
		if err != nil {
			return err
		}
		now := time.Now()
		for i, kind := range []string{"ImagePullSecret", "SecretSet", "SecretSet"} {
			if _, err := tx.PutObject(ctx, store.Object{OrgID: o.ID, Name: fmt.Sprint("o", i), Kind: kind, Region: "us-west", Generation: 1, Version: 1, State: "pending", CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Pending(ctx, "us-west", "ImagePullSecret", 10)
	if err != nil || len(p) != 1 || p[0].Name != "o0" {
		t.Fatalf("pending: %+v %v", p, err)
	}
	if n, err := s.SetStatus(ctx, []store.StatusUpdate{{ObjectID: p[0].ID, Generation: 2, State: "ready"}}); n != 0 || err != nil {
		t.Errorf("stale generation applied: %d %v", n, err)
	}
	if n, err := s.SetStatus(ctx, []store.StatusUpdate{{ObjectID: p[0].ID, Generation: 1, State: "failed", Message: "m"}}); n != 1 || err != nil {
		t.Errorf("status: %d %v", n, err)
	}
	if n, err := s.MarkPendingReady(ctx, "us-west", "SecretSet"); n != 2 || err != nil {
		t.Errorf("mark ready: %d %v", n, err)
	}
	o, _ := s.Object(ctx, orgID, "o0")
	if o.State != "failed" || o.Message != "m" {
		t.Errorf("o0: %s %s", o.State, o.Message)
	}
}

// A failing request inside a batch rolls back only its own writes.
func TestBatchIsolation(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "us-west"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	var wg sync.WaitGroup
	results := make([]error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
				_, err := tx.CreateOrg(ctx, store.Org{Name: fmt.Sprint("org", i), DefaultRegion: "us-west"})
				if err != nil {
					return err
				}
				if i%3 == 0 {
					return boom // after writing: must be rolled back alone
				}
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range results {
		_, gerr := s.Org(ctx, fmt.Sprint("org", i))
		if i%3 == 0 {
			if !errors.Is(err, boom) || !errors.Is(gerr, store.ErrNotFound) {
				t.Errorf("request %d: %v, org lookup %v", i, err, gerr)
			}
		} else if err != nil || gerr != nil {
			t.Errorf("request %d: %v, org lookup %v", i, err, gerr)
		}
	}
	// Versions stay unique and increasing across batches.
	var seen []int64
	for range 3 {
		s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			v, err := tx.NextVersion(ctx)
			seen = append(seen, v)
			return err
		})
	}
	if !(seen[0] < seen[1] && seen[1] < seen[2]) {
		t.Errorf("versions %v", seen)
	}
}

func putObj(t *testing.T, s *Store, orgID int64, name string, keys map[string]int, fail error) error {
	t.Helper()
	return s.Update(context.Background(), func(ctx context.Context, tx store.Tx) error {
		o, err := tx.Object(ctx, orgID, name)
		if errors.Is(err, store.ErrNotFound) {
			now := time.Now()
			o = store.Object{OrgID: orgID, Name: name, Kind: "SecretSet", Region: "us-west", State: "pending", CreatedAt: now, UpdatedAt: now}
		} else if err != nil {
			return err
		}
		o.Keys = keys
		o.Generation++
		if _, err := tx.PutObject(ctx, o); err != nil {
			return err
		}
		return fail
	})
}

func readKeys(t *testing.T, s *Store, orgID int64, name string) map[string]int {
	t.Helper()
	var keys map[string]int
	if err := s.Update(context.Background(), func(ctx context.Context, tx store.Tx) error {
		o, err := tx.Object(ctx, orgID, name)
		keys = o.Keys
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// The writer's object cache never serves a rolled-back write, and sees
// commits made by another process.
func TestObjectCache(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "platform.db")
	s1, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	var orgID int64
	s1.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		o, err := tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "us-west"})
		orgID = o.ID
		return err
	})
	if err := putObj(t, s1, orgID, "x", map[string]int{"A": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := putObj(t, s1, orgID, "x", map[string]int{"B": 1}, errors.New("fail")); err == nil {
		t.Fatal("expected failure")
	}
	if k := readKeys(t, s1, orgID, "x"); len(k) != 1 || k["A"] != 1 {
		t.Errorf("after a failed write: %v", k)
	}
	// Another process writes the same object.
	s2, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := putObj(t, s2, orgID, "x", map[string]int{"C": 3}, nil); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if k := readKeys(t, s1, orgID, "x"); len(k) != 1 || k["C"] != 3 {
		t.Errorf("a commit by another process is not seen: %v", k)
	}
	// A status update invalidates the cached state.
	o, _ := s1.Object(ctx, orgID, "x")
	if n, err := s1.MarkPendingReady(ctx, "us-west", "SecretSet"); n != 1 || err != nil {
		t.Fatalf("mark ready: %d %v", n, err)
	}
	s1.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		got, err := tx.Object(ctx, orgID, "x")
		if err != nil || got.State != "ready" || got.Generation != o.Generation {
			t.Errorf("after MarkPendingReady the writer reads %+v, %v", got, err)
		}
		return nil
	})
	// Delete, then read in the same and in a later batch.
	s1.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		cur, _ := tx.Object(ctx, orgID, "x")
		if err := tx.DeleteObject(ctx, cur.ID); err != nil {
			return err
		}
		if _, err := tx.Object(ctx, orgID, "x"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleted object still read in its transaction: %v", err)
		}
		return nil
	})
	if err := s1.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Object(ctx, orgID, "x")
		return err
	}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted object read later: %v", err)
	}
}

// A batch writes the audit records of its successful requests only, all of
// them, whatever their number (they go out in prepared chunks of 128, 64,
// ... 1 rows).
func TestAuditBatched(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	// The first request holds the writer until the others are queued, so
	// that they commit together in one batch.
	release := make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			<-release
			return tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "a", Action: "merge", Name: "first"})
		})
	}()
	const n = 199
	boom := errors.New("boom")
	var wg sync.WaitGroup
	results := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
				if err := tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "a", Action: "merge", Name: fmt.Sprint("n", i), Keys: []string{"B", "A"}}); err != nil {
					return err
				}
				if i%10 == 3 {
					return boom
				}
				return nil
			})
		}()
	}
	time.Sleep(200 * time.Millisecond) // let the n requests queue
	close(release)
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"first": true}
	for i, err := range results {
		switch {
		case i%10 == 3 && !errors.Is(err, boom):
			t.Fatalf("request %d: got %v, want boom", i, err)
		case i%10 != 3 && err != nil:
			t.Fatalf("request %d: %v", i, err)
		case err == nil:
			want[fmt.Sprint("n", i)] = true
		}
	}
	recs, err := s.Audit(ctx, "o", 1000)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range recs {
		if got[r.Name] {
			t.Errorf("audit record %s written twice", r.Name)
		}
		got[r.Name] = true
		if r.Name != "first" && fmt.Sprint(r.Keys) != "[A B]" {
			t.Errorf("audit record %s: keys %v, want [A B]", r.Name, r.Keys)
		}
	}
	if len(got) != len(want) {
		t.Errorf("audit has %d records, want %d", len(got), len(want))
	}
	for name := range want {
		if !got[name] {
			t.Errorf("audit lacks %s", name)
		}
	}
}

// An update that keeps the state and message writes the rest of the row
// without them; one that changes them (pending again after the provisioner
// made the object ready) writes them, whether the writer knew the row from
// its cache or had to read it.
func TestUpdateState(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	var orgID int64
	s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		o, err := tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "us-west"})
		orgID = o.ID
		return err
	})
	setState := func(state, msg string) {
		t.Helper()
		if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			o, err := tx.Object(ctx, orgID, "x")
			if err != nil {
				return err
			}
			o.State, o.Message = state, msg
			o.Keys = map[string]int{"K": len(state)}
			o.Version++
			_, err = tx.PutObject(ctx, o)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(state, msg string) {
		t.Helper()
		o, err := s.Object(ctx, orgID, "x") // read pool: the database, not the cache
		if err != nil || o.State != state || o.Message != msg || o.Keys["K"] != len(state) {
			t.Fatalf("row %+v, %v; want state %q message %q", o, err, state, msg)
		}
	}
	if err := putObj(t, s, orgID, "x", map[string]int{"K": len("pending")}, nil); err != nil {
		t.Fatal(err)
	}
	setState("pending", "")
	check("pending", "")
	setState("failed", "m1")
	check("failed", "m1")
	setState("failed", "m2")
	check("failed", "m2")
	setState("failed", "m2")
	check("failed", "m2")
	if n, err := s.SetStatus(ctx, []store.StatusUpdate{{ObjectID: mustID(t, s, orgID), Generation: 1, State: "ready"}}); n != 1 || err != nil {
		t.Fatalf("status: %d %v", n, err)
	}
	setState("pending", "")
	check("pending", "")
	if p, err := s.Pending(ctx, "us-west", "SecretSet", 10); err != nil || len(p) != 1 {
		t.Fatalf("pending after a write: %v %v", p, err)
	}
	if n, err := s.MarkPendingReady(ctx, "us-west", "SecretSet"); n != 1 || err != nil {
		t.Fatalf("mark ready: %d %v", n, err)
	}
	setState("pending", "")
	check("pending", "")
	if p, err := s.Pending(ctx, "us-west", "SecretSet", 10); err != nil || len(p) != 1 {
		t.Fatalf("pending after a write: %v %v", p, err)
	}
}

func mustID(t *testing.T, s *Store, orgID int64) int64 {
	t.Helper()
	o, err := s.Object(context.Background(), orgID, "x")
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// Ownership (Managed, ApplySet) is stored, read back through the cache and
// the database, and AppliedObjects selects managed objects of one apply set
// only, including this transaction's own writes.
func TestAppliedObjects(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	var orgID int64
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		o, err := tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "us-west"})
		if err != nil {
			return err
		}
		orgID = o.ID
		now := time.Now()
		for _, x := range []struct {
			name    string
			managed bool
			set     string
		}{{"a", true, ""}, {"b", true, "prod"}, {"c", false, ""}, {"d", true, "prod"}, {"e", false, "prod"}} {
			if _, err := tx.PutObject(ctx, store.Object{OrgID: o.ID, Name: x.name, Kind: "SecretSet", Region: "us-west", Version: 1, Generation: 1, State: "pending", CreatedAt: now, UpdatedAt: now, Managed: x.managed, ApplySet: x.set}); err != nil {
				return err
			}
		}
		got, err := tx.AppliedObjects(ctx, o.ID, "prod")
		if err != nil {
			return err
		}
		if names := objNames(got); fmt.Sprint(names) != "[b d]" {
			return fmt.Errorf("in the writing transaction: %v", names)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(set, want string) {
		t.Helper()
		var got []store.Object
		if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			var err error
			got, err = tx.AppliedObjects(ctx, orgID, set)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if names := fmt.Sprint(objNames(got)); names != want {
			t.Errorf("apply set %q: %s, want %s", set, names, want)
		}
	}
	check("", "[a]")
	check("prod", "[b d]")
	check("other", "[]")
	o, err := s.Object(ctx, orgID, "b")
	if err != nil || !o.Managed || o.ApplySet != "prod" {
		t.Errorf("read back: %+v %v", o, err)
	}
	// An imperative rewrite (Managed false) leaves the set.
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		o, err := tx.Object(ctx, orgID, "d")
		if err != nil {
			return err
		}
		o.Managed, o.ApplySet = false, ""
		_, err = tx.PutObject(ctx, o)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	check("prod", "[b]")
}

func objNames(objs []store.Object) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.Name)
	}
	return out
}

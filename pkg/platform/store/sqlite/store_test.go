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
	"github.com/botkit-dev/botkit/pkg/platform/store/storetest"
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

// The store passes the contract of store.Store.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		path := filepath.Join(t.TempDir(), "platform.db")
		return func(t *testing.T) store.Store {
			s, err := Open(context.Background(), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	})
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

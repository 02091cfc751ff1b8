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
	s, err := Open(ctx, pg.Database(t), Options{OnCommit: func(batch int, _ time.Duration) {
		mu.Lock()
		largest = max(largest, batch)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var org store.Org
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err = tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "r"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
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

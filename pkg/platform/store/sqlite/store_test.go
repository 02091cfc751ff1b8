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

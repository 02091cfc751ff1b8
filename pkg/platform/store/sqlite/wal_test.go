package sqlite

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// walSize is the size of the database's write-ahead log (0 when there is
// none).
func walSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// Under steady writes from many clients, with readers beside them, the
// write-ahead log stays within its bound (it grew without one: 707 MB
// beside a 6 MB database after 20 s of 16 writers), and once writes stop it
// shrinks to nothing. Idle time is driven through the writer's tick seam.
func TestWALBoundedUnderLoad(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DatabaseFile)
	const limit = 1 << 20
	ticks := make(chan time.Time)
	s, err := Open(ctx, path, Options{WALLimit: limit, idleTicks: ticks})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var org store.Org
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err = tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "us-west"})
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// 16 writers of 250 objects of one 1 KiB value each (about 40 MB of
	// log without a bound), and 2 readers, until the writers are done.
	const writers, perWriter = 16, 250
	var maxWAL atomic.Int64
	sample := func() { // in the writers' goroutines: no t.Fatal
		var n int64
		if fi, err := os.Stat(path + "-wal"); err == nil {
			n = fi.Size()
		}
		for m := maxWAL.Load(); n > m && !maxWAL.CompareAndSwap(m, n); m = maxWAL.Load() {
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				val := bytes.Repeat([]byte(rand.Text()), 40) // about 1 KiB
				now := time.Now()
				err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
					id, err := tx.PutObject(ctx, store.Object{OrgID: org.ID, Name: fmt.Sprintf("w%d-%d", w, i), Kind: "SecretSet",
						Region: "us-west", Keys: map[string]int{"K": len(val)}, Version: 1, Generation: 1, State: "ready", CreatedAt: now, UpdatedAt: now})
					if err != nil {
						return err
					}
					return tx.PutValues(ctx, id, []store.Value{{Key: "K", Size: len(val), Ciphertext: val}})
				})
				if err != nil {
					errs <- err
					return
				}
				sample()
			}
		}()
	}
	stopReads := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for i := 0; ; i++ {
				select {
				case <-stopReads:
					return
				default:
				}
				if _, err := s.Object(ctx, org.ID, fmt.Sprintf("w%d-%d", i%writers, i%perWriter)); err != nil && err != store.ErrNotFound {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stopReads)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sample()
	// A commit may take the log past the limit by one batch before the
	// writer checkpoints it, and a checkpoint that a reader's snapshot
	// holds up lets one more batch through before the next try: how many
	// depends on the scheduler (on a loaded machine a reader descheduled
	// with its snapshot open holds up a few; twice the limit was exceeded
	// by 12 KB beside four busy loops). What does not depend on it: the
	// log does not grow with what is written (about 40 MB here without a
	// bound) — four times the limit is the claim, a tenth of that.
	if m := maxWAL.Load(); m > 4*limit {
		t.Errorf("the write-ahead log reached %d bytes under load, want at most %d (four times its limit; %d written)", m, 4*limit, writers*perWriter*1024)
	}
	t.Logf("largest log under load: %d bytes (limit %d)", maxWAL.Load(), limit)

	// Idle: the first tick sees the changes since the previous one, the
	// second truncates the log, and the third is taken only once the
	// writer is done with the second. Between them, a provisioner's poll
	// commits and changes nothing: the store is idle all the same.
	ticks <- time.Time{}
	if _, err := s.MarkPendingReady(ctx, "us-west", "SecretSet"); err != nil {
		t.Fatal(err)
	}
	ticks <- time.Time{}
	ticks <- time.Time{}
	if n := walSize(t, path); n != 0 {
		t.Errorf("the write-ahead log is %d bytes after the writes stopped, want it truncated to 0", n)
	}
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM objects`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != writers*perWriter {
		t.Errorf("%d objects stored, want %d", n, writers*perWriter)
	}
}

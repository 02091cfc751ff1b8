package postgres

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The commit delay's timing claims, measured rather than asserted (the
// tests drive the runner through its seams instead; docs/development.md,
// "Tests and time"):
//   - lone: one writer, one write after the other. No write waits for the
//     delay: ns/op stays far below it, the same for every delay.
//   - writers=8: eight writers that each send their next write as soon as
//     they are answered (a closed loop). Without a delay they split into
//     about two alternating groups (about 4 writes/batch); with one they
//     share one batch (about 8), and the runner does not wait out the
//     delay for them: ns/op stays far below delay/8.
//
// go test ./pkg/platform/store/postgres -run XXX -bench CommitDelay
func BenchmarkCommitDelay(b *testing.B) {
	for _, delay := range []time.Duration{0, time.Millisecond, 50 * time.Millisecond} {
		for _, writers := range []int{1, 8} {
			name := fmt.Sprintf("writers=%d/delay=%s", writers, delay)
			if writers == 1 {
				name = "lone/delay=" + delay.String()
			}
			b.Run(name, func(b *testing.B) { benchWriters(b, writers, delay) })
		}
	}
}

// benchWriters runs b.N writes, spread over writers closed-loop writers of
// a set each, through a store with the commit delay, and reports the
// writes per batch.
func benchWriters(b *testing.B, writers int, delay time.Duration) {
	var batches, writes atomic.Int64
	s := openStore(b, pg.Database(b), Options{CommitDelay: delay, OnCommit: func(n int, _ time.Duration) {
		batches.Add(1)
		writes.Add(int64(n))
	}})
	org := createOrg(b, s)
	var next atomic.Int64
	batches.Store(0)
	writes.Store(0)
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				if _, err := setKey(s, org.ID, fmt.Sprint("set-", w), fmt.Sprint("K", i)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if n := batches.Load(); n > 0 {
		b.ReportMetric(float64(writes.Load())/float64(n), "writes/batch")
	}
}

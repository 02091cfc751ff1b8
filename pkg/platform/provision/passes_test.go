package provision

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// passCounter counts the passes over one region.
type passCounter struct {
	region string
	n      atomic.Int64
}

func (c *passCounter) Pass(region string) {
	if region == c.region {
		c.n.Add(1)
	}
}
func (c *passCounter) Provisioned(string, string, string, int) {}

// markCounter is a store that counts the region's finished
// MarkPendingReady: a pass's marking is over (what is written afterwards
// waits for the next pass).
type markCounter struct {
	store.Store
	region string
	n      atomic.Int64
}

func (s *markCounter) MarkPendingReady(ctx context.Context, region, kind string) (int, error) {
	n, err := s.Store.MarkPendingReady(ctx, region, kind)
	if region == s.region && kind == resources.KindSecretSet {
		s.n.Add(1)
	}
	return n, err
}

// wait is one wait of a worker on its clock: how long it asked for, and
// the channel that ends it.
type wait struct {
	d    time.Duration
	fire chan time.Time
}

// driven is a provisioner's clock in a test's hand: each wait a worker
// starts arrives on the channel, and fires when the test sends on it.
type driven struct {
	waits chan wait
	ctx   context.Context // the workers' (ended at the test's end)
	wg    *sync.WaitGroup
}

// drive gives p's workers the driven clock; the test's cleanup stops them.
func drive(t *testing.T, ctx context.Context, p *Provisioner) driven {
	d := driven{waits: make(chan wait, 1), wg: &sync.WaitGroup{}}
	p.after = func(dur time.Duration) <-chan time.Time {
		w := wait{dur, make(chan time.Time, 1)}
		d.waits <- w
		return w.fire
	}
	var cancel context.CancelFunc
	d.ctx, cancel = context.WithCancel(ctx)
	t.Cleanup(func() { cancel(); d.wg.Wait() })
	return d
}

// The workers' timing, with their clock in the test's hand: a write after
// a quiet spell is provisioned one debounce later; a write right after a
// pass waits out the rest of the interval, and the writes that come
// meanwhile join that one pass instead of a pass each. (What this is worth
// in merges per second is bench/platform's.)
func TestPassTiming(t *testing.T) {
	const region = "us-west"
	ctx := context.Background()
	st, err := sqlite.OpenDir(ctx, t.TempDir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var org store.Org
	if err := st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err = tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: region})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	write := func(name string) {
		t.Helper()
		if err := st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			v, err := tx.NextVersion(ctx)
			if err != nil {
				return err
			}
			_, err = tx.PutObject(ctx, store.Object{OrgID: org.ID, Name: name, Kind: resources.KindSecretSet, Region: region,
				State: resources.StatePending, Version: v, Generation: 1, Keys: map[string]int{}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	pending := func() int {
		t.Helper()
		objs, err := st.Pending(ctx, region, resources.KindSecretSet, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(objs)
	}

	passes := &passCounter{region: region}
	marks := &markCounter{Store: st, region: region}
	p := New(Options{Store: marks, Metrics: passes, PollInterval: 24 * time.Hour})
	var mu sync.Mutex
	now := time.Unix(1_000_000, 0)
	p.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	clock := drive(t, ctx, p)
	waits := clock.waits
	p.Run(clock.ctx, clock.wg, false)
	testenv.Eventually(t, "the worker's first pass", func() bool { return marks.n.Load() == 1 })

	// A lone write after a quiet spell: one debounce.
	advance(time.Minute)
	write("lone")
	p.Wake(region)
	w := testenv.Within(t, "the worker to wait after a wake", waits)
	if w.d != provisionDebounce {
		t.Errorf("after a quiet spell a write waits %s, want the debounce (%s)", w.d, provisionDebounce)
	}
	if n := passes.n.Load(); n != 1 {
		t.Fatalf("%d passes before the wait ended, want 1", n)
	}
	w.fire <- now
	testenv.Eventually(t, "the pass after the lone write", func() bool { return marks.n.Load() == 2 })
	if n, m := passes.n.Load(), pending(); n != 2 || m != 0 {
		t.Errorf("%d passes for the lone write, %d pending after it; want 1 and 0", n-1, m)
	}

	// A stream right after that pass: the first write waits out the
	// interval, the others join its pass.
	write("s0")
	p.Wake(region)
	w = testenv.Within(t, "the worker to wait after a wake", waits)
	if w.d != provisionInterval {
		t.Errorf("right after a pass a write waits %s, want the interval (%s)", w.d, provisionInterval)
	}
	for i := 1; i < 20; i++ {
		write(fmt.Sprint("s", i))
		p.Wake(region)
	}
	if n, m := marks.n.Load(), pending(); n != 2 || m != 20 {
		t.Fatalf("while the worker waits: %d passes, %d pending; want 2 and 20", n, m)
	}
	advance(provisionInterval)
	w.fire <- now
	testenv.Eventually(t, "the pass after the stream", func() bool { return marks.n.Load() == 3 })
	if n, m := passes.n.Load(), pending(); n != 3 || m != 0 {
		t.Errorf("20 writes took %d passes and left %d pending; want 1 and 0", n-2, m)
	}
	// The wakes of the stream's later writes are one more wake: the worker
	// waits out a whole interval again.
	w = testenv.Within(t, "the worker to wait after the stream's wakes", waits)
	if w.d != provisionInterval {
		t.Errorf("right after a pass a wake waits %s, want the interval (%s)", w.d, provisionInterval)
	}
}

// Workers started lazily by a write (the CLI's embedded platform, which
// drains before it exits) wait as woken workers do before their first
// pass: the written region one debounce, the others their tick. None
// passes beside the request that woke it.
func TestLazyStartWaits(t *testing.T) {
	const region = "eu-central"
	ctx := context.Background()
	st, err := sqlite.OpenDir(ctx, t.TempDir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	all := &allPasses{}
	marks := &markCounter{Store: st, region: region}
	p := New(Options{Store: marks, Metrics: all, PollInterval: 24 * time.Hour})
	clock := drive(t, ctx, p)
	waits := clock.waits
	p.Run(clock.ctx, clock.wg, true)
	if n := all.n.Load(); n != 0 {
		t.Fatalf("%d passes before any write, want 0", n)
	}

	p.Wake(region)
	w := testenv.Within(t, "the woken worker to wait", waits)
	if w.d != provisionDebounce {
		t.Errorf("the woken worker waits %s, want the debounce (%s)", w.d, provisionDebounce)
	}
	if n := all.n.Load(); n != 0 {
		t.Fatalf("%d passes when the worker started by the write waits, want 0", n)
	}
	w.fire <- time.Now()
	testenv.Eventually(t, "the woken region's pass", func() bool { return marks.n.Load() == 1 })
	if n := all.n.Load(); n != 1 {
		t.Errorf("%d passes after the debounce, want 1 (the woken region's)", n)
	}
}

// allPasses counts the passes over every region.
type allPasses struct{ n atomic.Int64 }

func (c *allPasses) Pass(string)                             { c.n.Add(1) }
func (c *allPasses) Provisioned(string, string, string, int) {}

// Drain waits for the work under way through the gauge: its channel is
// closed once the count is back to 0, not looked at on a timer.
func TestGaugeZero(t *testing.T) {
	var g gauge
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	if !closed(g.zero()) {
		t.Fatal("an idle gauge's zero channel is open")
	}
	g.Add(1)
	g.Add(1)
	ch := g.zero()
	if closed(ch) {
		t.Fatal("zero channel closed with 2 under way")
	}
	g.Add(-1)
	if closed(ch) {
		t.Fatal("zero channel closed with 1 under way")
	}
	g.Add(-1)
	if !closed(ch) {
		t.Fatal("zero channel still open once nothing is under way")
	}
}

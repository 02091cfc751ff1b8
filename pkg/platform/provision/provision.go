package provision

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/encryption"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Provisioner moves pending objects to ready or failed: one worker per
// region. Secret sets become ready at once (in batches); image pull secrets
// are claimed (store.Store.ClaimPending, so that of several servers sharing
// a database exactly one verifies each) and verified against their
// registry, up to verifyConcurrency at a time per region. Claims are renewed
// while the checks run; a server that dies stops renewing, and another takes
// its objects over when their lease runs out.
type Provisioner struct {
	opts   Options
	log    *slog.Logger
	holder string // this server's name in claims
	wakeCh map[string]chan struct{}
	client *http.Client

	mu       sync.Mutex
	inflight map[int64]bool         // objects being verified
	again    map[int64]store.Object // newer generations claimed meanwhile
	busy     gauge                  // verifications started and not finished

	// start starts the workers (nil: not started by Run); startOnce runs
	// it at Run, or at the first Wake when Run was lazy.
	start     func()
	startOnce sync.Once

	// The workers' clock (time.Now, time.After): a test that drives the
	// passes' timing sets its own before Run.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time

	// The images CheckImage found lately (ImageMemo).
	memoMu sync.Mutex
	memo   map[imageMemoKey]imageMemoEntry
}

// Metrics receives the provisioners' measurements.
type Metrics interface {
	// Pass is one provisioning pass over region's pending objects.
	Pass(region string)
	// Provisioned counts n objects of kind in region that reached state.
	Provisioned(region, kind, state string, n int)
}

// Options configure a Provisioner. Zero durations and counts take the
// defaults documented with platform.Options.
type Options struct {
	Store   store.Store
	Sealer  *encryption.Sealer // to read an image pull secret's credentials
	Metrics Metrics            // nil: nothing is measured
	Logger  *slog.Logger       // nil: nothing is logged
	// Lease is how long a claim lasts without renewal (default 10s).
	Lease time.Duration
	// PollInterval is how often workers look for pending objects when not
	// woken (default 1s).
	PollInterval time.Duration
	// Attempts, RetryDelay and Timeout bound the checks against a registry
	// (defaults 3, 1s doubling, 10s per request).
	Attempts   int
	RetryDelay time.Duration
	Timeout    time.Duration
	// AllowPrivateRegistries lets checks reach loopback and private
	// addresses (link-local and cloud metadata addresses stay blocked).
	AllowPrivateRegistries bool
}

type noMetrics struct{}

func (noMetrics) Pass(string)                             {}
func (noMetrics) Provisioned(string, string, string, int) {}

const verifyConcurrency = 4

// New returns the provisioner of opts.Store; Run starts its workers, Drain
// provisions what is pending now without them.
func New(opts Options) *Provisioner {
	if opts.Lease <= 0 {
		opts.Lease = 10 * time.Second
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Metrics == nil {
		opts.Metrics = noMetrics{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hb := make([]byte, 8)
	_, _ = rand.Read(hb)
	host, _ := os.Hostname()
	p := &Provisioner{opts: opts, log: log, wakeCh: map[string]chan struct{}{}, inflight: map[int64]bool{}, again: map[int64]store.Object{}, holder: fmt.Sprintf("%s/%d/%x", host, os.Getpid(), hb),
		client: newGuardedClient(opts.AllowPrivateRegistries, opts.Timeout), now: time.Now, after: time.After}
	for _, r := range resources.Regions() {
		p.wakeCh[r] = make(chan struct{}, 1)
	}
	return p
}

// Wake tells region's worker that something is pending.
func (p *Provisioner) Wake(region string) {
	if p.start != nil {
		p.startOnce.Do(p.start)
	}
	if ch, ok := p.wakeCh[region]; ok {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// provisionDebounce is how long a woken provisioner waits for more writes
// before its pass; provisionInterval is the least time between the starts of
// two passes woken by writes. A write after a quiet spell is ready in ~25
// ms; under a steady stream of writes a pass every 100 ms marks them ready
// in bulk, instead of a pass (a transaction that locks and rewrites every
// pending row) every 25 ms competing with the writes — on PostgreSQL one per
// replica (bench/platform: 3 replicas 8.6k → 9.4k merges/s).
const (
	provisionDebounce = 25 * time.Millisecond
	provisionInterval = 100 * time.Millisecond
)

// renew extends the claims of the checks in flight every third of the
// lease, until ctx ends.
func (p *Provisioner) renew(ctx context.Context) {
	t := time.NewTicker(p.opts.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p.mu.Lock()
		ids := make([]int64, 0, len(p.inflight))
		for id := range p.inflight {
			ids = append(ids, id)
		}
		p.mu.Unlock()
		if err := p.opts.Store.RenewClaims(ctx, p.holder, ids, p.opts.Lease); err != nil && ctx.Err() == nil {
			p.log.Error("provisioner: renewing claims failed", "error", err.Error())
		}
	}
}

// run is region's worker. Started by Run, it passes at once (what an
// earlier process left pending); started lazily by a write's Wake, it waits
// like any woken worker (the debounce; other regions: their tick or wake),
// so that a short-lived process (a botkit command, which drains before it
// exits) does not run passes beside its own requests and drain.
func (p *Provisioner) run(ctx context.Context, region string, lazy bool) {
	ticker := time.NewTicker(p.opts.PollInterval)
	defer ticker.Stop()
	sem := make(chan struct{}, verifyConcurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	var last time.Time // the start of the last pass
	for wait := lazy; ; wait = false {
		if !wait {
			last = p.now()
			more, _ := p.pass(ctx, region, sem, &wg) // errors are logged
			if more {
				continue
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wakeCh[region]:
			// Coalesce a burst of writes into one pass.
			select {
			case <-ctx.Done():
				return
			case <-p.after(max(provisionDebounce, provisionInterval-p.now().Sub(last))):
			}
		case <-ticker.C:
		}
	}
}

// pass marks the region's pending secret sets ready (for a secret set there
// is nothing to provision beyond the durable write) and starts the
// verification of pending image pull secrets. It reports whether more image
// pull secrets may be waiting, and the store's error if it failed.
func (p *Provisioner) pass(ctx context.Context, region string, sem chan struct{}, wg *sync.WaitGroup) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	p.opts.Metrics.Pass(region)
	n, err := p.opts.Store.MarkPendingReady(ctx, region, resources.KindSecretSet)
	if err != nil {
		if ctx.Err() == nil {
			p.log.Error("provisioner: marking secret sets ready failed", "region", region, "error", err.Error())
		}
		return false, err
	}
	if n > 0 {
		p.opts.Metrics.Provisioned(region, resources.KindSecretSet, resources.StateReady, n)
	}
	// Claim only what can be checked now, so that other servers take the
	// rest.
	free := cap(sem) - len(sem)
	if free <= 0 {
		return false, nil
	}
	// A claim under way counts as a verification under way until the
	// verifications it starts count themselves: drain, which waits for
	// busy to reach 0, must not return between this worker's claim and its
	// verification (the object would stay pending, claimed by a process
	// about to exit).
	p.busy.Add(1)
	defer p.busy.Add(-1)
	objs, err := p.opts.Store.ClaimPending(ctx, region, resources.KindImagePullSecret, p.holder, p.opts.Lease, free)
	if err != nil {
		if ctx.Err() == nil {
			p.log.Error("provisioner: claiming pending objects failed", "region", region, "error", err.Error())
		}
		return false, err
	}
	started := 0
	for _, o := range objs {
		p.mu.Lock()
		if p.inflight[o.ID] {
			// A newer generation of an object being verified: verified
			// by the same goroutine next, under the claim just taken.
			p.again[o.ID] = o
			p.mu.Unlock()
			continue
		}
		p.inflight[o.ID] = true
		p.mu.Unlock()
		sem <- struct{}{} // free > 0 slots were free; only this worker fills them
		started++
		p.busy.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer p.busy.Add(-1)
			defer func() { <-sem }()
			for {
				p.verify(ctx, o)
				p.mu.Lock()
				next, ok := p.again[o.ID]
				delete(p.again, o.ID)
				if !ok || ctx.Err() != nil {
					delete(p.inflight, o.ID)
					p.mu.Unlock()
					return
				}
				p.mu.Unlock()
				o = next
			}
		}()
	}
	return len(objs) == free && started > 0, nil
}

// drainBusyBound is how long drain's writes wait for a lock another
// process holds on the database.
const drainBusyBound = time.Second

// Drain runs passes over every region now until nothing more can be
// claimed, and waits until the verifications it started, and those already
// in flight, are done — or ctx ends (what is unfinished then stays pending,
// its claim lapses, and the next run takes it). It renews its claims while
// it waits, whether or not the workers were started.
func (p *Provisioner) Drain(ctx context.Context) error {
	// Another process holding the database for long keeps the drain
	// waiting a second at most: what is pending stays so for later.
	ctx = store.WithBusyBound(ctx, drainBusyBound)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	go p.renew(rctx)
	sem := make(chan struct{}, verifyConcurrency)
	var wg sync.WaitGroup
regions:
	for _, region := range resources.Regions() {
		for {
			more, err := p.pass(ctx, region, sem, &wg)
			if errors.Is(err, store.ErrBusy) {
				// Another process holds the database: what is pending
				// stays so for the next run (or for that process).
				break regions
			}
			if !more {
				break
			}
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-p.busy.zero():
	case <-ctx.Done():
	}
	return ctx.Err()
}

// gauge counts work under way; zero tells when it is none (Drain waits for
// it at once, where it looked every 10 ms).
type gauge struct {
	mu   sync.Mutex
	n    int64
	idle chan struct{} // closed when n reaches 0; nil: nobody waits
}

func (g *gauge) Add(d int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n += d
	if g.n == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// zero returns a channel closed once the count is 0 (at once if it is).
func (g *gauge) zero() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	return g.idle
}

func (p *Provisioner) verify(ctx context.Context, o store.Object) {
	res := p.check(ctx, o)
	if ctx.Err() != nil {
		return // shutting down: stays pending, retried after restart
	}
	up := store.StatusUpdate{ObjectID: o.ID, Generation: o.Generation, State: resources.StateReady}
	if !res.ok {
		up.State, up.Message = resources.StateFailed, res.message
	}
	n, err := p.opts.Store.SetStatus(ctx, []store.StatusUpdate{up})
	if err != nil {
		if ctx.Err() == nil {
			p.log.Error("provisioner: recording status failed", "object", o.Name, "error", err.Error())
		}
		return
	}
	if n > 0 {
		p.opts.Metrics.Provisioned(o.Region, o.Kind, up.State, 1)
		p.log.Info("provisioned", "kind", o.Kind, "name", o.Name, "region", o.Region, "state", up.State, "message", up.Message)
	}
	p.Wake(o.Region) // a newer generation may be waiting
}

func (p *Provisioner) check(ctx context.Context, o store.Object) verifyResult {
	org, err := p.orgName(ctx, o.OrgID)
	if err != nil {
		return verifyResult{message: "internal error reading the organization"}
	}
	vals, err := p.opts.Store.Values(ctx, o.ID)
	if err != nil {
		return verifyResult{message: "internal error reading the credentials"}
	}
	var b64 []byte
	for _, v := range vals {
		if v.Key == store.CredentialsKey {
			if b64, err = p.opts.Sealer.Open(org, o.Region, o.Name, v.Key, v.Ciphertext); err != nil {
				return verifyResult{message: err.Error()}
			}
		}
	}
	if b64 == nil {
		return verifyResult{message: "no credentials stored"}
	}
	delay := p.opts.RetryDelay
	var res verifyResult
	for attempt := 1; attempt <= p.opts.Attempts; attempt++ {
		res = verifyRegistry(ctx, p.client, o.Host, string(b64))
		if res.ok || !res.retryable || attempt == p.opts.Attempts {
			break
		}
		select {
		case <-ctx.Done():
			return res
		case <-time.After(delay):
		}
		delay *= 2
	}
	if !res.ok && res.retryable {
		res.message = fmt.Sprintf("%s (after %d attempts)", res.message, p.opts.Attempts)
	}
	return res
}

func (p *Provisioner) orgName(ctx context.Context, id int64) (string, error) {
	orgs, err := p.opts.Store.Orgs(ctx)
	if err != nil {
		return "", err
	}
	for _, o := range orgs {
		if o.ID == id {
			return o.Name, nil
		}
	}
	return "", fmt.Errorf("organization %d not found", id)
}

// Run starts the workers (one per region, and the renewal of claims),
// which stop when ctx ends; wg counts them. lazy defers the start to the
// first Wake (a short-lived process that calls Drain before it exits: the
// CLI's embedded platform), and its workers then wait as woken ones do
// before their first pass.
func (p *Provisioner) Run(ctx context.Context, wg *sync.WaitGroup, lazy bool) {
	p.start = func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.renew(ctx)
		}()
		for _, region := range resources.Regions() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.run(ctx, region, lazy)
			}()
		}
	}
	if !lazy {
		p.startOnce.Do(p.start)
	}
}

// Stop makes sure no worker starts from now on (a lazy Run's first Wake
// included). Workers already started stop with Run's ctx.
func (p *Provisioner) Stop() { p.startOnce.Do(func() {}) }

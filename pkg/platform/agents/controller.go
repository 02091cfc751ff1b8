package agents

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The controller: the API stores desired state, and for each region one
// worker — in the process that holds the region (the store's lease, or
// the embedded platform's file lock) — drives the engine toward it. A
// worker is woken by writes (Enqueue), by the engine's events (an agent
// died, was killed for memory, started) and by a periodic resync, the
// safety net for what nothing announced. Work that can take long — pulls,
// stopping agents — runs beside the worker, bounded, and wakes it when
// done: one organization's slow registry holds up no other's agents.

// key names an agent of a region in its queue.
type key struct{ org, name string }

// queue is one region's work: the agents to look at, whether the whole
// region is due, and the wake-up of its worker.
type queue struct {
	mu sync.Mutex
	// dirty: the agents to look at, true when a write asked.
	dirty    map[key]bool
	all      bool
	allAsked bool
	// asked counts the keys added by writes and not yet looked at (what
	// Quiesce waits for; the resync's and the delayed looks are not).
	asked int
	wake  chan struct{}
	// later holds, by agent, the time of the look due later (one at a
	// time: a look that asks for another while one is due earlier adds
	// none).
	later map[key]time.Time
	// idle is signalled whenever the worker has nothing asked left.
	idle chan struct{}
	held bool // this process drives the region
	// looked: the holder has looked at all of the region once.
	looked bool
	// looking: the worker is in the middle of a look (what it does
	// after a rollout's promotion, for one, is that look's).
	looking bool
}

func newQueue() *queue {
	return &queue{dirty: map[key]bool{}, later: map[key]time.Time{}, wake: make(chan struct{}, 1), idle: make(chan struct{}, 1)}
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue) add(k key, asked bool) {
	q.mu.Lock()
	if asked && !q.dirty[k] {
		q.asked++
	}
	q.dirty[k] = q.dirty[k] || asked
	q.mu.Unlock()
	q.signal()
}

func (q *queue) addAll(asked bool) {
	q.mu.Lock()
	if asked && !q.allAsked {
		q.asked++
		q.allAsked = true
	}
	q.all = true
	q.mu.Unlock()
	q.signal()
}

// take empties the queue; asked counts what writes asked for in it.
func (q *queue) take() (keys []key, all bool, asked int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.looking = true
	for k, a := range q.dirty {
		keys = append(keys, k)
		if a {
			asked++
		}
	}
	clear(q.dirty)
	all, q.all = q.all, false
	if q.allAsked {
		asked++
		q.allAsked = false
	}
	return keys, all, asked
}

// done records that n asked keys were looked at.
func (q *queue) done(n int) {
	q.mu.Lock()
	q.asked = max(q.asked-n, 0)
	q.looking = false
	left := q.asked
	q.mu.Unlock()
	if left == 0 {
		select {
		case q.idle <- struct{}{}:
		default:
		}
	}
}

// busy reports whether writes asked for work not done yet (or, with
// touched, whether the holder's first look at the whole region is still
// to come or a look is under way), and whether this process drives the
// region.
func (q *queue) busy(touched bool) (asked, held bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.asked > 0 || touched && (!q.looked || q.looking), q.held
}

// Touch says that this process's requests concern agents: Quiesce then
// also waits for the first look at every region this process drives (a
// command of the embedded platform finishes what an earlier one left —
// a rollout it was killed in, an agent that died — before it exits).
// Commands that never touch agents do not wait for the engine.
func (r *Reconciler) Touch() {
	if r != nil {
		r.touched.Store(true)
	}
}

// Enqueue asks the controller of region to look at org's agent name (a
// write changed what it should run). It never waits.
func (r *Reconciler) Enqueue(region, org, name string) {
	if r == nil {
		return
	}
	if q := r.queues[region]; q != nil {
		q.add(key{org, name}, true)
	}
}

// EnqueueRegion asks the controller of region to look at all of it (an
// agent was deleted: its containers go).
func (r *Reconciler) EnqueueRegion(region string) {
	if r == nil {
		return
	}
	if q := r.queues[region]; q != nil {
		q.addAll(true)
	}
}

// after looks at agent k of region again in d (a rollout settling, a
// pull under way elsewhere).
func (r *Reconciler) after(region string, k key, d time.Duration) {
	q := r.queues[region]
	if q == nil {
		return
	}
	at := time.Now().Add(d)
	q.mu.Lock()
	if due, ok := q.later[k]; ok && !due.After(at) {
		q.mu.Unlock()
		return
	}
	q.later[k] = at
	q.mu.Unlock()
	time.AfterFunc(d, func() {
		q.mu.Lock()
		if q.later[k].Equal(at) {
			delete(q.later, k)
		}
		q.mu.Unlock()
		q.add(k, false)
	})
}

// Run runs the controller until ctx ends: a worker per region with a
// runtime, and a watcher of each engine's events. It returns once they
// have all stopped and the operations under way have ended.
func (r *Reconciler) Run(ctx context.Context) {
	if r == nil {
		return
	}
	r.running = ctx
	var wg sync.WaitGroup
	watched := map[runtime.Runtime][]string{}
	for region, q := range r.queues {
		rt := r.opts.Runtimes[region]
		watched[rt] = append(watched[rt], region)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(ctx, region, rt, q)
		}()
	}
	for rt := range watched {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.watch(ctx, rt)
		}()
	}
	wg.Wait()
	r.ops.wait()
}

// Quiesce waits until the work that writes asked for is done in every
// region this process drives (and the operations it started have ended),
// or ctx ends: a command of the embedded platform leaves the engine as its
// writes asked before it exits. A command that touched agents also waits
// for the look under way (the one that promotes a rollout the command
// waited for goes on to stop the agents it replaced). Looks that are
// merely due later (a rollout settling) are the next process's.
func (r *Reconciler) Quiesce(ctx context.Context) {
	if r == nil {
		return
	}
	// A region that another process drives is that process's to act on
	// (its resync sees this one's writes); one this process is about to
	// drive is waited for, briefly. What an operation asks for when it
	// ends (a pull done: the agents it was for can start) is waited for
	// too, until nothing is left under way.
	for ctx.Err() == nil {
		r.quiesceQueues(ctx)
		done := make(chan struct{})
		go func() { r.ops.wait(); close(done) }()
		select {
		case <-ctx.Done():
			return
		case <-done:
		}
		if !r.pendingLooks() {
			return
		}
	}
}

// pendingLooks reports whether a region this process drives has looks
// queued now (not those due later), when this process touched agents.
func (r *Reconciler) pendingLooks() bool {
	if !r.touched.Load() {
		return false
	}
	for _, q := range r.queues {
		q.mu.Lock()
		pending := q.held && (len(q.dirty) > 0 || q.all || q.looking)
		q.mu.Unlock()
		if pending {
			return true
		}
	}
	return false
}

// quiesceQueues is Quiesce's wait for the queues.
func (r *Reconciler) quiesceQueues(ctx context.Context) {
	for _, q := range r.queues {
		unheld := time.Now()
		for {
			asked, held := q.busy(r.touched.Load())
			if !asked || !held && time.Since(unheld) > time.Second {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-q.idle:
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// watch wakes the controller at each event of rt's agents: the agent's
// region looks at it. A broken stream is opened again after a pause (the
// resync covers what happened meanwhile).
func (r *Reconciler) watch(ctx context.Context, rt runtime.Runtime) {
	for ctx.Err() == nil {
		err := rt.Events(ctx, func(e runtime.Event) {
			if e.Owner.Platform != r.opts.Platform {
				return
			}
			r.poolEvent(e)
			if q := r.queues[e.Owner.Region]; q != nil && e.Owner.Agent != "" {
				q.add(key{e.Owner.Organization, e.Owner.Agent}, false)
			}
		})
		if ctx.Err() != nil {
			return
		}
		r.log.Debug("engine events", "error", errString(err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "stream ended"
	}
	return err.Error()
}

// work is region's worker: it waits until this process drives the region,
// then looks at what is queued, at every wake-up, until ctx ends or the
// region is lost to another replica (then it waits for it again).
func (r *Reconciler) work(ctx context.Context, region string, rt runtime.Runtime, q *queue) {
	for ctx.Err() == nil {
		release, renew, ok := r.hold(ctx, region)
		if !ok {
			continue
		}
		q.mu.Lock()
		q.held = true
		q.mu.Unlock()
		r.log.Info("driving the region's agents", "region", region, "holder", r.opts.Holder)
		r.drive(ctx, region, rt, q, renew)
		q.mu.Lock()
		q.held = false
		q.mu.Unlock()
		release()
	}
}

// drive runs region's queue while this process holds it.
func (r *Reconciler) drive(ctx context.Context, region string, rt runtime.Runtime, q *queue, renew func(context.Context) bool) {
	resync := time.NewTicker(r.opts.Resync)
	defer resync.Stop()
	q.addAll(false) // a new holder looks at everything first
	for {
		keys, all, n := q.take()
		if all {
			err := r.syncRegion(ctx, rt, region)
			if ctx.Err() == nil {
				r.logOnce(key{"", region}, err, "region", region)
			}
			q.mu.Lock()
			q.looked = true
			q.mu.Unlock()
		} else {
			for _, k := range keys {
				r.syncAgent(ctx, rt, region, k)
			}
		}
		q.done(n)
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		case <-resync.C:
			if renew != nil && !renew(ctx) {
				return // another replica holds the region now
			}
			q.addAll(false)
		}
	}
}

// hold makes this process region's controller: the pass lock of the
// embedded platform (waited for), or the store's lease (tried every third
// of its time to live). renew, when not nil, keeps the lease and reports
// whether it still holds.
func (r *Reconciler) hold(ctx context.Context, region string) (release func(), renew func(context.Context) bool, ok bool) {
	if r.opts.PassLock != nil {
		rel, err := r.opts.PassLock(ctx, region)
		if err != nil {
			return nil, nil, false
		}
		return rel, nil, true
	}
	name := LeaseName(region)
	got, err := r.st.AcquireLease(ctx, name, r.opts.Holder, r.opts.LeaseTTL)
	if err != nil || !got {
		if err != nil && ctx.Err() == nil {
			r.log.Warn("taking the reconcile lease", "region", region, "error", err.Error())
		}
		select {
		case <-ctx.Done():
		case <-time.After(r.opts.LeaseTTL / 3):
		}
		return nil, nil, false
	}
	last := time.Now()
	renew = func(ctx context.Context) bool {
		if time.Since(last) < r.opts.LeaseTTL/3 {
			return true
		}
		got, err := r.st.AcquireLease(ctx, name, r.opts.Holder, r.opts.LeaseTTL)
		if err != nil || !got {
			return false
		}
		last = time.Now()
		return true
	}
	release = func() {
		// Given up at once: another replica takes the region over now
		// rather than when the lease runs out.
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.st.ReleaseLease(rctx, name, r.opts.Holder); err != nil {
			r.log.Warn("releasing the reconcile lease", "region", region, "error", err.Error())
		}
	}
	return release, renew, true
}

// syncAgent looks at one agent of region.
func (r *Reconciler) syncAgent(ctx context.Context, rt runtime.Runtime, region string, k key) {
	a, err := r.agentNamed(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		// Deleted: its containers go.
		if err := r.removeOwned(ctx, rt, runtime.Owner{Platform: r.opts.Platform, Organization: k.org, Region: region, Agent: k.name}); err != nil && ctx.Err() == nil {
			r.log.Warn("removing a deleted agent's containers", "org", k.org, "agent", k.name, "error", err.Error())
		}
		return
	}
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("reconcile", "org", k.org, "agent", k.name, "error", err.Error())
		}
		return
	}
	if a.Region != region {
		return
	}
	r.passLogged(ctx, rt, a)
}

// agentNamed reads agent k (store.ErrNotFound when it or its
// organization is gone).
func (r *Reconciler) agentNamed(ctx context.Context, k key) (store.Agent, error) {
	o, err := r.st.Org(ctx, k.org)
	if err != nil {
		return store.Agent{}, err
	}
	a, err := r.st.Agent(ctx, o.ID, k.name)
	a.OrgName = o.Name
	return a, err
}

// passLogged runs a pass over a and logs its error once per change (a pass
// that fails the same way every second says it once).
func (r *Reconciler) passLogged(ctx context.Context, rt runtime.Runtime, a store.Agent) {
	if err := r.pass(ctx, rt, a); ctx.Err() == nil {
		r.noteResult(a, err)
	}
}

// logOnce logs err of what k names when it differs from the last one
// logged for k (and when it is gone).
func (r *Reconciler) logOnce(k key, err error, attrs ...any) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if prev, _ := r.lastErr.Load(k); prev == nil && msg == "" || prev == msg {
		return
	}
	r.lastErr.Store(k, msg)
	if err != nil {
		r.log.Warn("reconcile", append(attrs, "error", msg)...)
	} else {
		r.log.Info("reconcile recovered", attrs...)
	}
}

// syncRegion looks at every agent of region and removes the containers of
// agents that no longer exist; another platform's containers are left
// alone (and said once).
func (r *Reconciler) syncRegion(ctx context.Context, rt runtime.Runtime, region string) error {
	list, err := r.st.RegionAgents(ctx, region)
	if err != nil {
		return err
	}
	known := map[key]bool{}
	for _, a := range list {
		known[key{a.OrgName, a.Name}] = true
		r.passLogged(ctx, rt, a)
	}
	cs, err := r.list(ctx, rt, runtime.Selector{runtime.LabelRegion: region})
	if err != nil {
		return err
	}
	var stray []runtime.Agent
	for _, c := range cs {
		if c.Owner.Platform != r.opts.Platform {
			if _, seen := r.foreign.LoadOrStore(c.ID, true); !seen {
				r.log.Warn("leaving alone a container of another platform", "container", c.Name, "platform", c.Owner.Platform)
			}
			continue
		}
		if !known[key{c.Owner.Organization, c.Owner.Agent}] {
			r.log.Info("removing the container of a deleted agent", "org", c.Owner.Organization, "agent", c.Owner.Agent, "container", c.Name)
			stray = append(stray, c)
		}
	}
	r.removeAsync(rt, stray, "")
	return nil
}

// removeOwned removes every container of owner o.
func (r *Reconciler) removeOwned(ctx context.Context, rt runtime.Runtime, o runtime.Owner) error {
	cs, err := r.list(ctx, rt, runtime.ForOwner(o))
	if err != nil {
		return err
	}
	r.removeAsync(rt, cs, "")
	return nil
}

// ops are the operations the controller runs beside its workers: pulls
// and removals, each bounded, each waking its agent's worker when done.
type ops struct {
	mu       sync.Mutex
	wg       sync.WaitGroup
	removals map[string]bool // container IDs
	pulls    map[string]*pull
}

// pull is an image pull under way (by image and credentials' owner).
type pull struct {
	done  chan struct{}
	err   error
	ended time.Time // set before done is closed
}

// pullFresh is how long a finished pull with credentials answers for the
// registry: a result older than that (the agent it was for started
// otherwise, or went) is not taken for the registry's word on credentials
// written since; the registry is asked again.
const pullFresh = 10 * time.Second

func newOps() *ops { return &ops{removals: map[string]bool{}, pulls: map[string]*pull{}} }

func (o *ops) removing(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.removals[id]
}

func (o *ops) wait() { o.wg.Wait() }

// opTimeout bounds an operation beside the workers; pullTimeout a pull.
const (
	opTimeout   = 2 * time.Minute
	pullTimeout = 10 * time.Minute
)

// removeAsync stops and removes the containers cs beside the worker (their
// stop grace periods run side by side); then the region of each looks at
// its agent again. A container already being removed is left to that.
func (r *Reconciler) removeAsync(rt runtime.Runtime, cs []runtime.Agent, why string) {
	for _, c := range cs {
		r.ops.mu.Lock()
		if r.ops.removals[c.ID] {
			r.ops.mu.Unlock()
			continue
		}
		r.ops.removals[c.ID] = true
		r.pool.drop(c.ID)
		r.ops.wg.Add(1)
		r.ops.mu.Unlock()
		go func() {
			defer r.ops.wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			defer cancel()
			err := rt.Remove(ctx, c.ID, r.opts.Grace)
			if err != nil {
				r.log.Warn("removing an agent", "container", c.Name, "error", err.Error())
			} else if why != "" {
				r.log.Info("removed an agent", "container", c.Name, "why", why)
			}
			r.ops.mu.Lock()
			delete(r.ops.removals, c.ID)
			r.ops.mu.Unlock()
			if q := r.queues[c.Owner.Region]; q != nil {
				q.add(key{c.Owner.Organization, c.Owner.Agent}, false)
			}
		}()
	}
}

// errPulling says that the image is being pulled beside the worker: the
// agent is looked at again when the pull ends.
var errPulling = errors.New("pulling the image")

// pullAsync makes sure image is held by rt: nil when it is, errPulling
// while a pull (started now or before) runs beside the worker, and the
// pull's error once it failed (reported once: the next call pulls again).
// A pull ends with the controller: closing a platform never waits on a
// registry that stalls.
func (r *Reconciler) pullAsync(ctx context.Context, rt runtime.Runtime, a store.Agent, image string, creds *runtime.Credentials) error {
	id := a.OrgName + "\x00" + image
	// With credentials, the registry is asked again: see pulled.
	if creds == nil && held(ctx, rt, image) {
		r.ops.mu.Lock()
		if p := r.ops.pulls[id]; p != nil {
			select {
			case <-p.done:
				delete(r.ops.pulls, id) // its news is the image, held
			default:
			}
		}
		r.ops.mu.Unlock()
		return nil
	}
	r.ops.mu.Lock()
	p := r.ops.pulls[id]
	if p != nil {
		select {
		case <-p.done:
			delete(r.ops.pulls, id)
			if creds == nil || time.Since(p.ended) < pullFresh {
				r.ops.mu.Unlock()
				return r.pulled(ctx, rt, image, p.err)
			}
			// Stale: asked again below.
		default:
			r.ops.mu.Unlock()
			return errPulling
		}
	}
	p = &pull{done: make(chan struct{})}
	r.ops.pulls[id] = p
	r.ops.wg.Add(1)
	r.ops.mu.Unlock()
	k := key{a.OrgName, a.Name}
	region := a.Region
	go func() {
		defer r.ops.wg.Done()
		base := r.running
		if base == nil {
			base = context.Background() // a pass outside Run (tests)
		}
		pctx, cancel := context.WithTimeout(base, pullTimeout)
		defer cancel()
		p.err = rt.Pull(pctx, image, creds)
		if pctx.Err() == context.DeadlineExceeded {
			p.err = &runtime.Error{Reason: runtime.ReasonPullFailed, Message: fmt.Sprintf("the pull of %s took longer than %s", image, pullTimeout)}
		}
		p.ended = time.Now()
		close(p.done)
		if q := r.queues[region]; q != nil {
			q.add(k, false)
		}
	}()
	return errPulling
}

// held reports whether rt holds image (pinned by digest) at that digest.
func held(ctx context.Context, rt runtime.Runtime, image string) bool {
	ref, err := resources.ParseImageRef(image)
	if err != nil || ref.Digest == "" {
		return false
	}
	have, err := rt.ImageDigest(ctx, image)
	return err == nil && have == ref.Digest
}

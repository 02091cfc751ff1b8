package agents

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// The idle agents this process knows, by deployment: what a start claims
// from, so that a warm start asks the engine nothing. The region's
// controller fills it at each look at an agent (the serving deployment's
// agents running, ready, in no session and never in one); a replica that
// does not drive the region fills it with a look of its own when it knows
// none idle. The engine's events keep it fresh on every replica (an agent
// that stopped or went is dropped at once), the controller's resync
// behind them. What it holds is a hint: the store's claim (the container's
// unique index) is what makes a start the agent's only one, and an agent
// known idle here that another replica claimed meanwhile is passed over.

// depKey names a deployment of an agent of a region.
type depKey struct {
	region, org, agent string
	deployment         int64
}

func depKeyOf(a store.Agent, deployment int64) depKey {
	return depKey{a.Region, a.OrgName, a.Name, deployment}
}

// idleAgent is an agent known idle: where it is reached, and whether it
// said it takes a session (GET /readyz answered 200 once).
type idleAgent struct {
	id, endpoint string
	index        int
	takes        bool
	probing      bool
}

type idlePool struct {
	mu    sync.Mutex
	byDep map[depKey]map[string]*idleAgent
	depOf map[string]depKey // by container ID
	// reserved are the agents a start of this process is claiming: no
	// other start of it tries them, and a look does not put them back.
	reserved map[string]bool
	// spent are the agents claimed (here or, as the store said, by
	// another replica), by when: a look that still finds one running (its
	// removal to come) does not offer it again.
	spent map[string]time.Time
}

// spentFor is how long a claimed agent is remembered: longer than any
// look that could still find it idle.
const spentFor = 10 * time.Minute

func newIdlePool() *idlePool {
	return &idlePool{byDep: map[depKey]map[string]*idleAgent{}, depOf: map[string]depKey{}, reserved: map[string]bool{}, spent: map[string]time.Time{}}
}

// set replaces what is known idle of k with cs (each running, ready and
// reachable), keeping what each already said of its readiness; the
// agent's other deployments are forgotten. With ask, it returns the agents
// whose readiness is still to be asked (then marked being asked).
func (p *idlePool) set(k depKey, cs []runtime.Agent, ask bool) []idleAgent {
	p.mu.Lock()
	defer p.mu.Unlock()
	for dk, m := range p.byDep {
		if dk.region == k.region && dk.org == k.org && dk.agent == k.agent && dk != k {
			for id := range m {
				delete(p.depOf, id)
			}
			delete(p.byDep, dk)
		}
	}
	for id, at := range p.spent {
		if time.Since(at) > spentFor {
			delete(p.spent, id)
		}
	}
	old := p.byDep[k]
	m := make(map[string]*idleAgent, len(cs))
	var asked []idleAgent
	for _, c := range cs {
		if _, spent := p.spent[c.ID]; spent || p.reserved[c.ID] {
			continue
		}
		ia := old[c.ID]
		if ia == nil || ia.endpoint != c.Endpoint {
			ia = &idleAgent{id: c.ID, endpoint: c.Endpoint, index: c.Index}
		}
		if ask && !ia.takes && !ia.probing {
			ia.probing = true
			asked = append(asked, *ia)
		}
		m[c.ID] = ia
		p.depOf[c.ID] = k
	}
	for id := range old {
		if m[id] == nil {
			delete(p.depOf, id)
		}
	}
	p.byDep[k] = m
	return asked
}

// add records cs, just started for k, as idle agents whose readiness is
// to be asked, and returns those (then marked being asked).
func (p *idlePool) add(k depKey, cs []runtime.Agent) []idleAgent {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.byDep[k]
	if m == nil {
		m = map[string]*idleAgent{}
		p.byDep[k] = m
	}
	var asked []idleAgent
	for _, c := range cs {
		if c.Endpoint == "" || m[c.ID] != nil || p.reserved[c.ID] {
			continue
		}
		if _, spent := p.spent[c.ID]; spent {
			continue
		}
		ia := &idleAgent{id: c.ID, endpoint: c.Endpoint, index: c.Index, probing: true}
		m[c.ID] = ia
		p.depOf[c.ID] = k
		asked = append(asked, *ia)
	}
	return asked
}

// has reports whether k has an idle agent that said it takes a session.
func (p *idlePool) has(k depKey) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ia := range p.byDep[k] {
		if ia.takes {
			return true
		}
	}
	return false
}

// take reserves the idle agent of k with the lowest index among those
// that said they take a session (ok false: none).
func (p *idlePool) take(k depKey) (idleAgent, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best *idleAgent
	for _, ia := range p.byDep[k] {
		if ia.takes && (best == nil || ia.index < best.index) {
			best = ia
		}
	}
	if best == nil {
		return idleAgent{}, false
	}
	delete(p.byDep[k], best.id)
	delete(p.depOf, best.id)
	p.reserved[best.id] = true
	return *best, true
}

// release ends the reservation of agent ia of k: claimed (gone from the
// pool for good), or put back.
func (p *idlePool) release(k depKey, ia idleAgent, claimed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.reserved, ia.id)
	if claimed {
		p.spent[ia.id] = time.Now()
	}
	if m := p.byDep[k]; !claimed && m != nil && m[ia.id] == nil {
		m[ia.id] = &ia
		p.depOf[ia.id] = k
	}
}

// notTaking returns k's idle agents that have not said they take a
// session: nobody asked yet (a replica that does not drive the region
// learnt of them by its own look), or the last ask said no and the next
// waits (askReady's pauses), the lowest index first.
func (p *idlePool) notTaking(k depKey) []idleAgent {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []idleAgent
	for _, ia := range p.byDep[k] {
		if !ia.takes {
			out = append(out, *ia)
		}
	}
	slices.SortFunc(out, func(x, y idleAgent) int { return x.index - y.index })
	return out
}

// asking reports whether agent id is known idle and being asked.
func (p *idlePool) asking(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k, ok := p.depOf[id]; ok {
		if ia := p.byDep[k][id]; ia != nil {
			return ia.probing
		}
	}
	return false
}

// answered records what agent id said of its readiness.
func (p *idlePool) answered(id string, takes bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k, ok := p.depOf[id]; ok {
		if ia := p.byDep[k][id]; ia != nil {
			ia.takes, ia.probing = takes, false
		}
	}
}

// drop forgets agent id (stopped, removed, claimed elsewhere).
func (p *idlePool) drop(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k, ok := p.depOf[id]; ok {
		delete(p.byDep[k], id)
		delete(p.depOf, id)
	}
}

// fillPool records what a look at agent a found idle of its serving
// deployment: byDep its containers by deployment (those whose session
// ended left out), used the containers a session ever named, inSession
// those in a live one. The agents not yet asked are asked whether they
// take a session, beside the look.
func (r *Reconciler) fillPool(a store.Agent, byDep map[int64][]runtime.Agent, used map[string]bool) {
	if r.opts.Caller == nil || a.Serving == 0 {
		return
	}
	var idle []runtime.Agent
	for _, c := range byDep[a.Serving] {
		if r.idleNow(c) && !used[c.ID] {
			idle = append(idle, c)
		}
	}
	r.askReady(r.pool.set(depKeyOf(a, a.Serving), idle, true))
}

// poolStarted records agents cs, just started for deployment n of agent
// a, in the pool when n serves (asked at once whether they take a
// session): a start finds them without a look at the engine, whose list
// waits while containers are being stopped.
func (r *Reconciler) poolStarted(a store.Agent, n int64, cs []runtime.Agent) {
	if r.opts.Caller == nil || a.Serving == 0 || n != a.Serving {
		return
	}
	r.askReady(r.pool.add(depKeyOf(a, n), cs))
}

// idleNow reports whether container c may be idle: running, ready,
// reachable, not being removed, not claimed by this process.
func (r *Reconciler) idleNow(c runtime.Agent) bool {
	if !ready(c) || c.Endpoint == "" || r.ops.removing(c.ID) {
		return false
	}
	_, claimed := r.endpoints.Load(c.ID)
	return !claimed
}

// askReady asks each agent of ask, at once and beside the caller, whether
// it takes a session: again and again for a while when it says no (an
// agent just started serves its /readyz a moment later), while it is
// known idle; the controller's next look asks again after that.
func (r *Reconciler) askReady(ask []idleAgent) {
	for _, ia := range ask {
		id, endpoint := ia.id, ia.endpoint
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), askFor)
			defer cancel()
			wait := askFirst
			for {
				if r.opts.Caller.Takes(ctx, endpoint) {
					r.pool.answered(id, true)
					return
				}
				select {
				case <-ctx.Done():
					r.pool.answered(id, false)
					return
				case <-time.After(wait):
				}
				if !r.pool.asking(id) {
					return // claimed, stopped or gone meanwhile
				}
				wait = min(2*wait, askFor/4)
			}
		}()
	}
}

// askFirst is the first pause of askReady between two asks; askFor how
// long it asks.
const (
	askFirst = 20 * time.Millisecond
	askFor   = 5 * time.Second
)

// lookIdle is a claim's own look at the engine for agent a's serving
// deployment, when this process knows none of its agents idle (it does
// not drive the region, or the pool is empty): what it finds idle is
// recorded.
func (r *Reconciler) lookIdle(ctx context.Context, rt runtime.Runtime, a store.Agent, deployment int64) error {
	cs, err := r.list(ctx, rt, runtime.ForOwner(r.depOwner(a, deployment)))
	if err != nil {
		return err
	}
	var idle []runtime.Agent
	for _, c := range cs {
		if r.idleNow(c) {
			idle = append(idle, c)
		}
	}
	// Their readiness is asked by the claim itself, not beside it.
	r.pool.set(depKeyOf(a, deployment), idle, false)
	return nil
}

// poolEvent keeps the pool fresh at an engine's event: an agent that
// stopped, was killed, went, or changed health is no longer known idle.
func (r *Reconciler) poolEvent(e runtime.Event) {
	switch e.Action {
	case "die", "oom", "destroy", "kill", "health_status":
		r.pool.drop(e.ID)
	}
}

// sharedLooks runs one look at a deployment's idle agents at a time: the
// starts that want one while it runs wait for it and share what it found,
// so that twenty starts waiting for an agent list the engine's containers
// and ask the agents once, not twenty times, every claimLook.
type sharedLooks struct {
	mu sync.Mutex
	m  map[depKey]*sharedLook
}

type sharedLook struct {
	done chan struct{}
	err  error
}

// do runs look for k, or waits for the run of it already under way and
// returns its error; it returns ctx's error once ctx is done. look runs
// without ctx's cancellation (others wait for it; the engine's calls are
// bounded on their own).
func (s *sharedLooks) do(ctx context.Context, k depKey, look func(context.Context) error) error {
	s.mu.Lock()
	l, ok := s.m[k]
	if !ok {
		l = &sharedLook{done: make(chan struct{})}
		if s.m == nil {
			s.m = map[depKey]*sharedLook{}
		}
		s.m[k] = l
		go func() {
			l.err = look(context.WithoutCancel(ctx))
			s.mu.Lock()
			delete(s.m, k)
			s.mu.Unlock()
			close(l.done)
		}()
	}
	s.mu.Unlock()
	select {
	case <-l.done:
		return l.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

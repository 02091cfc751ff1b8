package agents

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Sessions: one call on one agent (container) of an agent's serving
// deployment. A start records the session waiting (a placeholder
// container), then claims one idle, ready agent — the store's unique
// container makes the claim exactly-once across replicas —, or, with none
// idle, has the controller start one (up to maxAgents) and claims it once
// ready. The process that started the session holds the agent's POST /bot
// open for the session's life; its end is the session's end. The
// controller keeps minAgents idle beside the sessions, removes an agent
// whose session ended (one session per agent), fails the sessions whose
// agent died, and ends those past their longest duration.

// Caller speaks the agent side of the session contract to an agent at its
// endpoint (pkg/platform/agentcall, over HTTP: this package has none).
type Caller interface {
	// NotReady reports whether the agent says it takes no session now
	// (GET /readyz answered 503). An agent without /readyz is ready: its
	// rollout's settle time is the only floor.
	NotReady(ctx context.Context, endpoint string) bool
	// Takes reports whether the agent takes a session now: it answers GET
	// /readyz, and not 503. One that does not answer yet (its server still
	// starting) takes none.
	Takes(ctx context.Context, endpoint string) bool
	// StartBot starts the session on the agent (POST /bot) and returns
	// once the agent took it.
	StartBot(ctx context.Context, endpoint string, s BotStart) (BotCall, error)
}

// BotStart is what POST /bot carries.
type BotStart struct {
	ID, Transport      string
	Body               []byte
	MaxSeconds         int
	RoomURL, RoomToken string
	// Sent, when set, is called once the request is sent, if it is.
	Sent func()
}

// BotCall is an open POST /bot: the session in progress.
type BotCall interface {
	Done() <-chan struct{}
	Err() error
	Cancel()
}

// Defaults of the sessions.
const (
	// DefaultClaimTimeout bounds how long a start waits for an agent to
	// become ready (a cold start).
	DefaultClaimTimeout = 2 * time.Minute
	// DefaultIdleWindow: an agent started for a session that then found
	// another (or gave up) is removed once idle this long, when above
	// minAgents.
	DefaultIdleWindow = 5 * time.Minute
	// DefaultMaxSessionSeconds is a session's longest duration when the
	// agent's spec gives none (Pipecat Cloud's two hours).
	DefaultMaxSessionSeconds = 7200
	// RetryAfter is what a start at capacity tells the caller to wait.
	RetryAfter = 5 * time.Second
)

// LabelOnDemand marks an agent started for a session rather than for the
// warm pool (removed after the idle window when unused).
const LabelOnDemand = "dev.botkit.on-demand"

// SessionInput is what a start asks for.
type SessionInput struct {
	Transport          string
	Body               []byte
	RoomURL, RoomToken string
	WSToken            []byte // SHA-256 of the session's one-time websocket token
	// Ended, when not nil, is called once the session this process held
	// has ended (its room deleted).
	Ended func()
}

// NewSessionID returns a new session id: "ses_" and 26 base32 characters
// (128 random bits).
func NewSessionID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // error ignored: crypto/rand.Read never fails (Go 1.24+)
	return "ses_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// calls are the sessions this process holds open, by session id.
type calls struct {
	mu sync.Mutex
	m  map[string]BotCall
}

func (c *calls) put(id string, call BotCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]BotCall{}
	}
	c.m[id] = call
}

func (c *calls) take(id string) BotCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	call := c.m[id]
	delete(c.m, id)
	return call
}

// StartSession starts a session on agent a (of organization org): the
// session recorded waiting, an agent of the serving deployment claimed
// (started on demand when none is idle), its POST /bot sent. It returns
// the session as it is then (active).
func (r *Reconciler) StartSession(ctx context.Context, a store.Agent, id string, in SessionInput) (store.Session, error) {
	if r.opts.Caller == nil {
		return store.Session{}, resources.Errorf(resources.CodeUnprocessable, "this platform starts no sessions")
	}
	rt := r.runtimeOf(a.Region)
	if rt == nil {
		return store.Session{}, r.NoRuntime(a.Region)
	}
	if a.Serving == 0 {
		return store.Session{}, resources.Errorf(resources.CodeUnprocessable, "agent %s has no serving deployment: botkit deploy makes one", a.Name)
	}
	spec, err := SpecOf(a)
	if err != nil {
		return store.Session{}, err
	}
	maxSeconds := int64(spec.MaxSessionSeconds())
	if maxSeconds <= 0 {
		maxSeconds = DefaultMaxSessionSeconds
	}
	now := time.Now().UTC()
	sess := store.Session{ID: id, OrgID: a.OrgID, OrgName: a.OrgName, AgentID: a.ID, Agent: a.Name, Region: a.Region,
		Deployment: a.Serving, Container: store.PendingContainer(id), Transport: in.Transport, State: resources.SessionStarting,
		WSToken: in.WSToken, CreatedAt: now, MaxSeconds: maxSeconds}
	dk := depKeyOf(a, a.Serving)
	r.readyIdle(ctx, rt, a, dk)
	// The capacity, in the transaction that records the session, under
	// the agent's lock (the starts of its sessions one after the other,
	// across replicas): sessions in progress (and waiting) of this agent
	// plus this one stay within maxAgents. The session is recorded on an
	// idle agent this process knows when one is left (the container's
	// unique index refuses one another replica claimed: the next is
	// tried), else waiting for one.
	var got idleAgent
	var claimed bool
	if err := r.st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		if claimed {
			r.pool.release(dk, got, false) // the transaction runs again
			claimed = false
		}
		if _, err := tx.Agent(ctx, a.OrgID, a.Name); err != nil {
			return err
		}
		if max := spec.MaxAgents(); max > 0 {
			n, err := tx.LiveSessionCount(ctx, a.ID)
			if err != nil {
				return err
			}
			if n >= max {
				e := resources.Errorf(resources.CodeAtCapacity, "agent %s is at capacity: its %d agents (maxAgents) are in a session; try again shortly", a.Name, max)
				e.RetryAfter = RetryAfter
				return e
			}
		}
		ia, ok, err := r.tryIdle(dk, func(ia idleAgent) error {
			on := sess
			on.Container = ia.id
			return tx.CreateSession(ctx, on)
		})
		if err != nil || ok {
			got, claimed = ia, ok
			return err
		}
		return tx.CreateSession(ctx, sess)
	}); err != nil {
		if claimed {
			r.pool.release(dk, got, false)
		}
		return store.Session{}, err
	}
	k := key{a.OrgName, a.Name}
	endpoint := got.endpoint
	if claimed {
		sess.Container = got.id
		r.endpoints.Store(got.id, got.endpoint)
		r.pool.release(dk, got, true)
	} else {
		r.Enqueue(a.Region, a.OrgName, a.Name) // an agent started for this session
		var err error
		if sess, endpoint, err = r.claim(ctx, rt, a, sess); err != nil {
			r.endSession(context.WithoutCancel(ctx), sess, resources.SessionFailed, err.Error())
			return store.Session{}, err
		}
	}
	// The agent's restart policy is the engine's "no" since it started:
	// an agent in a session is not started again when it exits (its
	// session is over, and how it ended stays to be seen); an idle one
	// that dies is replaced by the controller.
	var sent func()
	if claimed {
		// The pool is refilled once the agent has its /bot: the
		// controller's look does not compete with the start.
		sent = func() { r.Enqueue(a.Region, a.OrgName, a.Name) }
	}
	call, err := r.opts.Caller.StartBot(ctx, endpoint, BotStart{ID: id, Transport: in.Transport, Body: in.Body,
		MaxSeconds: int(maxSeconds), RoomURL: in.RoomURL, RoomToken: in.RoomToken, Sent: sent})
	if err != nil {
		r.endSession(context.WithoutCancel(ctx), sess, resources.SessionFailed, "the agent refused the session: "+err.Error())
		r.Enqueue(a.Region, a.OrgName, a.Name)
		return store.Session{}, resources.Errorf(resources.CodeUnavailable, "the agent did not take the session: %v", err)
	}
	started := time.Now().UTC()
	sess.State, sess.StartedAt = resources.SessionActive, &started
	if err := r.st.Update(context.WithoutCancel(ctx), func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Session(ctx, sess.OrgID, sess.ID)
		if err != nil || !cur.Live() {
			return err // ended meanwhile (stopped, or its agent died)
		}
		return tx.UpdateSession(ctx, sess)
	}); err != nil {
		call.Cancel()
		return store.Session{}, err
	}
	r.calls.put(id, call)
	r.sessions.Add(1)
	go func() {
		defer r.sessions.Done()
		<-call.Done()
		r.calls.take(id)
		state, reason := resources.SessionEnded, "the agent's session ended"
		if err := call.Err(); err != nil {
			state, reason = resources.SessionFailed, r.howItEnded(rt, a, sess, "the agent's session failed: "+err.Error())
		}
		r.endSession(context.Background(), sess, state, reason)
		r.after(a.Region, k, 0) // its agent goes; the pool is refilled
		if in.Ended != nil {
			in.Ended()
		}
	}()
	r.log.Info("session started", "org", a.OrgName, "agent", a.Name, "session", id, "deployment", sess.Deployment, "container", shortID(sess.Container))
	return sess, nil
}

// howItEnded says why session sess's call failed: how its agent ended when
// the engine shows it stopped (within a few seconds), with its last log
// lines (values masked); else fallback.
func (r *Reconciler) howItEnded(rt runtime.Runtime, a store.Agent, sess store.Session, fallback string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		cs, err := rt.List(ctx, runtime.ForOwner(r.depOwner(a, sess.Deployment)))
		if err != nil {
			return fallback
		}
		for _, c := range cs {
			if c.ID == sess.Container && stopped(c) {
				reason := "its agent " + LastExit(c)
				if lines := r.lastLines(ctx, rt, a, sess, c); lines != "" {
					reason += "\nlast log lines:\n" + lines
				}
				return reason
			}
		}
		select {
		case <-ctx.Done():
			return fallback
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// liveOf returns the live sessions of agent a.
func (r *Reconciler) liveOf(ctx context.Context, a store.Agent) ([]store.Session, error) {
	all, err := r.st.LiveSessions(ctx, a.Region)
	if err != nil {
		return nil, err
	}
	var out []store.Session
	for _, s := range all {
		if s.AgentID == a.ID {
			out = append(out, s)
		}
	}
	return out, nil
}

// claimLook is how often a start waiting for an agent looks again (the
// engine's events wake the controller sooner; a start looks at the engine
// itself).
const claimLook = 100 * time.Millisecond

// readyIdle makes sure this process has an idle agent of deployment dk
// of agent a that said it takes a session, if any (see lookShared).
func (r *Reconciler) readyIdle(ctx context.Context, rt runtime.Runtime, a store.Agent, dk depKey) {
	if r.pool.has(dk) {
		return
	}
	_ = r.lookShared(ctx, rt, a, dk) // error ignored: the claim's own looks say why
}

// lookShared asks the idle agents of dk this process knows whether they
// take a session, and when none does, looks at the engine for more (what
// a replica that does not drive the region learns this way) and asks
// those: one run at a time for dk, shared by the starts that want it. The
// agents known come first: the engine's list waits for any container
// being stopped (a burst of ended sessions), and the controller has most
// often found the agents already.
func (r *Reconciler) lookShared(ctx context.Context, rt runtime.Runtime, a store.Agent, dk depKey) error {
	return r.looks.do(ctx, dk, func(ctx context.Context) error {
		r.askIdle(ctx, dk)
		if r.pool.has(dk) {
			return nil
		}
		if err := r.lookIdle(ctx, rt, a, dk.deployment); err != nil {
			return err
		}
		r.askIdle(ctx, dk)
		return nil
	})
}

// askIdle asks the idle agents of dk that have not said they take a
// session (GET /readyz), all at once, unless one said so already, and
// returns once one says it does or all have answered: the starts that
// share the look may want them all, and an agent still starting may keep
// its ask waiting (its address not up yet) while another is ready. An
// ask still out goes on and records its answer; the next look does not
// ask that agent again meanwhile. An agent whose asks beside the
// controller pause between two (it was starting) is asked now too: a
// start does not wait for the next of those, nor start an agent on demand
// meanwhile; a no from it leaves those asks going.
func (r *Reconciler) askIdle(ctx context.Context, dk depKey) {
	if r.pool.has(dk) {
		return
	}
	var ask []idleAgent
	for _, ia := range r.pool.notTaking(dk) {
		if _, out := r.asks.LoadOrStore(ia.id, true); !out {
			ask = append(ask, ia)
		}
	}
	answers := make(chan bool, len(ask))
	for _, ia := range ask {
		go func() {
			defer r.asks.Delete(ia.id)
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), askOne)
			defer cancel()
			takes := r.opts.Caller.Takes(actx, ia.endpoint)
			if takes || !ia.probing {
				r.pool.answered(ia.id, takes)
			}
			answers <- takes
		}()
	}
	for range ask {
		select {
		case takes := <-answers:
			if takes {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// askOne bounds an ask of askIdle.
const askOne = 5 * time.Second

// tryIdle offers try the idle agents of dk that said they take a session,
// one at a time (reserved while tried), until try records one (ok: still
// reserved, for the caller to release once its write committed) or fails
// (its error). An agent another session named first (store.ErrExists) is
// passed over for good.
func (r *Reconciler) tryIdle(dk depKey, try func(idleAgent) error) (idleAgent, bool, error) {
	for {
		ia, ok := r.pool.take(dk)
		if !ok {
			return idleAgent{}, false, nil
		}
		err := try(ia)
		switch {
		case errors.Is(err, store.ErrExists):
			r.pool.release(dk, ia, true) // another replica's
		case err != nil:
			r.pool.release(dk, ia, false)
			return ia, false, err
		default:
			return ia, true, nil
		}
	}
}

// claim finds session sess, recorded waiting, an idle, ready agent of its
// deployment and names it in the session (the store refuses a container
// named twice): exactly one session per agent, across replicas. It looks
// at the engine until one is ready (a cold start), within ClaimTimeout.
func (r *Reconciler) claim(ctx context.Context, rt runtime.Runtime, a store.Agent, sess store.Session) (store.Session, string, error) {
	wait := r.opts.ClaimTimeout
	deadline := time.Now().Add(wait)
	dk := depKeyOf(a, sess.Deployment)
	for {
		if err := r.lookShared(ctx, rt, a, dk); err != nil {
			return sess, "", err
		}
		claimed := sess
		ia, ok, err := r.tryIdle(dk, func(ia idleAgent) error {
			claimed.Container = ia.id
			return r.st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
				// The agent first: its row lock serializes the claims of
				// its containers (store.SessionTx.UpdateSession).
				if _, err := tx.Agent(ctx, a.OrgID, a.Name); err != nil {
					return err
				}
				cur, err := tx.Session(ctx, sess.OrgID, sess.ID)
				if err != nil {
					return err
				}
				if !cur.Live() {
					return resources.Errorf(resources.CodeConflict, "session %s ended before it had an agent: %s", sess.ID, cur.EndReason)
				}
				return tx.UpdateSession(ctx, claimed)
			})
		})
		if err != nil {
			return sess, "", err
		}
		if ok {
			r.endpoints.Store(ia.id, ia.endpoint)
			r.pool.release(dk, ia, true)
			return claimed, ia.endpoint, nil
		}
		if time.Now().After(deadline) {
			return sess, "", resources.Errorf(resources.CodeUnavailable, "no agent of %s became ready for the session within %s", a.Name, wait)
		}
		select {
		case <-ctx.Done():
			return sess, "", ctx.Err()
		case <-time.After(claimLook):
		}
	}
}

// usedContainers returns the containers of agent a that a session names
// (live or not): an agent serves one session, ever.
func (r *Reconciler) usedContainers(ctx context.Context, a store.Agent) (map[string]bool, error) {
	list, err := r.st.Sessions(ctx, a.ID, sessionWindow)
	if err != nil {
		return nil, err
	}
	used := make(map[string]bool, len(list))
	for _, s := range list {
		used[s.Container] = true
	}
	return used, nil
}

// sessionWindow is how many of an agent's newest sessions the controller
// reads: an agent whose session is older than that was removed long ago.
const sessionWindow = 500

// endSession records sess ended (or failed) with reason, if it is still
// live.
func (r *Reconciler) endSession(ctx context.Context, sess store.Session, state, reason string) {
	ended := time.Now().UTC()
	err := r.st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Session(ctx, sess.OrgID, sess.ID)
		if err != nil || !cur.Live() {
			return err
		}
		cur.State, cur.EndedAt, cur.EndReason, cur.WSToken = state, &ended, reason, nil
		return tx.UpdateSession(ctx, cur)
	})
	r.endpoints.Delete(sess.Container)
	if err != nil {
		r.log.Warn("recording a session's end", "session", sess.ID, "error", err.Error())
		return
	}
	r.log.Info("session ended", "org", sess.OrgName, "agent", sess.Agent, "session", sess.ID, "state", state)
}

// StopSession ends session sess (its caller asked): the call this process
// holds is cancelled, and the controller removes its agent.
func (r *Reconciler) StopSession(ctx context.Context, sess store.Session, reason string) {
	if call := r.calls.take(sess.ID); call != nil {
		call.Cancel()
	}
	r.endSession(ctx, sess, resources.SessionEnded, reason)
	r.Enqueue(sess.Region, sess.OrgName, sess.Agent)
}

// Endpoint returns where the platform reaches the agent of session sess
// (its container's endpoint), or a not-found error when it no longer runs.
func (r *Reconciler) Endpoint(ctx context.Context, sess store.Session) (string, error) {
	rt := r.runtimeOf(sess.Region)
	if rt == nil || sess.Pending() {
		return "", resources.Errorf(resources.CodeNotFound, "session %s has no agent", sess.ID)
	}
	// Known since the claim (or an earlier request): an agent's address
	// does not change while it runs, and the engine is not asked at every
	// proxied request.
	if ep, ok := r.endpoints.Load(sess.Container); ok {
		return ep.(string), nil
	}
	cs, err := rt.List(ctx, runtime.Selector{runtime.LabelOrganization: sess.OrgName, runtime.LabelRegion: sess.Region,
		runtime.LabelAgent: sess.Agent, runtime.LabelDeployment: strconv.FormatInt(sess.Deployment, 10)})
	if err != nil {
		return "", err
	}
	for _, c := range cs {
		if c.ID == sess.Container && c.Endpoint != "" && c.State == runtime.StateRunning {
			r.endpoints.Store(c.ID, c.Endpoint)
			return c.Endpoint, nil
		}
	}
	return "", resources.Errorf(resources.CodeNotFound, "session %s: its agent no longer runs", sess.ID)
}

// superviseSessions is the controller's look at agent a's sessions: those
// waiting too long fail, those whose agent stopped or is gone fail with
// how it ended (and its last log lines, values masked), those past their
// longest duration end. It returns the containers in a live session and
// the number of sessions waiting for an agent.
func (r *Reconciler) superviseSessions(ctx context.Context, rt runtime.Runtime, a store.Agent, cs []runtime.Agent) (inSession map[string]bool, waiting int, used map[string]bool, err error) {
	// The containers ever named first, then the live sessions: a claim
	// that commits between the two reads is seen live, never as a session
	// that ended (its agent would be removed under it).
	if used, err = r.usedContainers(ctx, a); err != nil {
		return nil, 0, nil, err
	}
	live, err := r.liveOf(ctx, a)
	if err != nil {
		return nil, 0, nil, err
	}
	byID := make(map[string]runtime.Agent, len(cs))
	for _, c := range cs {
		byID[c.ID] = c
	}
	inSession = map[string]bool{}
	now := time.Now()
	for _, s := range live {
		if s.Pending() {
			if now.Sub(s.CreatedAt) > r.opts.ClaimTimeout+10*time.Second {
				r.endSession(ctx, s, resources.SessionFailed, "no agent became ready for it in time")
				continue
			}
			waiting++
			continue
		}
		c, ok := byID[s.Container]
		switch {
		case !ok:
			r.endSession(ctx, s, resources.SessionFailed, "its agent is gone")
			continue
		case stopped(c):
			reason := "its agent " + LastExit(c)
			if lines := r.lastLines(ctx, rt, a, s, c); lines != "" {
				reason += "\nlast log lines:\n" + lines
			}
			r.endSession(ctx, s, resources.SessionFailed, reason)
			continue
		case s.StartedAt != nil && s.MaxSeconds > 0 && now.Sub(*s.StartedAt) > time.Duration(s.MaxSeconds)*time.Second:
			if call := r.calls.take(s.ID); call != nil {
				call.Cancel()
			}
			r.endSession(ctx, s, resources.SessionEnded, fmt.Sprintf("its longest duration (%ds) passed", s.MaxSeconds))
			continue
		case s.StartedAt != nil && s.MaxSeconds > 0:
			r.after(a.Region, key{a.OrgName, a.Name}, time.Until(s.StartedAt.Add(time.Duration(s.MaxSeconds)*time.Second))+time.Second)
		}
		inSession[s.Container] = true
	}
	return inSession, waiting, used, nil
}

// lastLines are the last log lines of session s's agent c, every value of
// its deployment masked ("" when they cannot be had or masked).
func (r *Reconciler) lastLines(ctx context.Context, rt runtime.Runtime, a store.Agent, s store.Session, c runtime.Agent) string {
	d, err := r.st.Deployment(ctx, a.ID, s.Deployment)
	if err != nil {
		return ""
	}
	in, err := r.load(ctx, a, d)
	if err != nil {
		return ""
	}
	var lines []string
	_ = rt.Logs(ctx, []runtime.Agent{c}, runtime.LogOptions{Tail: 20}, func(l runtime.LogLine) error { // error ignored: the lines are a courtesy of the reason
		lines = append(lines, in.masker.mask(l.Text))
		return nil
	})
	return strings.Join(lines, "\n")
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

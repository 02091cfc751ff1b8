package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// errNotYet ends a look at a rollout whose agents are not all ready yet.
var errNotYet = errors.New("not ready yet")

// pass is one look at agent a (its region driven by this process): the
// rolling-out deployment moved on by one step, the serving one kept at its
// count (dead agents replaced), every other container of the agent
// removed. What cannot finish now (a pull, a settle time) looks again
// later.
func (r *Reconciler) pass(ctx context.Context, rt runtime.Runtime, a store.Agent) error {
	spec, err := SpecOf(a)
	if err != nil {
		return err
	}
	byDep, err := r.containers(ctx, rt, a)
	if err != nil {
		return err
	}
	rolling := int64(0)
	if a.Latest > a.Serving {
		d, err := r.st.Deployment(ctx, a.ID, a.Latest)
		if err != nil {
			return err
		}
		if d.Result == resources.DeploymentRollingOut {
			done, err := r.rollout(ctx, rt, a, spec, d, byDep[d.Number])
			if err != nil {
				return err
			}
			if done {
				// Promoted or failed: read what it left.
				org := a.OrgName
				if a, err = r.st.Agent(ctx, a.OrgID, a.Name); err != nil {
					return err
				}
				a.OrgName = org
				if byDep, err = r.containers(ctx, rt, a); err != nil {
					return err
				}
			} else {
				rolling = d.Number
			}
		}
	}
	// Sessions: the agents in one stay, whatever their deployment, until
	// it ends; an agent whose session ended goes (one session per agent).
	var all []runtime.Agent
	for _, cs := range byDep {
		all = append(all, cs...)
	}
	inSession, waiting, used, err := r.superviseSessions(ctx, rt, a, all)
	if err != nil {
		return err
	}
	var done []runtime.Agent
	for n, cs := range byDep {
		byDep[n] = slices.DeleteFunc(cs, func(c runtime.Agent) bool {
			if used[c.ID] && !inSession[c.ID] {
				done = append(done, c)
				return true
			}
			return false
		})
	}
	r.removeAsync(rt, done, "its session ended")
	r.fillPool(a, byDep, used)
	if a.Serving > 0 {
		s, err := r.st.Deployment(ctx, a.ID, a.Serving)
		if err != nil {
			return err
		}
		if err := r.scale(ctx, rt, a, spec, s, byDep[s.Number], pool{inSession: inSession, waiting: waiting, rolling: rolling != 0}); err != nil {
			return err
		}
	}
	var stray []runtime.Agent
	for n, cs := range byDep {
		if n != a.Serving && n != rolling {
			for _, c := range cs {
				if !inSession[c.ID] { // a rollout never cuts a call
					stray = append(stray, c)
				}
			}
		}
	}
	r.removeAsync(rt, stray, "not of the serving deployment")
	return nil
}

// pool is what the sessions ask of the serving deployment's agents: the
// containers in a session (of any deployment), and the sessions waiting
// for an agent.
type pool struct {
	inSession map[string]bool
	waiting   int
	// rolling: another deployment is rolling out to take the serving
	// one's place. The serving deployment keeps the agents it has (the
	// dead replaced, sessions served) and is not grown to the new spec's
	// count: the new deployment's agents are those.
	rolling bool
}

// rolloutTimeout bounds a rollout: a deployment whose agents are not ready
// and settled by then fails (its image's pull included).
const rolloutTimeout = 15 * time.Minute

// writeAsked is how long after a deployment's record its rollout starts
// agents of an image the engine holds without asking the registry again:
// the write asked it, with the pull secret's credentials of the moment (a
// deploy resolved the image, a rollback or a restart checked the grant).
// Later starts (a rollout that waited, a scale-up, a replacement) ask.
const writeAsked = time.Minute

// rolloutLook is how often a rolling-out deployment's agents are looked at
// while they come up (the engine's events wake it sooner).
const rolloutLook = 250 * time.Millisecond

// rollout moves a rolling-out deployment d on by one step: its missing
// agents started (never restarted by the engine, so a crash stays
// visible), then one look: a failure fails d (its agents removed), all
// ready and settled promotes it. done reports either.
// rollout moves a rolling-out deployment d on by one step: its missing
// agents started (never restarted by the engine, so a crash stays
// visible), then one look: a failure fails d (its agents removed), all
// ready and settled promotes it. done reports either.
func (r *Reconciler) rollout(ctx context.Context, rt runtime.Runtime, a store.Agent, spec resources.AgentSpec, d store.Deployment, cs []runtime.Agent) (done bool, err error) {
	want := max(spec.MinAgents(), 1) // min 0: one proves the image boots
	owner := r.depOwner(a, d.Number)
	sel := runtime.ForOwner(owner)
	k := key{a.OrgName, a.Name}
	cs = r.dropUnstarted(rt, cs)
	var run *runtimeInput
	if time.Since(d.At) > rolloutTimeout {
		return true, r.fail(ctx, rt, a, d, nil, &runtime.Error{Reason: runtime.ReasonNotReady,
			Message: fmt.Sprintf("its agents were not ready within %s", rolloutTimeout)})
	}
	if len(cs) < want && !hasFailure(cs) {
		run, err = r.load(ctx, a, d)
		if err != nil {
			return r.failLoad(ctx, rt, a, d, err)
		}
		creds := run.creds
		if creds != nil && time.Since(d.At) < writeAsked && held(ctx, rt, d.ImageDigest) {
			creds = nil // the write asked the registry a moment ago
		}
		if err := r.pullAsync(ctx, rt, a, d.ImageDigest, creds); err != nil {
			if errors.Is(err, errPulling) {
				return false, nil // looked at again when the pull ends
			}
			if transient(err) || ctx.Err() != nil {
				r.after(a.Region, k, time.Second)
				return false, err
			}
			return true, r.fail(ctx, rt, a, d, run.masker, err)
		}
		network, err := r.network(ctx, rt)
		if err != nil {
			if transient(err) || ctx.Err() != nil {
				r.after(a.Region, k, time.Second)
				return false, err
			}
			return true, r.fail(ctx, rt, a, d, run.masker, err)
		}
		started, err := rt.Start(ctx, runtime.StartSpec{
			Owner: owner, Image: d.ImageDigest, Env: run.env, Profile: profileOf(d.Profile),
			Restart: runtime.RestartPolicy{Name: runtime.RestartNever}, Network: network,
			Count: want - len(cs), FirstIndex: nextIndex(cs),
		})
		if err != nil {
			r.removeAsync(rt, started, "") // the failure below is the news
			if transient(err) || ctx.Err() != nil {
				r.after(a.Region, k, time.Second)
				return false, err
			}
			return true, r.fail(ctx, rt, a, d, run.masker, err)
		}
		r.log.Info("started agents", "org", a.OrgName, "agent", a.Name, "deployment", d.Number, "count", len(started))
		if r.opts.AfterStart != nil {
			if err := r.opts.AfterStart(ctx, a.OrgName, a.Name, d.Number); err != nil {
				return false, err
			}
		}
	}
	// One look: runtime.WaitReady with no wait.
	up, err := runtime.WaitReady(ctx, rt, sel, want, runtime.Readiness{
		Settle: func(context.Context) error { return nil },
		Poll:   func(context.Context) error { return errNotYet },
	})
	switch {
	case errors.Is(err, errNotYet):
		r.after(a.Region, k, rolloutLook)
		return false, nil
	case err != nil && (transient(err) || ctx.Err() != nil):
		r.after(a.Region, k, time.Second)
		return false, err
	case err != nil:
		cause := err
		if run == nil {
			// A look after the one that started them: the values again,
			// to mask the agents' last lines.
			if run, err = r.load(ctx, a, d); err != nil {
				return r.failLoad(ctx, rt, a, d, err)
			}
		}
		return true, r.fail(ctx, rt, a, d, run.masker, cause)
	}
	// An agent that says it takes no session yet (GET /readyz: 503) is
	// not ready; one without /readyz has the settle time as its floor.
	if r.opts.Caller != nil {
		for _, c := range up {
			if c.Endpoint != "" && r.opts.Caller.NotReady(ctx, c.Endpoint) {
				r.after(a.Region, k, rolloutLook)
				return false, nil
			}
		}
	}
	var last time.Time
	for _, c := range up {
		if c.StartedAt.After(last) {
			last = c.StartedAt
		}
	}
	if wait := time.Until(last.Add(r.opts.Settle)); wait > 0 {
		r.after(a.Region, k, wait)
		return false, nil
	}
	return true, r.promote(ctx, rt, a, spec, d, up)
}

// dropUnstarted removes the containers created but never started (what a
// start cut short left: the platform stopped, the request ended) and
// returns the others; a whole one takes each one's place.
func (r *Reconciler) dropUnstarted(rt runtime.Runtime, cs []runtime.Agent) []runtime.Agent {
	var drop []runtime.Agent
	cs = slices.DeleteFunc(slices.Clone(cs), func(c runtime.Agent) bool {
		if c.State != runtime.StateCreated {
			return false
		}
		drop = append(drop, c)
		return true
	})
	r.removeAsync(rt, drop, "created but never started")
	return cs
}

// hasFailure reports whether a container already failed (the look fails
// the deployment; nothing more is started).
func hasFailure(cs []runtime.Agent) bool {
	return slices.ContainsFunc(cs, func(c runtime.Agent) bool {
		return c.OOMKilled || c.State == runtime.StateExited || c.State == runtime.StateDead || c.Restarts > 0 || c.Health == runtime.HealthUnhealthy
	})
}

// transient reports whether an engine error says nothing of the
// deployment (the engine does not answer): the next pass tries again.
func transient(err error) bool {
	switch runtime.ReasonOf(err) {
	case runtime.ReasonUnreachable:
		return true
	case "":
		return !errors.Is(err, errNotYet)
	}
	return false
}

func nextIndex(cs []runtime.Agent) int {
	n := 0
	for _, c := range cs {
		n = max(n, c.Index+1)
	}
	return n
}

func profileOf(name string) runtime.Profile {
	if p, ok := runtime.LookupProfile(name); ok {
		return p
	}
	p, _ := runtime.LookupProfile(runtime.DefaultProfile)
	return p
}

// fail records d failed with err's reason and its agents' last log lines
// (values masked), and removes its agents: the serving deployment serves
// on, untouched.
func (r *Reconciler) fail(ctx context.Context, rt runtime.Runtime, a store.Agent, d store.Deployment, m *masker, cause error) error {
	msg := cause.Error()
	var re *runtime.Error
	if errors.As(cause, &re) && len(re.LastLines) > 0 {
		msg += "\n" + resources.LastLogLines + "\n" + strings.Join(re.LastLines, "\n")
	}
	msg = m.mask(msg)
	r.log.Info("deployment failed", "org", a.OrgName, "agent", a.Name, "deployment", d.Number, "reason", string(runtime.ReasonOf(cause)))
	now := time.Now().UTC()
	if err := r.st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Deployment(ctx, a.ID, d.Number)
		if err != nil || cur.Result != resources.DeploymentRollingOut {
			return err
		}
		return tx.FinishDeployment(ctx, a.ID, d.Number, resources.DeploymentFailed, msg, now)
	}); err != nil {
		return err
	}
	return r.removeDeployment(ctx, rt, a, d.Number)
}

// failLoad fails d when its inputs cannot be had (a *DeploymentError);
// another error (the store) is the next pass's to retry.
func (r *Reconciler) failLoad(ctx context.Context, rt runtime.Runtime, a store.Agent, d store.Deployment, err error) (bool, error) {
	var de *DeploymentError
	if !errors.As(err, &de) {
		return false, err
	}
	return true, r.fail(ctx, rt, a, d, nil, err)
}

func (r *Reconciler) removeDeployment(ctx context.Context, rt runtime.Runtime, a store.Agent, number int64) error {
	return r.removeOwned(ctx, rt, r.depOwner(a, number))
}

// promote makes d serve: the store records d serving and the previous
// deployment superseded, then, at once, the previous deployment's agents
// stop (new agents up before the old stop). d's agents keep the engine's
// restart policy "no" they started with: the controller replaces an agent
// that dies, and one in a session is not started again. With minAgents 0,
// d's agents stop too once they proved the image boots.
func (r *Reconciler) promote(ctx context.Context, rt runtime.Runtime, a store.Agent, spec resources.AgentSpec, d store.Deployment, up []runtime.Agent) error {
	now := time.Now().UTC()
	prev := int64(0)
	err := r.st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Agent(ctx, a.OrgID, a.Name)
		if err != nil {
			return err
		}
		dd, err := tx.Deployment(ctx, a.ID, d.Number)
		if err != nil {
			return err
		}
		if dd.Result != resources.DeploymentRollingOut || cur.Latest != d.Number {
			return nil // another pass decided already
		}
		if err := tx.FinishDeployment(ctx, a.ID, d.Number, resources.DeploymentServing, "", now); err != nil {
			return err
		}
		if prev = cur.Serving; prev > 0 {
			if err := tx.FinishDeployment(ctx, a.ID, prev, resources.DeploymentSuperseded, "", now); err != nil {
				return err
			}
		}
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		cur.Serving, cur.Version, cur.UpdatedAt = d.Number, v, now
		_, err = tx.PutAgent(ctx, cur)
		return err
	})
	if err != nil {
		return err
	}
	r.log.Info("deployment serving", "org", a.OrgName, "agent", a.Name, "deployment", d.Number, "superseded", prev)
	// The previous deployment's agents go in the rest of this pass (new
	// agents up before the old stop), but those in a session, which finish
	// it; with minAgents 0 this deployment's agents go too, once they
	// proved the image boots (scale).
	if spec.MinAgents() == 0 {
		// Booted: scaled to zero at once (before anyone reads the
		// deployment serving with its proving agent still counted).
		r.removeAsync(rt, up, "scaled to zero once its image booted")
	}
	return nil
}

// stopped reports whether the engine will not run agent c again: it
// exited (or was killed) and its restart policy does not bring it back.
func stopped(c runtime.Agent) bool {
	return c.State == runtime.StateExited || c.State == runtime.StateDead
}

// LastExit says how agent c ended: "OOMKilled", "killed (exit 137)",
// "exited 1", with the time.
func LastExit(c runtime.Agent) string {
	var how string
	switch {
	case c.OOMKilled:
		how = "killed for memory (OOMKilled)"
	case c.ExitCode == 137:
		how = "killed (exit 137)"
	default:
		how = fmt.Sprintf("exited %d", c.ExitCode)
	}
	if !c.FinishedAt.IsZero() {
		how += " at " + c.FinishedAt.UTC().Format(time.RFC3339)
	}
	return how
}

// replacementLabels are the labels of the agent that takes dead's place:
// how many ran in that place before, and how the last one ended.
func replacementLabels(dead runtime.Agent) map[string]string {
	n, _ := strconv.Atoi(dead.Labels[runtime.LabelReplaced]) // 0 when absent
	return map[string]string{
		runtime.LabelReplaced: strconv.Itoa(n + 1 + dead.Restarts),
		runtime.LabelLastExit: LastExit(dead),
	}
}

// scale keeps the serving deployment s's pool: minAgents idle agents
// beside those in a session, and one more for each session waiting for
// one, within maxAgents (agents in a session included). Agents the engine
// will not run again are replaced (each replacement carrying the count and
// the last exit of its place); idle agents above that are removed — at
// once when the pool shrank, after the idle window for those started for a
// session that did not need them.
func (r *Reconciler) scale(ctx context.Context, rt runtime.Runtime, a store.Agent, spec resources.AgentSpec, s store.Deployment, cs []runtime.Agent, p pool) error {
	cs = r.dropUnstarted(rt, cs)
	var idle, busy, dead []runtime.Agent
	for _, c := range cs {
		switch {
		case stopped(c) && !p.inSession[c.ID]:
			dead = append(dead, c)
		case p.inSession[c.ID]:
			busy = append(busy, c)
		case !stopped(c):
			idle = append(idle, c)
		}
	}
	// A dead agent goes once its replacement started (the replacement
	// carries how it ended), or when none is wanted.
	removeDead := func() {
		for _, c := range dead {
			r.log.Info("agent stopped", "org", a.OrgName, "agent", a.Name, "deployment", s.Number, "container", c.Name, "how", LastExit(c))
		}
		r.removeAsync(rt, dead, "stopped")
	}
	floor := spec.MinAgents()
	if p.rolling {
		floor = min(floor, len(idle)+len(dead))
	}
	want := floor + p.waiting
	if max := spec.MaxAgents(); max > 0 {
		want = min(want, max-len(p.inSession))
	}
	want = max(want, 0)
	if len(idle) >= want {
		removeDead()
	}
	switch {
	case len(idle) > want:
		// The pool's own agents go first when it shrank; an agent started
		// for a session waits out the idle window.
		slices.SortFunc(idle, func(x, y runtime.Agent) int {
			if ox, oy := x.Labels[LabelOnDemand] != "", y.Labels[LabelOnDemand] != ""; ox != oy {
				if ox {
					return 1
				}
				return -1
			}
			return y.Index - x.Index
		})
		var extra []runtime.Agent
		for _, c := range idle[:len(idle)-want] {
			if c.Labels[LabelOnDemand] != "" && time.Since(c.StartedAt) < r.opts.IdleWindow {
				r.after(a.Region, key{a.OrgName, a.Name}, time.Until(c.StartedAt.Add(r.opts.IdleWindow)))
				continue
			}
			extra = append(extra, c)
		}
		r.removeAsync(rt, extra, "scaled down")
	case len(idle) < want:
		run, err := r.load(ctx, a, s)
		if err != nil {
			return err
		}
		if err := r.pullAsync(ctx, rt, a, s.ImageDigest, run.creds); err != nil {
			if errors.Is(err, errPulling) {
				return nil
			}
			r.after(a.Region, key{a.OrgName, a.Name}, 5*time.Second)
			return fmt.Errorf("scaling deployment %d: %s", s.Number, run.masker.mask(err.Error()))
		}
		network, err := r.network(ctx, rt)
		if err != nil {
			return err
		}
		base := runtime.StartSpec{Owner: r.depOwner(a, s.Number), Image: s.ImageDigest, Env: run.env, Profile: profileOf(s.Profile),
			Restart: runtime.RestartPolicy{Name: runtime.RestartNever}, Network: network}
		missing := want - len(idle)
		onDemand := max(missing-max(floor-len(idle), 0), 0)
		var errs []error
		started := 0
		next := max(nextIndex(cs), nextIndex(busy))
		for _, c := range dead {
			if missing == 0 {
				break
			}
			one := base
			one.Count, one.FirstIndex, one.Labels = 1, c.Index, replacementLabels(c)
			got, err := rt.Start(ctx, one)
			started += len(got)
			r.poolStarted(a, s.Number, got)
			errs = append(errs, err)
			missing--
		}
		if n := missing - onDemand; n > 0 {
			more := base
			more.Count, more.FirstIndex = n, next
			got, err := rt.Start(ctx, more)
			started += len(got)
			r.poolStarted(a, s.Number, got)
			errs = append(errs, err)
			next += n
		}
		if n := min(onDemand, missing); n > 0 {
			more := base
			more.Count, more.FirstIndex, more.Labels = n, next, map[string]string{LabelOnDemand: "true"}
			got, err := rt.Start(ctx, more)
			started += len(got)
			r.poolStarted(a, s.Number, got)
			errs = append(errs, err)
		}
		r.log.Info("started agents", "org", a.OrgName, "agent", a.Name, "deployment", s.Number, "count", started)
		removeDead()
		if err := errors.Join(errs...); err != nil {
			r.after(a.Region, key{a.OrgName, a.Name}, 5*time.Second)
			return fmt.Errorf("scaling deployment %d: %s", s.Number, run.masker.mask(err.Error()))
		}
	}
	return nil
}

// network is the network agents join: the operator's, else the
// platform's own, made if missing and kept to one of its name before every
// start (two platforms starting on one engine may both have made it; a
// container joining a name two networks have is refused).
func (r *Reconciler) network(ctx context.Context, rt runtime.Runtime) (string, error) {
	if r.opts.Network != "" {
		return r.opts.Network, nil
	}
	if err := rt.EnsureNetwork(ctx, runtime.DefaultNetwork); err != nil {
		return "", err
	}
	return runtime.DefaultNetwork, nil
}

package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// ready reports whether an agent counts as ready: running, and healthy if
// its image has a HEALTHCHECK.
func ready(c runtime.Agent) bool {
	return c.State == runtime.StateRunning && (c.Health == runtime.HealthNone || c.Health == runtime.HealthHealthy)
}

// Status returns agent a's state as the store and the engine show it, and
// its agents (containers), by deployment then index.
func (r *Reconciler) Status(ctx context.Context, a store.Agent) (resources.AgentStatus, []resources.RunningAgent, error) {
	var st resources.AgentStatus
	spec, err := SpecOf(a)
	if err != nil {
		return st, nil, err
	}
	var serving, latest *store.Deployment
	if a.Serving > 0 {
		d, err := r.st.Deployment(ctx, a.ID, a.Serving)
		if err != nil {
			return st, nil, err
		}
		serving = &d
	}
	if a.Latest > 0 {
		d, err := r.st.Deployment(ctx, a.ID, a.Latest)
		if err != nil {
			return st, nil, err
		}
		latest = &d
	}
	var cs []runtime.Agent
	rt := r.runtimeOf(a.Region)
	if rt != nil {
		lctx, cancel := context.WithTimeout(ctx, lookTimeout)
		cs, err = r.list(lctx, rt, runtime.ForOwner(r.ownerOf(a)))
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return st, nil, ctx.Err()
			}
			if runtime.ReasonOf(err) == "" {
				err = &runtime.Error{Reason: runtime.ReasonUnreachable, Err: err}
			}
			return st, nil, err
		}
	}
	running := make([]resources.RunningAgent, 0, len(cs))
	readyOf := map[int64]int{}
	for _, c := range cs {
		n := int64(c.Owner.Deployment)
		if r.ops.removing(c.ID) {
			continue // stopping: no longer counted, nor shown
		}
		if ready(c) {
			readyOf[n]++
		}
		id := c.ID
		if len(id) > 12 {
			id = id[:12]
		}
		replaced, _ := strconv.Atoi(c.Labels[runtime.LabelReplaced]) // 0 when absent
		ra := resources.RunningAgent{Name: c.Name, ID: id, Deployment: n, State: string(c.State),
			Health: string(c.Health), Restarts: c.Restarts + replaced, StartedAt: c.StartedAt, LastExit: c.Labels[runtime.LabelLastExit]}
		if stopped(c) {
			ra.LastExit = LastExit(c)
		}
		running = append(running, ra)
	}
	sort.SliceStable(running, func(i, j int) bool { return running[i].Deployment < running[j].Deployment })
	live, err := r.liveOf(ctx, a)
	if err != nil {
		return st, nil, err
	}
	inSession := map[string]bool{}
	for _, s := range live {
		inSession[s.Container] = true
	}
	// An agent whose session ended is not idle: it takes no other (its
	// removal is under way).
	used, err := r.usedContainers(ctx, a)
	if err != nil {
		return st, nil, err
	}
	pool := &resources.AgentPool{Max: spec.MaxAgents()}
	for _, c := range cs {
		if ready(c) && !r.ops.removing(c.ID) {
			if inSession[c.ID] {
				pool.InSession++
			} else if a.Serving > 0 && int64(c.Owner.Deployment) == a.Serving && !used[c.ID] {
				pool.Idle++
			}
		}
	}
	st.Pool = pool

	var gone *DeploymentError
	if serving != nil {
		if gone, err = r.inputsGone(ctx, a, *serving); err != nil {
			return st, nil, err
		}
		st.Deployment = serving.Number
		st.Image = serving.Image
		st.ImageDigest = resources.DigestOf(serving.ImageDigest)
		st.SecretSetVersion = serving.SecretSetVersion
		st.Agents = resources.AgentCounts{Desired: spec.MinAgents(), Ready: readyOf[serving.Number]}
		if serving.SecretSetName != "" {
			o, err := r.st.Object(ctx, a.OrgID, serving.SecretSetName)
			switch {
			case err == nil && o.Kind == resources.KindSecretSet && serving.SecretSetCreated != 0 && o.CreatedAt.UnixNano() != serving.SecretSetCreated:
				st.Drift = fmt.Sprintf("secret set %s was deleted and created again; deployment %d runs the version %d of the set it replaced: botkit deploy to apply",
					o.Name, serving.Number, serving.SecretSetVersion)
			case err == nil && o.Kind == resources.KindSecretSet && o.Generation > serving.SecretSetVersion:
				st.Drift = fmt.Sprintf("secret set %s is at version %d; deployment %d runs version %d: botkit deploy to apply",
					o.Name, o.Generation, serving.Number, serving.SecretSetVersion)
			case err != nil && !errors.Is(err, store.ErrNotFound):
				return st, nil, err
			}
		}
	}
	switch {
	case latest != nil && latest.Result == resources.DeploymentRollingOut:
		st.State = resources.AgentDeploying
		st.Rollout = latest.Number
		want := max(spec.MinAgents(), 1)
		st.Message = fmt.Sprintf("deployment %d is rolling out: %d of %d agents ready", latest.Number, readyOf[latest.Number], want)
		if readyOf[latest.Number] >= want {
			st.Message += fmt.Sprintf(", settling (%s)", r.opts.Settle)
		}
	case serving != nil && st.Agents.Ready >= st.Agents.Desired:
		st.State = resources.AgentReady
		if st.Agents.Desired == 0 {
			st.Message = "scaled to zero (minAgents 0): the image booted; nothing runs until agents are started on demand"
		}
	case serving != nil:
		st.State = resources.AgentDegraded
		st.Message = fmt.Sprintf("%d of %d agents ready", st.Agents.Ready, st.Agents.Desired)
		if rt == nil {
			st.Message += "; " + r.NoRuntime(a.Region).Message
		}
		if v, ok := r.notes.Load(key{a.OrgName, a.Name}); ok && gone == nil && v.(note).okSince.IsZero() {
			// Why this process's controller starts none (another
			// replica's says it in its log).
			st.Message += ": " + v.(note).msg
		}
	case latest != nil && latest.Result == resources.DeploymentFailed:
		st.State = resources.AgentFailed
		st.Message = fmt.Sprintf("deployment %d failed: %s", latest.Number, latest.Message)
	default:
		st.State = resources.AgentStopped
		if latest == nil {
			st.Message = "no deployment yet: botkit deploy makes one"
		}
	}
	if latest != nil && latest.Result == resources.DeploymentFailed && serving != nil {
		st.Message = fmt.Sprintf("deployment %d failed (deployment %d serves on): %s", latest.Number, serving.Number, latest.Message)
	}
	if gone != nil {
		// Its agents run on, but none can start again, nor their logs
		// be masked.
		what := "no agent of it can be started again nor its logs read"
		if st.Message != "" {
			st.Message = gone.Message + "; " + what + "; " + st.Message
		} else {
			st.Message = gone.Message + "; " + what
		}
	}
	return st, running, nil
}

// followLook is how often a followed log with no running agent looks for
// one.
const followLook = 500 * time.Millisecond

// LogOptions choose the lines of Logs.
type LogOptions struct {
	runtime.LogOptions
	// Session, when set, limits the lines to its agent's (SessionAgent).
	Session *store.Session
}

// SessionAgent returns the agent (container) of session sess among a's:
// an error when the session has none yet (422), or its agent is gone,
// removed with its log lines (422).
func (r *Reconciler) SessionAgent(ctx context.Context, a store.Agent, sess store.Session) (runtime.Agent, error) {
	rt := r.runtimeOf(a.Region)
	if rt == nil {
		return runtime.Agent{}, r.NoRuntime(a.Region)
	}
	if sess.Pending() {
		return runtime.Agent{}, resources.Errorf(resources.CodeUnprocessable, "session %s has no agent yet: it waits for one to be ready", sess.ID)
	}
	cs, err := r.list(ctx, rt, runtime.ForOwner(r.ownerOf(a)))
	if err != nil {
		return runtime.Agent{}, err
	}
	for _, c := range cs {
		if c.ID == sess.Container {
			return c, nil
		}
	}
	why := "it no longer runs"
	if !sess.Live() {
		why = "removed once the session " + sess.State
	}
	return runtime.Agent{}, resources.Errorf(resources.CodeUnprocessable, "the agent of session %s is gone (%s): its log lines went with it", sess.ID, why)
}

// Logs returns the function that writes the log lines of a's agents
// (with opts.Session, of that session's agent only) to fn, every value of the secret set versions their deployments run (and
// their pull secret's credentials) masked before fn sees them. What keeps
// the lines from being masked (a deployment's pinned values gone) is its
// error, before any line: nothing is shown unmasked.
func (r *Reconciler) Logs(ctx context.Context, a store.Agent, opts LogOptions) (func(ctx context.Context, fn func(resources.AgentLogLine) error) error, error) {
	rt := r.runtimeOf(a.Region)
	if rt == nil {
		return nil, r.NoRuntime(a.Region)
	}
	var cs []runtime.Agent
	var err error
	if opts.Session != nil {
		c, err := r.SessionAgent(ctx, a, *opts.Session)
		if err != nil {
			return nil, err
		}
		cs = []runtime.Agent{c}
	} else if cs, err = r.list(ctx, rt, runtime.ForOwner(r.ownerOf(a))); err != nil {
		return nil, err
	}
	m, err := r.logMasker(ctx, a, cs)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, fn func(resources.AgentLogLine) error) error {
		// Followed with no agent: wait for one to start (the controller,
		// or a session, starts it).
		waited := false
		for opts.Session == nil && opts.Follow && !slices.ContainsFunc(cs, func(c runtime.Agent) bool { return c.State == runtime.StateRunning }) {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(followLook):
			}
			if cs, err = r.list(ctx, rt, runtime.ForOwner(r.ownerOf(a))); err != nil {
				return err
			}
			waited = true
		}
		if waited {
			if m, err = r.logMasker(ctx, a, cs); err != nil {
				return err
			}
		}
		if len(cs) == 0 {
			return nil
		}
		return rt.Logs(ctx, cs, opts.LogOptions, func(l runtime.LogLine) error {
			return fn(resources.AgentLogLine{Agent: l.Agent.Name, Stream: string(l.Stream), Time: l.Time, Text: m.mask(l.Text + l.CutMarker())})
		})
	}, nil
}

// logMasker is the masker of the values the deployments of cs run: the
// unprocessable error saying why when a deployment's values are gone.
func (r *Reconciler) logMasker(ctx context.Context, a store.Agent, cs []runtime.Agent) (*masker, error) {
	m := &masker{}
	seen := map[int64]bool{}
	for _, c := range cs {
		n := int64(c.Owner.Deployment)
		if seen[n] {
			continue
		}
		seen[n] = true
		d, err := r.st.Deployment(ctx, a.ID, n)
		if err != nil {
			return nil, fmt.Errorf("deployment %d of agent %s: %w", n, a.Name, err)
		}
		in, err := r.load(ctx, a, d)
		var de *DeploymentError
		if errors.As(err, &de) {
			// Without the values, their lines cannot be masked: none
			// is shown.
			return nil, resources.Errorf(resources.CodeUnprocessable, "the logs of deployment %d cannot be masked: %s", n, de.Message)
		}
		if err != nil {
			return nil, err
		}
		m.merge(in.masker)
	}
	return m, nil
}

package runtime

import (
	"context"
	"time"
)

// Defaults of Readiness.
const (
	// DefaultSettle is how long ready agents must stay up, unrestarted,
	// before a rollout counts them ready.
	DefaultSettle = 3 * time.Second
	// DefaultPoll is the time between two looks at the agents.
	DefaultPoll = 250 * time.Millisecond
	// DefaultLastLines is how many log lines a failure carries.
	DefaultLastLines = 20
)

// Readiness says how WaitReady waits. The zero value waits with the
// defaults; tests give Settle and Poll hooks instead of waiting for time.
type Readiness struct {
	// Settle waits once every agent is up, before the look that confirms
	// none exited or restarted meanwhile. nil: Sleep(DefaultSettle).
	Settle func(context.Context) error
	// Poll waits between two looks while agents are starting. nil:
	// Sleep(DefaultPoll).
	Poll func(context.Context) error
	// LastLines is how many of a failed agent's last log lines its error
	// carries (0: DefaultLastLines).
	LastLines int
	// Then, when set, is given to every agent once ready (see
	// Runtime.SetRestartPolicy).
	Then *RestartPolicy
}

// Sleep returns a wait of d that ends early, with ctx's error, when ctx
// does.
func Sleep(d time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitReady waits until want agents that sel matches are ready: running,
// healthy when their image has a HEALTHCHECK, and still running, not
// restarted, after the settle time. It returns them, or fails as soon as
// one of the agents exits, restarts, is killed for its memory or reported
// unhealthy: an *Error with the agent's exit code and last log lines
// (raw: mask them before they leave the platform).
func WaitReady(ctx context.Context, rt Runtime, sel Selector, want int, r Readiness) ([]Agent, error) {
	settle, poll := r.Settle, r.Poll
	if settle == nil {
		settle = Sleep(DefaultSettle)
	}
	if poll == nil {
		poll = Sleep(DefaultPoll)
	}
	var up []Agent
	for {
		agents, err := rt.List(ctx, sel)
		if err != nil {
			return nil, err
		}
		if err := failure(ctx, rt, agents, r.LastLines); err != nil {
			return nil, err
		}
		if up = ready(agents); len(up) >= want {
			break
		}
		if err := poll(ctx); err != nil {
			return nil, err
		}
	}
	if err := settle(ctx); err != nil {
		return nil, err
	}
	agents, err := rt.List(ctx, sel)
	if err != nil {
		return nil, err
	}
	if err := failure(ctx, rt, agents, r.LastLines); err != nil {
		return nil, err
	}
	now := make(map[string]Agent, len(agents))
	for _, a := range agents {
		now[a.ID] = a
	}
	for _, a := range up {
		b, ok := now[a.ID]
		if !ok {
			return nil, &Error{Reason: ReasonEngine, Agent: a.Name, Message: "the agent's container was removed while it settled"}
		}
		if b.Restarts != a.Restarts || !b.StartedAt.Equal(a.StartedAt) {
			return nil, crashed(ctx, rt, b, r.LastLines)
		}
	}
	if r.Then != nil {
		for _, a := range up {
			if err := rt.SetRestartPolicy(ctx, a.ID, *r.Then); err != nil {
				return nil, err
			}
		}
	}
	return up, nil
}

// ready returns the agents that run and are healthy or have no HEALTHCHECK.
func ready(agents []Agent) []Agent {
	var out []Agent
	for _, a := range agents {
		if a.State == StateRunning && (a.Health == HealthNone || a.Health == HealthHealthy) {
			out = append(out, a)
		}
	}
	return out
}

// failure returns the error of the first failed agent, nil if none failed.
func failure(ctx context.Context, rt Runtime, agents []Agent, lines int) error {
	for _, a := range agents {
		switch {
		case a.OOMKilled, a.State == StateExited, a.State == StateDead, a.State == StateRestarting, a.Restarts > 0:
			return crashed(ctx, rt, a, lines)
		case a.Health == HealthUnhealthy:
			e := &Error{Reason: ReasonUnhealthy, Agent: a.Name, Restarts: a.Restarts}
			e.LastLines = lastLines(ctx, rt, a, lines)
			return e
		}
	}
	return nil
}

func crashed(ctx context.Context, rt Runtime, a Agent, lines int) error {
	e := &Error{Reason: ReasonCrashed, Agent: a.Name, ExitCode: a.ExitCode, Restarts: a.Restarts}
	if a.OOMKilled {
		e.Reason = ReasonOOMKilled
	}
	e.LastLines = lastLines(ctx, rt, a, lines)
	return e
}

// lastLines returns the agent's last n log lines, nil when they cannot be
// read (the failure is reported without them).
func lastLines(ctx context.Context, rt Runtime, a Agent, n int) []string {
	if n <= 0 {
		n = DefaultLastLines
	}
	var out []string
	err := rt.Logs(ctx, []Agent{a}, LogOptions{Tail: n}, func(l LogLine) error {
		out = append(out, l.Text+l.CutMarker())
		return nil
	})
	if err != nil {
		return nil
	}
	return out
}

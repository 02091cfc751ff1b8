package printers

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// An agent's sessions (docs/sessions.md) print as rows: table and wide
// through the object tables' layout, json and yaml as the API's list,
// name as session/ID.

// Column headers of sessions.
var (
	SessionHeader     = []string{"ID", "STATE", "TRANSPORT", "AGENT", "DEPLOYMENT", "STARTED", "DURATION", "END REASON"}
	SessionWideHeader = append(slices.Clone(SessionHeader), "CREATED", "ENDED", "MAX DURATION")
)

// SessionName is how -o name prints a session: session/ID.
func SessionName(id string) string { return "session/" + id }

// SessionRow returns the cells of a session's row (wide: the wide columns
// too): AGENT is the container that runs it, STARTED how long ago its
// agent took it, DURATION how long it lasted (so far, while it lives).
func SessionRow(s resources.Session, now time.Time, wide bool) []string {
	container := s.Container
	if container == "" {
		container = notApplicable // still waiting for an agent
	}
	started := notApplicable
	if s.StartedAt != nil {
		started = Age(s.StartedAt, now) + " ago"
	}
	reason := notApplicable
	if s.EndReason != "" {
		reason = firstLine(s.EndReason)
	}
	deployment := notApplicable
	if s.Deployment > 0 {
		deployment = strconv.FormatInt(s.Deployment, 10)
	}
	r := []string{s.ID, s.State, s.Transport, container, deployment, started, sessionDuration(s, now), reason}
	if wide {
		ended, most := notApplicable, notApplicable
		if s.EndedAt != nil {
			ended = Age(s.EndedAt, now) + " ago"
		}
		if s.MaxSeconds > 0 {
			most = (time.Duration(s.MaxSeconds) * time.Second).String()
		}
		r = append(r, Age(&s.CreatedAt, now)+" ago", ended, most)
	}
	for i := range r {
		r[i] = cell(r[i])
	}
	return r
}

// sessionDuration is how long s lasted: from its agent taking it (or its
// creation, when it never got one) to its end, or to now while it lives.
func sessionDuration(s resources.Session, now time.Time) string {
	from := s.CreatedAt
	if s.StartedAt != nil {
		from = *s.StartedAt
	}
	to := now
	switch {
	case s.EndedAt != nil:
		to = *s.EndedAt
	case s.State == resources.SessionStarting:
		return notApplicable
	}
	return max(to.Sub(from), 0).Round(time.Second).String()
}

// PrintSessions prints an agent's sessions, newest first.
func (f *Flags) PrintSessions(ios *iostreams.IOStreams, ss []resources.Session) error {
	l := resources.SessionList{Items: ss}
	if l.Items == nil {
		l.Items = []resources.Session{}
	}
	now := f.clock()
	header, wide := SessionHeader, f.Output == FormatWide
	if wide {
		header = SessionWideHeader
	}
	rows := make([][]string, 0, len(ss))
	for _, s := range ss {
		if f.Output == FormatName {
			rows = append(rows, []string{SessionName(s.ID)})
			continue
		}
		rows = append(rows, SessionRow(s, now, wide))
	}
	return f.PrintRows(ios, header, rows, l)
}

// PoolLine is how an agent's agents are used, as status shows it: "3 ready
// (1 in a session, 2 idle), max 5".
func PoolLine(p resources.AgentPool) string {
	most := "no max"
	if p.Max > 0 {
		most = fmt.Sprintf("max %d", p.Max)
	}
	return fmt.Sprintf("%d ready (%d in a session, %d idle), %s", p.InSession+p.Idle, p.InSession, p.Idle, most)
}

// agentsCell is status's Agents line: the pool where the region runs
// agents, else ready/desired.
func agentsCell(st *resources.AgentStatus) string {
	if st.Pool != nil {
		return PoolLine(*st.Pool)
	}
	return fmt.Sprintf("%d/%d ready", st.Agents.Ready, st.Agents.Desired)
}

// sessionsCell is the SESSIONS column of an agent: its agents in a
// session (none known where the region runs no agents).
func sessionsCell(st *resources.AgentStatus) string {
	if st.Pool == nil {
		return notApplicable
	}
	return strconv.Itoa(st.Pool.InSession)
}

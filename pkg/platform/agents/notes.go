package agents

import (
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// note is the last problem a pass over an agent logged, and since when
// the passes over it succeed (zero: they fail).
type note struct {
	msg     string
	okSince time.Time
}

// noteQuiet is how long passes over an agent must succeed before the
// problem they had is logged again should it come back: an agent that
// goes while its problem lasts (a pass between its death and its removal
// sees nothing missing) is not said twice.
const noteQuiet = 30 * time.Second

// noteResult logs the problem err of a pass over agent a once: a pass runs
// every second, and a problem that lasts is said when it starts or
// changes, not at every pass.
func (r *Reconciler) noteResult(a store.Agent, err error) {
	k := key{a.OrgName, a.Name}
	v, had := r.notes.Load(k)
	n, _ := v.(note)
	if err == nil {
		if had && n.okSince.IsZero() {
			n.okSince = time.Now()
			r.notes.Store(k, n)
		}
		return
	}
	msg := err.Error()
	if had && n.msg == msg && (n.okSince.IsZero() || time.Since(n.okSince) < noteQuiet) {
		if !n.okSince.IsZero() {
			r.notes.Store(k, note{msg: msg})
		}
		return
	}
	r.notes.Store(k, note{msg: msg})
	r.log.Warn("reconcile", "org", a.OrgName, "agent", a.Name, "error", msg)
}

package manifests

import (
	"fmt"
	"io"
	"strconv"

	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// warnScaling says on w, as botkit deploy does, each existing Agent whose
// scaling the apply changed: "agent/NAME: scaling min 1, no max → min 0,
// no max, from FILE" (a scale made with `cloud agents scale` is set back
// by the file).
func warnScaling(w io.Writer, groups []apply.Group, results []OrgApply) {
	for _, r := range results {
		var g apply.Group
		for _, gg := range groups {
			if gg.Organization == r.Organization {
				g = gg
			}
		}
		for _, it := range r.Result.Items {
			if it.Kind != resources.KindAgent || it.Action != resources.ActionConfigured {
				continue
			}
			d := g.FindKind(resources.KindAgent, it.Name)
			if d == nil || d.Object.Agent == nil {
				continue
			}
			to := d.Object.Agent.Spec.Scaling
			from, changed := scalingBefore(it.Fields, to)
			if !changed {
				continue
			}
			path := d.File
			fmt.Fprintf(w, "%s: %s\n", cloudutil.AgentRef(it.Name), iostreams.Printable(cloudutil.ScalingChange(from, to, path)))
		}
	}
}

// scalingBefore reads an agent's scaling before the apply from its field
// changes (spec.scaling.minAgents and maxAgents, "" when absent), to its
// scaling after it: an unchanged field is to's.
func scalingBefore(fields []resources.FieldChange, to *resources.AgentScaling) (from *resources.AgentScaling, changed bool) {
	minA, maxA := "", ""
	if to != nil {
		minA = strconv.Itoa(to.MinAgents)
		if to.MaxAgents > 0 {
			maxA = strconv.Itoa(to.MaxAgents)
		}
	}
	for _, f := range fields {
		if f.Change == resources.ChangeUnchanged {
			continue
		}
		switch f.Field {
		case "spec.scaling.minAgents":
			minA, changed = f.From, true
		case "spec.scaling.maxAgents":
			maxA, changed = f.From, true
		}
	}
	if !changed || minA == "" {
		return nil, changed
	}
	n, _ := strconv.Atoi(minA) // the platform's numbers
	m, _ := strconv.Atoi(maxA) // "": no max
	return &resources.AgentScaling{MinAgents: n, MaxAgents: m}, true
}

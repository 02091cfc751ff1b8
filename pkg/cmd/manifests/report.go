package manifests

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// orgDiff is the plan of one organization, with what the diff read
// besides: the objects as they are (their labels and owners).
type orgDiff struct {
	OrgApply
	group   apply.Group
	current map[string]resources.Object // by ref (secretset/NAME, agent/NAME)
}

// owner is the apply set that owns the object ref (kind/name) now (""
// none).
func (d orgDiff) owner(ref string) string {
	o, ok := d.current[ref]
	if !ok || o.Meta() == nil || o.Meta().ManagedBy != resources.ManagedByApply {
		return ""
	}
	return o.Meta().ApplySet
}

// planDiff computes, per organization, what apply would do: the objects as
// they are (one list), then the platform's dry run. An object that another
// apply set owns would make apply refuse the request (apply needs that
// --applyset); a diff only reads, so such objects are planned, in a dry run
// of their own, as apply with their apply set would write them, and the
// diff says who owns them. On failure it returns the results so far and the
// group whose request failed.
func planDiff(ctx context.Context, c *client.Client, groups []apply.Group, req applyRequest) ([]orgDiff, apply.Group, error) {
	var out []orgDiff
	for _, g := range groups {
		list, err := c.List(ctx, g.Organization, client.ListOptions{})
		if err != nil {
			return out, g, fmt.Errorf("organization %s: %w", g.Organization, err)
		}
		d := orgDiff{group: g, current: make(map[string]resources.Object, len(list))}
		for _, o := range list {
			if m := o.Meta(); m != nil {
				d.current[printers.Name(o)] = o
			}
		}
		if hasAgents(g) || req.Prune {
			agents, err := c.Agents(ctx, g.Organization, "")
			if err != nil {
				return out, g, fmt.Errorf("organization %s: %w", g.Organization, err)
			}
			for i := range agents {
				d.current[resources.Ref(resources.KindAgent, agents[i].Metadata.Name)] = resources.Object{Agent: &agents[i]}
			}
		}
		// The objects of the diff's apply set, then those of each other
		// apply set that owns some, in manifest order.
		sub := map[string]*apply.Group{req.ApplySet: {Organization: g.Organization}}
		sets := []string{req.ApplySet}
		for _, doc := range g.Documents {
			set := d.owner(doc.Ref())
			if set == "" {
				set = req.ApplySet
			}
			if sub[set] == nil {
				sub[set] = &apply.Group{Organization: g.Organization}
				sets = append(sets, set)
			}
			sub[set].Documents = append(sub[set].Documents, doc)
		}
		items := map[string]resources.ApplyResultItem{} // by ref
		var pruned []resources.ApplyResultItem
		for _, set := range sets {
			sg := *sub[set]
			own := set == req.ApplySet
			if len(sg.Documents) == 0 && !(own && req.Prune) {
				continue
			}
			r := resources.ApplyRequest{Objects: sg.Objects(), ApplySet: set, DryRun: true}
			if own {
				r.Prune, r.Selector = req.Prune, req.Selector
			}
			res, err := c.Apply(ctx, g.Organization, r)
			if err != nil {
				return out, sg, fmt.Errorf("organization %s: %w", g.Organization, err)
			}
			for _, it := range res.Items {
				if it.Action == resources.ActionPruned {
					pruned = append(pruned, it)
				} else {
					items[it.Ref()] = it
				}
			}
		}
		d.OrgApply = OrgApply{Organization: g.Organization, Result: resources.ApplyResult{
			TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindApplyResult},
			DryRun:   true, ApplySet: req.ApplySet}}
		for _, doc := range g.Documents {
			if it, ok := items[doc.Ref()]; ok {
				d.Result.Items = append(d.Result.Items, it)
			}
		}
		d.Result.Items = append(d.Result.Items, pruned...)
		out = append(out, d)
	}
	return out, apply.Group{}, nil
}

// labels returns the labels of the object named name before (had) and
// after (has) the apply the diff plans.
func (d orgDiff) labels(it resources.ApplyResultItem) (had, has map[string]string) {
	if cur, ok := d.current[it.Ref()]; ok && cur.Meta() != nil {
		had = cur.Meta().Labels
	}
	if it.Action == resources.ActionPruned {
		return had, nil
	}
	for _, doc := range d.group.Documents {
		if doc.Ref() == it.Ref() {
			has = doc.Object.Meta().Labels
		}
	}
	return had, has
}

// labelChanges is each label of either side, in name order, with its
// values before and after.
func labelChanges(had, has map[string]string) []resources.LabelChange {
	names := slices.Sorted(maps.Keys(had))
	for k := range has {
		if _, ok := had[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var out []resources.LabelChange
	for _, k := range names {
		from, hadIt := had[k]
		to, hasIt := has[k]
		out = append(out, resources.LabelChange{Label: k, Change: resources.ChangeOf(hadIt, hasIt, from == to), From: from, To: to})
	}
	return out
}

func newReport(dryRun bool, applySet string) resources.ApplyReport {
	return resources.ApplyReport{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindApplyResult},
		DryRun:   dryRun, ApplySet: applySet, Items: []resources.ApplyReportItem{},
	}
}

func reportItem(org string, it resources.ApplyResultItem) resources.ApplyReportItem {
	return resources.ApplyReportItem{Kind: it.Kind, Name: it.Name, Organization: org, Region: it.Region, Action: it.Action,
		ResourceVersion: it.ResourceVersion, Keys: nonNil(it.Keys), Fields: nonNil(it.Fields), Deployment: it.Deployment, Message: it.Message}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// diffReport is diff -o json|yaml: per object and key the plan, never a
// value; label values before and after.
func diffReport(diffs []orgDiff, applySet string) resources.ApplyReport {
	rep := newReport(true, applySet)
	for _, d := range diffs {
		for _, it := range d.Result.Items {
			ri := reportItem(d.Organization, it)
			ri.ApplySet = d.owner(it.Ref())
			had, has := d.labels(it)
			ri.Labels = labelChanges(had, has)
			rep.Items = append(rep.Items, ri)
		}
	}
	return rep
}

// applyReport is apply -o json|yaml: per object its result, version and
// the object after the apply (key names only).
func applyReport(results []OrgApply, applySet string, dryRun bool) (resources.ApplyReport, error) {
	rep := newReport(dryRun, applySet)
	for _, r := range results {
		for _, it := range r.Result.Items {
			ri := reportItem(r.Organization, it)
			if it.Object != nil {
				o, err := printers.Redact(*it.Object)
				if err != nil {
					return rep, err
				}
				ri.Object = &o
				if m := o.Meta(); m != nil {
					ri.ApplySet = m.ApplySet
					if !r.Result.DryRun && it.Action != resources.ActionPruned {
						ri.Version = m.Generation
					}
				}
			}
			rep.Items = append(rep.Items, ri)
		}
	}
	return rep, nil
}

// localReport is apply --dry-run=client -o json|yaml: every object
// validated, the platform not asked; objects with key names only.
func localReport(groups []apply.Group, applySet string) (resources.ApplyReport, error) {
	rep := newReport(true, applySet)
	for _, g := range groups {
		for _, doc := range g.Documents {
			o, err := printers.Redact(doc.Object)
			if err != nil {
				return rep, err
			}
			rep.Items = append(rep.Items, resources.ApplyReportItem{Kind: doc.Kind(), Name: doc.Name(), Organization: g.Organization,
				Region: o.Meta().Region, Action: ActionValidated, Keys: []resources.KeyChange{}, Fields: []resources.FieldChange{}, Object: &o})
		}
	}
	return rep, nil
}

// hasAgents reports whether the group holds an Agent.
func hasAgents(g apply.Group) bool {
	for _, d := range g.Documents {
		if d.Object.Agent != nil {
			return true
		}
	}
	return false
}

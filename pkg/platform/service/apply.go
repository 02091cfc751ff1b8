package service

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/wire"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// objectErrors collects the problems of the objects of one request.
type objectErrors struct {
	list []resources.ObjectError
	noun string // what the request's list holds: "objects" (the default), "values"
}

func (e *objectErrors) add(index int, kind, name string, err error) {
	re, _ := AsError(err) // an unexpected error is "internal error" (the request's own log has it)
	e.list = append(e.list, resources.ObjectError{Index: index, Kind: kind, Name: name, Code: re.Code, Message: re.Message, Field: re.Field})
}

// err returns nil or one error: the status and code of the first problem, a
// message naming it (and how many others there are), and every problem in
// details. verb says what did not happen ("nothing was applied").
func (e *objectErrors) err(verb string) error {
	if len(e.list) == 0 {
		return nil
	}
	slices.SortStableFunc(e.list, func(a, b resources.ObjectError) int { return a.Index - b.Index })
	d := e.list[0]
	noun := e.noun
	if noun == "" {
		noun = "objects"
	}
	where := fmt.Sprintf("%s[%d]", noun, d.Index)
	if d.Name != "" {
		where = resources.Ref(d.Kind, d.Name)
	}
	msg := fmt.Sprintf("%s: %s", where, d.Message)
	if n := len(e.list) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more; see details)", n)
	}
	if d.Code == resources.CodeInternal || d.Code == resources.CodeUnavailable {
		msg = "internal error"
	}
	return &resources.Error{Code: d.Code, Message: msg + "; " + verb, Details: e.list}
}

// applyInput is one validated object of an apply request.
type applyInput struct {
	index int
	name  string
	d     desired
	rv    string // metadata.resourceVersion: a precondition when not empty
}

// applyStep is what apply does to one object.
type applyStep struct {
	in       applyInput
	cur      store.Object
	exists   bool
	region   string
	pl       resources.Plan
	next     store.Object // the object after the apply (version etc. not yet assigned)
	content  bool         // spec or labels change: new version and generation, pending
	ownerChg bool         // only managedBy/applySet change: new version
}

func (st *applyStep) action() string {
	switch {
	case !st.exists:
		return resources.ActionCreated
	case st.content || st.ownerChg:
		return resources.ActionConfigured
	}
	return resources.ActionUnchanged
}

// parseApply validates everything of an apply request that needs no store.
func (s *Service) parseApply(ctx context.Context, p Principal, w wire.RawApplyRequest) ([]applyInput, []agentInput, resources.Selector, error) {
	if len(w.Objects) > resources.MaxApplyObjects {
		return nil, nil, nil, errTooLarge("an apply holds at most %d objects; this one holds %d", resources.MaxApplyObjects, len(w.Objects))
	}
	if err := resources.ValidateApplySet(w.ApplySet); err != nil {
		return nil, nil, nil, errInvalid("applySet: %v", err)
	}
	sel, err := resources.ParseSelector(w.Selector)
	if err != nil {
		return nil, nil, nil, errInvalid("selector: %v", err)
	}
	if w.Prune && len(sel) == 0 && w.ApplySet == "" {
		return nil, nil, nil, errInvalid("prune needs a selector or an applySet (pruning every object ever applied without an apply set is refused)")
	}
	if !w.Prune && w.Selector != "" {
		return nil, nil, nil, errInvalid("selector applies to prune only; set prune to true")
	}
	var errs objectErrors
	inputs := make([]applyInput, 0, len(w.Objects))
	var agentInputs []agentInput
	// Secret sets and image pull secrets share a namespace; agents have
	// their own.
	seen := make(map[[2]string]int, len(w.Objects))
	objs := make([]*resources.Object, len(w.Objects))
	for i, raw := range w.Objects {
		obj, err := wire.DecodeObject(raw)
		if err != nil {
			errs.add(i, "", "", err)
			continue
		}
		meta := obj.Meta()
		kind := obj.Kind()
		if err := validateObjectName(meta.Name); err != nil {
			errs.add(i, kind, "", err)
			continue
		}
		ns, why := "", "a name is unique across kinds and regions; agents have names of their own"
		if obj.Agent != nil {
			ns, why = resources.KindAgent, "an agent's name is unique in its organization"
		}
		if j, dup := seen[[2]string{ns, meta.Name}]; dup {
			errs.add(i, kind, meta.Name, errInvalid("objects[%d] and objects[%d] both name %s (%s)", j, i, meta.Name, why))
			continue
		}
		seen[[2]string{ns, meta.Name}] = i
		if obj.Agent != nil {
			in, err := parseAgent(p, i, *obj.Agent)
			if err != nil {
				errs.add(i, kind, meta.Name, err)
				continue
			}
			agentInputs = append(agentInputs, in)
			continue
		}
		objs[i] = &obj
	}
	// Sealed values are decrypted before the transaction opens (in
	// parallel, and without holding the store's writer): one that does
	// not open fails the whole apply.
	unsealErrs, err := s.unseal(ctx, p.org, objs)
	if err != nil {
		return nil, nil, nil, err
	}
	for i, obj := range objs {
		if obj == nil {
			continue
		}
		meta := obj.Meta()
		if unsealErrs[i] != nil {
			errs.add(i, obj.Kind(), meta.Name, unsealErrs[i])
			continue
		}
		d, err := s.parseReplace(p, meta.Name, *obj)
		if err != nil {
			errs.add(i, obj.Kind(), meta.Name, err)
			continue
		}
		inputs = append(inputs, applyInput{index: i, name: meta.Name, d: d, rv: meta.ResourceVersion})
	}
	return inputs, agentInputs, sel, errs.err("nothing was applied")
}

// plan computes the step of one object inside the transaction.
func (s *Service) applyStep(ctx context.Context, tx store.Tx, p Principal, in applyInput, applySet string, now time.Time) (applyStep, error) {
	st := applyStep{in: in}
	cur, err := tx.Object(ctx, p.org.ID, in.name)
	st.exists = err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return st, err
	}
	st.cur = cur
	if st.region, err = checkReplace(p, in.name, st.exists, cur, in.d, ""); err != nil {
		return st, err
	}
	if in.rv != "" {
		if !st.exists {
			return st, errConflict("metadata.resourceVersion %s: %s does not exist (it was deleted or never created)", in.rv, resources.Ref(in.d.kind, in.name))
		}
		if in.rv != strconv.FormatInt(cur.Version, 10) {
			return st, errConflict("metadata.resourceVersion %s: %s changed since (now %d); read it again and retry", in.rv, describe(cur), cur.Version)
		}
	}
	if st.exists && cur.Managed && cur.ApplySet != "" && cur.ApplySet != applySet {
		return st, errConflict("%s belongs to apply set %q; apply it with that apply set (or write it imperatively first to release it)", describe(cur), cur.ApplySet)
	}
	var vals map[string][]byte
	if st.exists {
		if vals, err = s.decryptAll(ctx, tx, p.org.Name, cur); err != nil {
			return st, err
		}
	}
	st.pl = plan(p.org.Name, st.exists, cur, vals, in.d, in.name, st.region)
	st.next = replaced(p.org.ID, in.name, st.region, st.exists, cur, in.d, now)
	st.next.Managed, st.next.ApplySet = true, applySet
	st.content = st.pl.Action != resources.ActionUnchanged
	ownerField := func(field string, had, has, same bool) {
		c := resources.ChangeOf(had, has, same)
		if c != resources.ChangeUnchanged && st.exists {
			st.ownerChg = true
		}
		st.pl.Fields = append(st.pl.Fields, resources.FieldChange{Field: field, Change: c})
	}
	ownerField("metadata.managedBy", st.exists && cur.Managed, true, true)
	ownerField("metadata.applySet", st.exists && cur.ApplySet != "", applySet != "", cur.ApplySet == applySet)
	if st.content {
		st.ownerChg = false
	}
	return st, nil
}

// apply implements POST /v1/organizations/{org}/apply: the secret sets,
// image pull secrets and agents of the request (and the prune) in one
// transaction; then, after the commit, a deployment of each agent whose
// spec changed, and the pruned agents' containers removed.
func (s *Service) apply(ctx context.Context, p Principal, w wire.RawApplyRequest) (resources.ApplyResult, error) {
	res := resources.ApplyResult{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindApplyResult}, DryRun: w.DryRun, ApplySet: w.ApplySet}
	inputs, agentInputs, sel, err := s.parseApply(ctx, p, w)
	if err != nil {
		return res, err
	}
	woken := map[string]bool{}
	var agentSteps []agentStep
	var prunedAgents []store.Agent
	agentItemOf := map[int]int{} // agentSteps index → res.Items index
	var orgAgents []store.Agent  // what may pin a pruned object
	if w.Prune {
		if orgAgents, err = s.store.Agents(ctx, p.org.ID, ""); err != nil {
			return res, err
		}
	}
	err = s.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		// The function may run again (after a rollback of its batch): it
		// starts from scratch each time.
		clear(woken)
		clear(agentItemOf)
		agentSteps, prunedAgents = agentSteps[:0], prunedAgents[:0]
		res.Items = make([]resources.ApplyResultItem, 0, len(inputs)+len(agentInputs))
		now := time.Now().UTC()
		steps := make([]applyStep, 0, len(inputs))
		var errs objectErrors
		for _, in := range inputs {
			st, err := s.applyStep(ctx, tx, p, in, w.ApplySet, now)
			if err != nil {
				var re *resources.Error
				if !errors.As(err, &re) {
					return err // a store failure, not the object's
				}
				errs.add(in.index, in.d.kind, in.name, err)
				continue
			}
			steps = append(steps, st)
		}
		// What the agents may name: the request's objects as the apply
		// leaves them.
		objects := make(map[string]applyRef, len(steps))
		for _, st := range steps {
			objects[st.in.name] = applyRef{kind: st.next.Kind, region: st.region, host: st.next.Host}
		}
		for _, in := range agentInputs {
			st, err := s.agentStep(ctx, tx, p, in, w.ApplySet, objects, now)
			if err != nil {
				var re *resources.Error
				if !errors.As(err, &re) {
					return err
				}
				errs.add(in.index, resources.KindAgent, in.name, err)
				continue
			}
			agentSteps = append(agentSteps, st)
		}
		if err := errs.err("nothing was applied"); err != nil {
			return err
		}
		var prune []store.Object
		if w.Prune {
			named := make(map[string]bool, len(inputs))
			for _, in := range inputs {
				named[in.name] = true
			}
			applied, err := tx.AppliedObjects(ctx, p.org.ID, w.ApplySet)
			if err != nil {
				return err
			}
			for _, o := range applied {
				if !named[o.Name] && sel.Matches(o.Labels) {
					prune = append(prune, o)
				}
			}
			namedAgents := make(map[string]bool, len(agentInputs))
			for _, in := range agentInputs {
				namedAgents[in.name] = true
			}
			appliedAgents, err := tx.AppliedAgents(ctx, p.org.ID, w.ApplySet)
			if err != nil {
				return err
			}
			for _, a := range appliedAgents {
				if !namedAgents[a.Name] && sel.Matches(a.Labels) {
					prunedAgents = append(prunedAgents, a)
				}
			}
			pruning := make(map[string]bool, len(prunedAgents))
			for _, a := range prunedAgents {
				pruning[a.Name] = true
			}
			for _, o := range prune {
				if err := pinning(ctx, tx, o, orgAgents, pruning); err != nil {
					var re *resources.Error
					if !errors.As(err, &re) {
						return err
					}
					errs.add(len(inputs)+len(agentInputs), o.Kind, o.Name, err)
				}
			}
			if err := errs.err("nothing was applied"); err != nil {
				return err
			}
		}
		// Everything is checked: from here on only the store can fail.
		type indexed struct {
			index int
			agent int // agentSteps index, -1 for an object
			item  resources.ApplyResultItem
		}
		items := make([]indexed, 0, len(steps)+len(agentSteps))
		for i := range steps {
			st := &steps[i]
			if !w.DryRun {
				if err := s.applyWrite(ctx, tx, p, st, now); err != nil {
					return err
				}
				if st.content {
					woken[st.region] = true
				}
			}
			items = append(items, indexed{st.in.index, -1, applyItem(p.org.Name, st, w.DryRun)})
		}
		for i := range agentSteps {
			st := &agentSteps[i]
			if !w.DryRun {
				if err := s.agentWrite(ctx, tx, p, st, now); err != nil {
					return err
				}
			}
			items = append(items, indexed{st.in.index, i, agentItem(st, w.DryRun)})
		}
		slices.SortStableFunc(items, func(a, b indexed) int { return a.index - b.index })
		for _, it := range items {
			if it.agent >= 0 {
				agentItemOf[it.agent] = len(res.Items)
			}
			res.Items = append(res.Items, it.item)
		}
		for _, o := range prune {
			if !w.DryRun {
				if err := tx.DeleteObject(ctx, o.ID); err != nil {
					return err
				}
				if err := tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: "prune", Kind: o.Kind, Name: o.Name, Region: o.Region, Keys: valueKeys(o)}); err != nil {
					return err
				}
			}
			obj := wire.Object(p.org.Name, o)
			keys := make([]resources.KeyChange, 0, len(o.Keys))
			for _, k := range slices.Sorted(maps.Keys(o.Keys)) {
				keys = append(keys, resources.KeyChange{Key: k, Change: resources.ChangeRemoved})
			}
			res.Items = append(res.Items, resources.ApplyResultItem{Kind: o.Kind, Name: o.Name, Region: o.Region, Action: resources.ActionPruned,
				ResourceVersion: strconv.FormatInt(o.Version, 10), Keys: keys, Fields: []resources.FieldChange{}, Object: &obj})
		}
		for _, a := range prunedAgents {
			if !w.DryRun {
				if err := tx.DeleteAgent(ctx, a.ID); err != nil {
					return err
				}
				if err := tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: "prune", Kind: resources.KindAgent, Name: a.Name, Region: a.Region}); err != nil {
					return err
				}
			}
			res.Items = append(res.Items, prunedAgentItem(p.org.Name, a))
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	for region := range woken {
		s.wake(region)
	}
	if w.DryRun {
		return res, nil
	}
	// Committed: the rollouts, and the pruned agents' containers removed.
	return res, s.rollOut(ctx, p, &res, agentSteps, agentItemOf, prunedAgents)
}

// applyWrite writes one planned step: the spec and values when they change
// (new version and generation, pending for the provisioner), only the
// ownership when nothing else changes (new version; generation and state
// stay), nothing at all when the object is unchanged.
func (s *Service) applyWrite(ctx context.Context, tx store.Tx, p Principal, st *applyStep, now time.Time) error {
	switch {
	case st.content:
		put, removed, touched, err := s.replaceValues(p.org.Name, &st.next, st.in.d, st.pl)
		if err != nil {
			return err
		}
		if err := storeWrite(ctx, tx, &st.next, removed, put, now, history{p: p, source: SourceApply, before: valueSizes(st.cur), hostChanged: st.exists && st.next.Host != st.cur.Host}); err != nil {
			return err
		}
		return tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: "apply", Kind: st.in.d.kind, Name: st.in.name, Region: st.region, Keys: touched})
	case st.ownerChg:
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		st.next.Version, st.next.UpdatedAt = v, now
		if _, err := tx.PutObject(ctx, st.next); err != nil {
			return err
		}
		return tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: "apply", Kind: st.in.d.kind, Name: st.in.name, Region: st.region})
	}
	return nil
}

// applyItem reports one step. In a dry run the object is shown as it would
// be: pending when it would change, without a resourceVersion when it would
// be created.
func applyItem(org string, st *applyStep, dryRun bool) resources.ApplyResultItem {
	next := st.next
	if dryRun && st.content {
		next.State, next.Message = resources.StatePending, ""
	}
	obj := wire.Object(org, next)
	rv := obj.Meta().ResourceVersion
	if dryRun && !st.exists {
		rv = ""
		obj.Meta().ResourceVersion = ""
	}
	return resources.ApplyResultItem{Kind: st.in.d.kind, Name: st.in.name, Region: st.region, Action: st.action(),
		ResourceVersion: rv, Keys: st.pl.Keys, Fields: st.pl.Fields, Object: &obj}
}

// valueKeys names the stored values of an object (for audit records).
func valueKeys(o store.Object) []string {
	if o.Kind == resources.KindImagePullSecret {
		return []string{store.CredentialsKey}
	}
	return slices.Sorted(maps.Keys(o.Keys))
}

// deleteMany implements POST /v1/organizations/{org}/delete: every named
// object, in one transaction, or none. Agents' rows go in that transaction;
// their containers are removed after the commit.
func (s *Service) deleteMany(ctx context.Context, p Principal, req resources.DeleteRequest) (resources.DeleteResult, error) {
	res := resources.DeleteResult{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindDeleteResult}, DryRun: req.DryRun}
	if len(req.Objects) > resources.MaxApplyObjects {
		return res, errTooLarge("a delete holds at most %d objects; this one holds %d", resources.MaxApplyObjects, len(req.Objects))
	}
	var errs objectErrors
	seen := map[[2]string]int{}
	for i, ref := range req.Objects {
		if ref.Kind != resources.KindAgent {
			if resources.ValidateKind(ref.Kind) != nil {
				errs.add(i, "", ref.Name, errInvalid("kind: unknown kind %q (valid: %s, %s, %s)", ref.Kind, resources.KindSecretSet, resources.KindImagePullSecret, resources.KindAgent))
				continue
			}
		}
		if err := validateObjectName(ref.Name); err != nil {
			errs.add(i, ref.Kind, "", err)
			continue
		}
		if ref.Region != "" {
			if err := resources.ValidateRegion(ref.Region); err != nil {
				errs.add(i, ref.Kind, ref.Name, errInvalid("region: %v", err))
				continue
			}
		}
		ns := ""
		if ref.Kind == resources.KindAgent {
			ns = resources.KindAgent
		}
		if j, dup := seen[[2]string{ns, ref.Name}]; dup {
			errs.add(i, ref.Kind, ref.Name, errInvalid("objects[%d] and objects[%d] both name %s", j, i, ref.Name))
			continue
		}
		seen[[2]string{ns, ref.Name}] = i
	}
	if err := errs.err("nothing was deleted"); err != nil {
		return res, err
	}
	if !req.DryRun {
		deleting := map[string]bool{}
		for _, ref := range req.Objects {
			if ref.Kind == resources.KindAgent {
				deleting[ref.Name] = true
			}
		}
		for i, ref := range req.Objects {
			if ref.Kind != resources.KindAgent {
				if err := s.pinnedBy(ctx, p, ref.Name, deleting); err != nil {
					var re *resources.Error
					if !errors.As(err, &re) {
						return res, err
					}
					errs.add(i, ref.Kind, ref.Name, re)
				}
			}
		}
		if err := errs.err("nothing was deleted"); err != nil {
			return res, err
		}
	}
	var deletedAgents []store.Agent
	err := s.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		res.Items = make([]resources.DeleteResultItem, 0, len(req.Objects))
		deletedAgents = deletedAgents[:0]
		var errs objectErrors
		found := make([]store.Object, 0, len(req.Objects))
		foundAgents := make([]store.Agent, len(req.Objects))
		for i, ref := range req.Objects {
			if ref.Kind == resources.KindAgent {
				a, err := tx.Agent(ctx, p.org.ID, ref.Name)
				switch {
				case errors.Is(err, store.ErrNotFound):
					if !req.IgnoreNotFound {
						errs.add(i, ref.Kind, ref.Name, errNotFound("not found"))
					}
				case err != nil:
					return err
				case ref.Region != "" && ref.Region != a.Region:
					errs.add(i, ref.Kind, ref.Name, errConflict("agent/%s is in region %s, not %s", a.Name, a.Region, ref.Region))
				}
				foundAgents[i] = a
				found = append(found, store.Object{})
				continue
			}
			cur, err := tx.Object(ctx, p.org.ID, ref.Name)
			switch {
			case errors.Is(err, store.ErrNotFound):
				if !req.IgnoreNotFound {
					errs.add(i, ref.Kind, ref.Name, errNotFound("not found"))
				}
				found = append(found, store.Object{})
				continue
			case err != nil:
				return err
			case cur.Kind != ref.Kind:
				errs.add(i, ref.Kind, ref.Name, errConflict("the name is taken by %s; nothing of kind %s to delete", describe(cur), ref.Kind))
			case ref.Region != "" && ref.Region != cur.Region:
				errs.add(i, ref.Kind, ref.Name, errConflict("%s is in region %s, not %s", describe(cur), cur.Region, ref.Region))
			}
			found = append(found, cur)
		}
		if err := errs.err("nothing was deleted"); err != nil {
			return err
		}
		for i, ref := range req.Objects {
			if a := foundAgents[i]; ref.Kind == resources.KindAgent && a.ID != 0 {
				if !req.DryRun {
					if err := tx.DeleteAgent(ctx, a.ID); err != nil {
						return err
					}
					if err := tx.Audit(ctx, store.AuditRecord{Org: p.org.Name, Actor: p.actor(), Action: "delete", Kind: resources.KindAgent, Name: a.Name, Region: a.Region}); err != nil {
						return err
					}
					deletedAgents = append(deletedAgents, a)
				}
				it := prunedAgentItem(p.org.Name, a)
				res.Items = append(res.Items, resources.DeleteResultItem{Kind: resources.KindAgent, Name: a.Name, Region: a.Region, Action: resources.ActionDeleted, Object: it.Object})
				continue
			}
			cur := found[i]
			if cur.ID == 0 {
				res.Items = append(res.Items, resources.DeleteResultItem{Kind: ref.Kind, Name: ref.Name, Action: resources.ActionNotFound})
				continue
			}
			if !req.DryRun {
				if err := tx.DeleteObject(ctx, cur.ID); err != nil {
					return err
				}
				if err := tx.Audit(ctx, store.AuditRecord{Org: p.org.Name, Actor: p.actor(), Action: "delete", Kind: cur.Kind, Name: cur.Name, Region: cur.Region, Keys: valueKeys(cur)}); err != nil {
					return err
				}
			}
			obj := wire.Object(p.org.Name, cur)
			res.Items = append(res.Items, resources.DeleteResultItem{Kind: cur.Kind, Name: cur.Name, Region: cur.Region, Action: resources.ActionDeleted, Object: &obj})
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	// Committed: every container of the deleted agents removed.
	return res, s.removeAgents(ctx, p, deletedAgents)
}

// removeAgents removes every container of agents whose rows are gone (an
// engine that does not answer leaves them to the reconciler, which removes
// the containers of agents that no longer exist).
func (s *Service) removeAgents(ctx context.Context, p Principal, gone []store.Agent) error {
	for _, a := range gone {
		if err := s.RemoveAgentContainers(ctx, p, a); err != nil && runtime.ReasonOf(err) == "" {
			return err
		}
	}
	return nil
}

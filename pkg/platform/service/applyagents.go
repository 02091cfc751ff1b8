package service

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/agents"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Agents in apply (docs/deploy.md): the Agents of an apply request are written
// in the transaction of its SecretSets and ImagePullSecrets (all or none);
// after the commit, each agent whose spec changed gets a deployment, made
// as Deploy makes one. Agents have a namespace of their own: an agent may
// share its name with a secret set.

// agentInput is one validated Agent of an apply request.
type agentInput struct {
	index int
	name  string
	in    resources.Agent // region "" when the manifest names none
	spec  []byte          // the spec as stored (profile defaulted)
	rv    string
}

// agentStep is what apply does to one agent.
type agentStep struct {
	in      agentInput
	cur     store.Agent
	exists  bool
	region  string
	next    store.Agent
	content bool // spec or labels change: new version and generation
	specChg bool // spec changes: a deployment after the commit
	owner   bool // only managedBy/applySet change: new version
	fields  []resources.FieldChange
}

func (st *agentStep) action() string {
	switch {
	case !st.exists:
		return resources.ActionCreated
	case st.content || st.owner:
		return resources.ActionConfigured
	}
	return resources.ActionUnchanged
}

// errAgentMoves is the conflict of a write that would move agent name from
// region have to want.
func errAgentMoves(name, have, want string) error {
	return errConflict("agent %s is in region %s, not %s: an agent does not move between regions (delete it and create it in %s)", name, have, want, want)
}

// parseAgent validates an Agent of an apply request (what needs no store).
func parseAgent(p Principal, index int, a resources.Agent) (agentInput, error) {
	name := a.Metadata.Name
	if err := validateAgentInput(name, &a, ""); err != nil {
		return agentInput{}, err
	}
	if a.Metadata.Organization != "" && a.Metadata.Organization != p.org.Name {
		return agentInput{}, errInvalid("metadata.organization %q does not match the organization %q in the URL", a.Metadata.Organization, p.org.Name)
	}
	if a.Spec.Profile == "" {
		a.Spec.Profile = runtime.DefaultProfile
	}
	spec, err := json.Marshal(a.Spec)
	if err != nil {
		return agentInput{}, err
	}
	return agentInput{index: index, name: name, in: a, spec: spec, rv: a.Metadata.ResourceVersion}, nil
}

// applyRef is the kind and region of an object an agent may name, as it is
// after the apply.
type applyRef struct{ kind, region, host string }

// agentStep plans one agent inside the transaction. objects are the
// request's SecretSets and ImagePullSecrets as the apply leaves them (by
// name); what they do not name is read from tx.
func (s *Service) agentStep(ctx context.Context, tx store.Tx, p Principal, in agentInput, applySet string, objects map[string]applyRef, now time.Time) (agentStep, error) {
	st := agentStep{in: in}
	cur, err := tx.Agent(ctx, p.org.ID, in.name)
	st.exists = err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return st, err
	}
	st.cur = cur
	st.region = in.in.Metadata.Region
	switch {
	case st.region == "" && st.exists:
		st.region = cur.Region
	case st.region == "":
		st.region = p.org.DefaultRegion
	case st.exists && cur.Region != st.region:
		return st, errAgentMoves(in.name, cur.Region, st.region)
	}
	if in.rv != "" {
		if !st.exists {
			return st, errConflict("metadata.resourceVersion %s: agent/%s does not exist (it was deleted or never created)", in.rv, in.name)
		}
		if in.rv != strconv.FormatInt(cur.Version, 10) {
			return st, errConflict("metadata.resourceVersion %s: agent/%s changed since (now %d); read it again and retry", in.rv, in.name, cur.Version)
		}
	}
	if st.exists && cur.Managed && cur.ApplySet != "" && cur.ApplySet != applySet {
		return st, errConflict("agent/%s belongs to apply set %q; apply it with that apply set (or write it imperatively first to release it)", in.name, cur.ApplySet)
	}
	var old resources.AgentSpec
	if st.exists {
		if old, err = agents.SpecOf(cur); err != nil {
			return st, err
		}
	}
	st.specChg = !st.exists || string(cur.Spec) != string(in.spec)
	labelsChg := !st.exists || !maps.Equal(cur.Labels, in.in.Metadata.Labels)
	st.content = st.specChg || labelsChg
	st.fields = agentFields(st.exists, old, in.in.Spec)
	st.fields = append(st.fields, resources.FieldChange{Field: "metadata.labels",
		Change: resources.ChangeOf(st.exists && len(cur.Labels) > 0, len(in.in.Metadata.Labels) > 0, maps.Equal(cur.Labels, in.in.Metadata.Labels))})
	if st.specChg {
		if err := s.checkAgentRefs(ctx, tx, p, in, st.region, objects); err != nil {
			return st, err
		}
		if !s.agents.HasRuntime(st.region) {
			e := s.noRuntime(st.region)
			e.Field = "metadata.region"
			return st, e
		}
	}
	owner := func(field string, had, has, same bool) {
		c := resources.ChangeOf(had, has, same)
		if c != resources.ChangeUnchanged && st.exists {
			st.owner = true
		}
		st.fields = append(st.fields, resources.FieldChange{Field: field, Change: c})
	}
	owner("metadata.managedBy", st.exists && cur.Managed, true, true)
	owner("metadata.applySet", st.exists && cur.ApplySet != "", applySet != "", cur.ApplySet == applySet)
	if st.content {
		st.owner = false
	}
	st.next = cur
	if !st.exists {
		st.next = store.Agent{OrgID: p.org.ID, OrgName: p.org.Name, Name: in.name, Region: st.region, CreatedAt: now}
	}
	st.next.OrgName = p.org.Name
	st.next.Spec, st.next.Labels = in.spec, in.in.Metadata.Labels
	st.next.Managed, st.next.ApplySet = true, applySet
	return st, nil
}

// agentFields is what changes in an agent's spec, field by field, with the
// values before and after (an agent's spec holds no secret).
func agentFields(exists bool, old, next resources.AgentSpec) []resources.FieldChange {
	scaling := func(s resources.AgentSpec) (minA, maxA string) {
		if s.Scaling == nil {
			return "", ""
		}
		minA = strconv.Itoa(s.Scaling.MinAgents)
		if s.Scaling.MaxAgents > 0 {
			maxA = strconv.Itoa(s.Scaling.MaxAgents)
		}
		return minA, maxA
	}
	oldMin, oldMax := scaling(old)
	newMin, newMax := scaling(next)
	if !exists {
		oldMin, oldMax = "", ""
	}
	var out []resources.FieldChange
	for _, f := range []struct{ field, from, to string }{
		{"spec.image", old.Image, next.Image},
		{"spec.imagePullSecret", old.ImagePullSecret, next.ImagePullSecret},
		{"spec.secretSet", old.SecretSet, next.SecretSet},
		{"spec.scaling.minAgents", oldMin, newMin},
		{"spec.scaling.maxAgents", oldMax, newMax},
		{"spec.profile", old.Profile, next.Profile},
	} {
		if !exists {
			f.from = ""
		}
		c := resources.ChangeOf(f.from != "", f.to != "", f.from == f.to)
		fc := resources.FieldChange{Field: f.field, Change: c}
		if c != resources.ChangeUnchanged {
			fc.From, fc.To = f.from, f.to
		}
		out = append(out, fc)
	}
	return out
}

// checkAgentRefs checks that the image pull secret and the secret set an
// agent names exist (in the apply or already), are of their kind and in
// the agent's region, and that the pull secret is for the image's
// registry: a deployment after the commit could not be made otherwise.
func (s *Service) checkAgentRefs(ctx context.Context, tx store.Tx, p Principal, in agentInput, region string, objects map[string]applyRef) error {
	unprocessable := func(field, format string, args ...any) error {
		e := resources.Errorf(resources.CodeUnprocessable, "%s: "+format, append([]any{field}, args...)...)
		e.Field = field // the CLI points at the manifest's line
		return e
	}
	lookup := func(name, kind, field string) (applyRef, error) {
		r, ok := objects[name]
		if !ok {
			o, err := tx.Object(ctx, p.org.ID, name)
			if errors.Is(err, store.ErrNotFound) {
				return r, unprocessable(field, "%s %s does not exist in organization %s", strings.ToLower(kindWords(kind)), name, p.org.Name)
			}
			if err != nil {
				return r, err
			}
			r = applyRef{kind: o.Kind, region: o.Region, host: o.Host}
		}
		switch {
		case r.kind != kind:
			return r, unprocessable(field, "%s is %s, not %s", name, kindWords(r.kind), kindWords(kind))
		case r.region != region:
			return r, unprocessable(field, "%s is in region %s; agent %s runs in %s", name, r.region, in.name, region)
		}
		return r, nil
	}
	spec := in.in.Spec
	if spec.ImagePullSecret != "" {
		r, err := lookup(spec.ImagePullSecret, resources.KindImagePullSecret, "spec.imagePullSecret")
		if err != nil {
			return err
		}
		ref, err := resources.ParseImageRef(spec.Image)
		if err != nil {
			return errInvalid("spec.image: %v", err)
		}
		if have, want := resources.RegistryName(r.host), resources.RegistryName(ref.Registry); have != want {
			return unprocessable("spec.imagePullSecret", "%s", registryMismatch(spec.ImagePullSecret, have, want))
		}
	}
	if spec.SecretSet != "" {
		if _, err := lookup(spec.SecretSet, resources.KindSecretSet, "spec.secretSet"); err != nil {
			return err
		}
	}
	return nil
}

// agentWrite writes one planned agent step.
func (s *Service) agentWrite(ctx context.Context, tx store.Tx, p Principal, st *agentStep, now time.Time) error {
	if !st.content && !st.owner {
		return nil
	}
	v, err := tx.NextVersion(ctx)
	if err != nil {
		return err
	}
	st.next.Version, st.next.UpdatedAt = v, now
	if st.content {
		st.next.Generation++
	}
	id, err := tx.PutAgent(ctx, st.next)
	if err != nil {
		if errors.Is(err, store.ErrExists) {
			return errConflict("agent %s was created meanwhile; apply again", st.in.name)
		}
		return err
	}
	st.next.ID = id
	return tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: "apply", Kind: resources.KindAgent, Name: st.in.name, Region: st.region})
}

// agentItem reports one agent step; the object is the agent as written
// (status added after the commit).
func agentItem(st *agentStep, dryRun bool) resources.ApplyResultItem {
	a := st.next
	obj := resources.Object{Agent: &resources.Agent{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindAgent},
		Metadata: resources.ObjectMeta{Name: a.Name, Organization: a.OrgName, Region: a.Region, Labels: a.Labels, Generation: a.Generation,
			ApplySet: a.ApplySet, ManagedBy: resources.ManagedByApply},
		Spec: st.in.in.Spec,
	}}
	rv := ""
	if a.Version > 0 && !(dryRun && !st.exists) {
		rv = strconv.FormatInt(a.Version, 10)
		obj.Agent.Metadata.ResourceVersion = rv
	}
	if !a.CreatedAt.IsZero() {
		created, updated := a.CreatedAt, a.UpdatedAt
		obj.Agent.Metadata.CreationTimestamp = &created
		if !updated.IsZero() {
			obj.Agent.Metadata.UpdateTimestamp = &updated
		}
	}
	obj.Agent.Metadata.Organization = a.OrgName
	return resources.ApplyResultItem{Kind: resources.KindAgent, Name: st.in.name, Region: st.region, Action: st.action(),
		ResourceVersion: rv, Keys: []resources.KeyChange{}, Fields: st.fields, Object: &obj}
}

// prunedAgentItem reports an agent apply pruned (as it was).
func prunedAgentItem(org string, a store.Agent) resources.ApplyResultItem {
	spec, _ := agents.SpecOf(a) // a stored spec decodes; an empty one shows as such
	created, updated := a.CreatedAt, a.UpdatedAt
	obj := resources.Object{Agent: &resources.Agent{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindAgent},
		Metadata: resources.ObjectMeta{Name: a.Name, Organization: org, Region: a.Region, Labels: a.Labels, Generation: a.Generation,
			ResourceVersion: strconv.FormatInt(a.Version, 10), CreationTimestamp: &created, UpdateTimestamp: &updated,
			ApplySet: a.ApplySet, ManagedBy: resources.ManagedByApply},
		Spec: spec,
	}}
	return resources.ApplyResultItem{Kind: resources.KindAgent, Name: a.Name, Region: a.Region, Action: resources.ActionPruned,
		ResourceVersion: strconv.FormatInt(a.Version, 10), Keys: []resources.KeyChange{}, Fields: []resources.FieldChange{}, Object: &obj}
}

// rollOut makes, after the commit, the deployment of each agent whose spec
// the apply changed (as Deploy makes one: the image resolved, the secret
// set's version pinned, one reconcile pass) and reports it in its item;
// then removes the containers of the agents it pruned, and shows every
// agent with its status.
func (s *Service) rollOut(ctx context.Context, p Principal, res *resources.ApplyResult, steps []agentStep, itemOf map[int]int, pruned []store.Agent) error {
	if err := s.removeAgents(ctx, p, pruned); err != nil {
		return err
	}
	for i := range steps {
		st := &steps[i]
		it := &res.Items[itemOf[i]]
		a, err := s.agent(ctx, p, st.in.name)
		if err != nil {
			return err
		}
		if st.specChg {
			dep, err := s.RolloutAgent(ctx, p, st.in.name)
			var re *resources.Error
			switch {
			case errors.As(err, &re) && re.Code != resources.CodeInternal && re.Code != resources.CodeUnavailable:
				// Written, but not rolled out (say, a reference deleted
				// meanwhile): the item says why.
				it.Message = "not rolled out: " + re.Message
			case err != nil:
				return err
			default:
				it.Deployment = &dep
			}
			if a, err = s.agent(ctx, p, st.in.name); err != nil {
				return err
			}
		}
		w, _, err := s.wireAgent(ctx, a)
		if err != nil {
			return err
		}
		it.ResourceVersion = w.Metadata.ResourceVersion
		it.Object = &resources.Object{Agent: &w}
	}
	return nil
}

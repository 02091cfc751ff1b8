package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/agents"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Agents (docs/deploy.md): the API's operations on Agents and their
// deployments. They store what should run; the controller
// (pkg/platform/agents) acts on the engine, woken by every write. Reads
// change nothing.

func errAgentNotFound(name string) *resources.Error {
	return errNotFound("agent %q not found", name)
}

// agent reads p's agent name (a 404 for a missing one).
func (s *Service) agent(ctx context.Context, p Principal, name string) (store.Agent, error) {
	s.agents.Touch()
	a, err := s.store.Agent(ctx, p.org.ID, name)
	if errors.Is(err, store.ErrNotFound) {
		return a, errAgentNotFound(name)
	}
	a.OrgName = p.org.Name
	return a, err
}

// enqueue asks the controller to look at agent a (a write changed what it
// should run): the answer does not wait for the engine.
func (s *Service) enqueue(p Principal, a store.Agent) {
	s.agents.Enqueue(a.Region, p.org.Name, a.Name) // nil-safe
}

// wireAgent is agent a as the API shows it, with its status.
func (s *Service) wireAgent(ctx context.Context, a store.Agent) (resources.Agent, []resources.RunningAgent, error) {
	spec, err := agents.SpecOf(a)
	if err != nil {
		return resources.Agent{}, nil, err
	}
	created, updated := a.CreatedAt, a.UpdatedAt
	out := resources.Agent{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindAgent},
		Metadata: resources.ObjectMeta{Name: a.Name, Organization: a.OrgName, Region: a.Region, Labels: a.Labels,
			ResourceVersion: strconv.FormatInt(a.Version, 10), Generation: a.Generation,
			CreationTimestamp: &created, UpdateTimestamp: &updated, ApplySet: a.ApplySet},
		Spec: spec,
	}
	if a.Managed {
		out.Metadata.ManagedBy = "apply"
	}
	var running []resources.RunningAgent
	if s.agents != nil {
		st, r, err := s.agents.Status(ctx, a)
		if err != nil {
			if runtime.ReasonOf(err) == "" {
				return out, nil, err
			}
			st = resources.AgentStatus{State: resources.AgentDegraded, Message: s.agents.EngineDownMessage(a.Region, err)}
		}
		out.Status, running = &st, r
	} else {
		st := resources.AgentStatus{State: resources.AgentStopped, Message: s.noRuntime(a.Region).Message}
		out.Status = &st
	}
	return out, running, nil
}

func (s *Service) noRuntime(region string) *resources.Error {
	return s.agents.NoRuntime(region) // nil-safe: the serve flag's words
}

func wireDeployment(d store.Deployment) resources.Deployment {
	return resources.Deployment{Number: d.Number, At: d.At, Actor: d.Actor, Image: d.Image, ImageDigest: resources.DigestOf(d.ImageDigest),
		ImagePullSecret: d.ImagePullSecret, SecretSet: d.SecretSetName, SecretSetVersion: d.SecretSetVersion,
		Profile: d.Profile, Source: d.Source, RollbackOf: d.RollbackOf, Result: d.Result, Message: d.Message, FinishedAt: d.FinishedAt}
}

// ListAgents lists p's agents (of region when not ""), with their status.
func (s *Service) ListAgents(ctx context.Context, p Principal, region string) (resources.AgentList, error) {
	list := resources.AgentList{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: "AgentList"}, Items: []resources.Agent{}}
	if region != "" {
		if err := resources.ValidateRegion(region); err != nil {
			return list, errInvalid("region: %v", err)
		}
	}
	s.agents.Touch()
	rows, err := s.store.Agents(ctx, p.org.ID, region)
	if err != nil {
		return list, err
	}
	for _, a := range rows {
		a.OrgName = p.org.Name
		w, _, err := s.wireAgent(ctx, a)
		if err != nil {
			return list, err
		}
		list.Items = append(list.Items, w)
	}
	return list, nil
}

// GetAgent returns p's agent name with its status.
func (s *Service) GetAgent(ctx context.Context, p Principal, name string) (resources.Agent, error) {
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return resources.Agent{}, err
	}
	w, _, err := s.wireAgent(ctx, a)
	return w, err
}

// AgentStatus is GET .../agents/{name}/status.
func (s *Service) AgentStatus(ctx context.Context, p Principal, name string) (resources.AgentStatusReport, error) {
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return resources.AgentStatusReport{}, err
	}
	w, running, err := s.wireAgent(ctx, a)
	if err != nil {
		return resources.AgentStatusReport{}, err
	}
	rep := resources.AgentStatusReport{Agent: w, Running: running}
	if rep.Running == nil {
		rep.Running = []resources.RunningAgent{}
	}
	if a.Latest > 0 {
		d, err := s.store.Deployment(ctx, a.ID, a.Latest)
		if err != nil {
			return rep, err
		}
		wd := wireDeployment(d)
		rep.Deployment = &wd
	}
	return rep, nil
}

// validateAgentInput checks an Agent of a PUT for name: its kind, name,
// region and labels, and its spec.
func validateAgentInput(name string, in *resources.Agent, defaultRegion string) error {
	if err := resources.ValidateName(name); err != nil {
		return errInvalid("name: %v", err)
	}
	if in.APIVersion != "" && in.APIVersion != resources.APIVersion {
		return errInvalid("apiVersion: want %s", resources.APIVersion)
	}
	if in.Kind != "" && in.Kind != resources.KindAgent {
		return errInvalid("kind: want %s (this route writes agents)", resources.KindAgent)
	}
	if in.Metadata.Name != "" && in.Metadata.Name != name {
		return errInvalid("metadata.name: %s does not match the name in the path (%s)", in.Metadata.Name, name)
	}
	if in.Metadata.Region == "" {
		in.Metadata.Region = defaultRegion
	} else if err := resources.ValidateRegion(in.Metadata.Region); err != nil {
		return errInvalid("metadata.region: %v", err)
	}
	if err := resources.ValidateLabels(in.Metadata.Labels); err != nil {
		return errInvalid("metadata.labels: %v", err)
	}
	if err := resources.ValidateAgentSpec(in.Spec, runtime.ProfileNames()); err != nil {
		return errInvalid("%v", err)
	}
	return nil
}

// PutAgent creates p's agent name or replaces its spec and labels (no
// deployment). ifMatch (or metadata.resourceVersion) is a precondition.
func (s *Service) PutAgent(ctx context.Context, p Principal, name string, in resources.Agent, ifMatch string) (resources.Agent, bool, error) {
	if err := validateAgentInput(name, &in, p.org.DefaultRegion); err != nil {
		return resources.Agent{}, false, err
	}
	if in.Spec.Profile == "" {
		in.Spec.Profile = runtime.DefaultProfile
	}
	specJSON, err := json.Marshal(in.Spec)
	if err != nil {
		return resources.Agent{}, false, err
	}
	created := false
	err = s.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Agent(ctx, p.org.ID, name)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		for field, cond := range map[string]string{"If-Match": ifMatch, "metadata.resourceVersion": in.Metadata.ResourceVersion} {
			if cond == "" {
				continue
			}
			if !exists {
				return errConflict("%s: agent %s does not exist (it was deleted or never created)", field, name)
			}
			if !ifMatches(cond, cur.Version) {
				return errConflict("%s: agent/%s changed since %s (now resourceVersion %d); read it again and retry", field, name, describeETags(cond), cur.Version)
			}
		}
		if exists && cur.Region != in.Metadata.Region {
			return errAgentMoves(name, cur.Region, in.Metadata.Region)
		}
		now := time.Now().UTC()
		a := cur
		if !exists {
			a = store.Agent{OrgID: p.org.ID, Name: name, Region: in.Metadata.Region, CreatedAt: now}
			created = true
		}
		if exists && string(cur.Spec) == string(specJSON) && maps.Equal(cur.Labels, in.Metadata.Labels) && !cur.Managed {
			return nil // unchanged
		}
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		a.Spec, a.Labels, a.Version, a.UpdatedAt = specJSON, in.Metadata.Labels, v, now
		a.Generation++
		a.Managed, a.ApplySet = false, ""
		if _, err := tx.PutAgent(ctx, a); err != nil {
			if errors.Is(err, store.ErrExists) {
				return errConflict("agent %s was created meanwhile; read it and retry", name)
			}
			return err
		}
		action := "replace"
		if created {
			action = "create"
		}
		return tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: action, Kind: resources.KindAgent, Name: name, Region: a.Region})
	})
	if err != nil {
		return resources.Agent{}, false, err
	}
	s.agents.Enqueue(in.Metadata.Region, p.org.Name, name)
	out, err := s.GetAgent(ctx, p, name)
	return out, created, err
}

// PatchAgent changes p's agent's scaling or labels (no deployment); the
// reconciler adjusts the count.
func (s *Service) PatchAgent(ctx context.Context, p Principal, name string, pt resources.AgentPatch) (resources.Agent, error) {
	if pt.Scaling == nil && pt.Labels == nil {
		return resources.Agent{}, errInvalid("nothing to change: give scaling or labels")
	}
	if pt.Scaling != nil {
		if err := resources.ValidateAgentScaling(*pt.Scaling, "scaling"); err != nil {
			return resources.Agent{}, errInvalid("%v", err)
		}
	}
	if pt.Labels != nil {
		if err := resources.ValidateLabels(pt.Labels); err != nil {
			return resources.Agent{}, errInvalid("labels: %v", err)
		}
	}
	if pt.Scaling != nil {
		if err := s.checkScaleUp(ctx, p, name, *pt.Scaling); err != nil {
			return resources.Agent{}, err
		}
	}
	region := ""
	err := s.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		a, err := tx.Agent(ctx, p.org.ID, name)
		if errors.Is(err, store.ErrNotFound) {
			return errAgentNotFound(name)
		}
		if err != nil {
			return err
		}
		a.OrgName = p.org.Name
		spec, err := agents.SpecOf(a)
		if err != nil {
			return err
		}
		if pt.Scaling != nil {
			sc := *pt.Scaling
			spec.Scaling = &sc
		}
		if pt.Labels != nil {
			a.Labels = pt.Labels
		}
		if a.Spec, err = json.Marshal(spec); err != nil {
			return err
		}
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		a.Version, a.UpdatedAt = v, now
		a.Generation++
		if _, err := tx.PutAgent(ctx, a); err != nil {
			return err
		}
		region = a.Region
		return tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: "scale", Kind: resources.KindAgent, Name: name, Region: a.Region})
	})
	if err != nil {
		return resources.Agent{}, err
	}
	s.agents.Enqueue(region, p.org.Name, name)
	return s.GetAgent(ctx, p, name)
}

// checkScaleUp refuses scaling p's agent name up when its serving
// deployment's inputs are gone: no agent of it can start (scaling down
// stays possible).
func (s *Service) checkScaleUp(ctx context.Context, p Principal, name string, sc resources.AgentScaling) error {
	a, err := s.agent(ctx, p, name)
	if err != nil || a.Serving == 0 {
		return err
	}
	spec, err := agents.SpecOf(a)
	if err != nil || sc.MinAgents <= spec.MinAgents() {
		return err
	}
	d, err := s.store.Deployment(ctx, a.ID, a.Serving)
	if err != nil {
		return err
	}
	if err := s.agents.CheckDeployment(ctx, a, d); err != nil {
		return err
	}
	why, err := s.checkGrant(ctx, p, d)
	if err != nil {
		return err
	}
	if why != "" {
		return resources.Errorf(resources.CodeUnprocessable, "deployment %d's image cannot be pulled again: %s; nothing was scaled", d.Number, why)
	}
	return nil
}

// DeleteAgent deletes p's agent name and its deployments, and returns it
// as it was; the controller stops and removes its containers.
func (s *Service) DeleteAgent(ctx context.Context, p Principal, name string) (resources.Agent, error) {
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return resources.Agent{}, err
	}
	out, _, err := s.wireAgent(ctx, a)
	if err != nil {
		return out, err
	}
	err = s.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Agent(ctx, p.org.ID, name)
		if errors.Is(err, store.ErrNotFound) {
			return errAgentNotFound(name)
		}
		if err != nil {
			return err
		}
		if err := tx.DeleteAgent(ctx, cur.ID); err != nil {
			return err
		}
		return tx.Audit(ctx, store.AuditRecord{At: time.Now().UTC(), Org: p.org.Name, Actor: p.actor(), Action: "delete", Kind: resources.KindAgent, Name: name, Region: cur.Region})
	})
	if err == nil {
		s.enqueue(p, a)
	}
	return out, err
}

// Deploy makes a deployment of p's agent name (POST .../deployments): the
// spec validated, the image resolved to its digest through its registry
// with the pull secret's credentials, the secret set's current version
// pinned, the deployment recorded rolling-out (failed when the image
// cannot be resolved) and one reconcile pass run. With req.DryRun nothing
// is written; created is false then.
func (s *Service) Deploy(ctx context.Context, p Principal, name string, req resources.DeployRequest) (resources.Deployment, bool, error) {
	return s.deploy(ctx, p, name, req, "deploy")
}

// RolloutAgent makes a deployment of p's agent name as its spec stands,
// recorded with source "apply": what apply calls, after its transaction
// committed, for each agent whose spec it changed (a region without a
// runtime is the 422 of Deploy).
func (s *Service) RolloutAgent(ctx context.Context, p Principal, name string) (resources.Deployment, error) {
	d, _, err := s.deploy(ctx, p, name, resources.DeployRequest{}, "apply")
	return d, err
}

// RemoveAgentContainers has the controller stop and remove every
// container of agent a of p's organization, whose row is gone: what
// apply's prune calls for each agent it deleted, after its commit.
func (s *Service) RemoveAgentContainers(ctx context.Context, p Principal, a store.Agent) error {
	s.enqueue(p, a)
	return nil
}

func (s *Service) deploy(ctx context.Context, p Principal, name string, req resources.DeployRequest, source string) (resources.Deployment, bool, error) {
	var a store.Agent
	var spec resources.AgentSpec
	var put *agentWrite
	if req.Agent != nil {
		// The agent written with its deployment, in one transaction.
		in := *req.Agent
		if err := validateAgentInput(name, &in, p.org.DefaultRegion); err != nil {
			return resources.Deployment{}, false, err
		}
		if in.Spec.Profile == "" {
			in.Spec.Profile = runtime.DefaultProfile
		}
		cur, err := s.agent(ctx, p, name)
		var re *resources.Error
		switch {
		case err == nil:
			if cur.Region != in.Metadata.Region {
				return resources.Deployment{}, false, errAgentMoves(name, cur.Region, in.Metadata.Region)
			}
		case errors.As(err, &re) && re.Code == resources.CodeNotFound:
			cur = store.Agent{OrgID: p.org.ID, OrgName: p.org.Name, Name: name, Region: in.Metadata.Region}
		default:
			return resources.Deployment{}, false, err
		}
		a, spec = cur, in.Spec
		put = &agentWrite{labels: in.Metadata.Labels, ifVersion: in.Metadata.ResourceVersion}
	} else {
		var err error
		if a, err = s.agent(ctx, p, name); err != nil {
			return resources.Deployment{}, false, err
		}
		if spec, err = agents.SpecOf(a); err != nil {
			return resources.Deployment{}, false, err
		}
	}
	before := spec.Image
	if req.Image != "" {
		spec.Image = req.Image
	}
	if err := resources.ValidateAgentSpec(spec, runtime.ProfileNames()); err != nil {
		var fe *resources.FieldError
		if req.Image != "" && errors.As(err, &fe) && fe.Field == "spec.image" {
			return resources.Deployment{}, false, errInvalid("image: %s", fe.Problem)
		}
		return resources.Deployment{}, false, errInvalid("%v", err)
	}
	if err := s.agents.CheckEngine(ctx, a.Region); err != nil {
		return resources.Deployment{}, false, err
	}
	d, err := s.resolveDeployment(ctx, p, a, spec)
	if err != nil {
		return resources.Deployment{}, false, err
	}
	d.Source = source
	if req.DryRun {
		d.Number = a.Latest + 1
		return wireDeployment(d), false, nil
	}
	if put != nil || spec.Image != before {
		if put == nil {
			put = &agentWrite{labels: a.Labels}
		}
		if put.spec, err = json.Marshal(spec); err != nil {
			return resources.Deployment{}, false, err
		}
	}
	return s.record(ctx, p, a, d, put)
}

// agentWrite is the agent a deployment writes in its transaction: its
// spec and labels, and the precondition on its resourceVersion.
type agentWrite struct {
	spec      []byte
	labels    map[string]string
	ifVersion string
}

// resolveDeployment is the deployment spec makes now: the image's digest
// as its registry gives it with the pull secret's credentials, the secret
// set's current version. A pull secret or secret set that is missing or
// of another region is a 422; an image the registry refuses or does not
// have makes a failed deployment with the reason.
func (s *Service) resolveDeployment(ctx context.Context, p Principal, a store.Agent, spec resources.AgentSpec) (store.Deployment, error) {
	d := store.Deployment{AgentID: a.ID, At: time.Now().UTC(), Actor: p.actor(), Image: spec.Image,
		ImagePullSecret: spec.ImagePullSecret, SecretSetName: spec.SecretSet, Profile: spec.Profile, Result: resources.DeploymentRollingOut}
	if d.Profile == "" {
		d.Profile = runtime.DefaultProfile
	}
	ref, err := resources.ParseImageRef(spec.Image)
	if err != nil {
		return d, errInvalid("spec.image: %v", err)
	}
	object := func(name, kind, field string) (store.Object, error) {
		o, err := s.store.Object(ctx, p.org.ID, name)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return o, resources.Errorf(resources.CodeUnprocessable, "%s: %s %s does not exist in organization %s", field, strings.ToLower(kindWords(kind)), name, p.org.Name)
		case err != nil:
			return o, err
		case o.Kind != kind:
			return o, resources.Errorf(resources.CodeUnprocessable, "%s: %s is %s, not %s", field, name, kindWords(o.Kind), kindWords(kind))
		case o.Region != a.Region:
			return o, resources.Errorf(resources.CodeUnprocessable, "%s: %s is in region %s; agent %s runs in %s", field, name, o.Region, a.Name, a.Region)
		}
		return o, nil
	}
	var ips *store.Object
	if spec.ImagePullSecret != "" {
		o, err := object(spec.ImagePullSecret, resources.KindImagePullSecret, "spec.imagePullSecret")
		if err != nil {
			return d, err
		}
		if have, want := resources.RegistryName(o.Host), resources.RegistryName(ref.Registry); have != want {
			return d, resources.Errorf(resources.CodeUnprocessable, "spec.imagePullSecret: %s", registryMismatch(o.Name, have, want))
		}
		ips = &o
	}
	if spec.SecretSet != "" {
		o, err := object(spec.SecretSet, resources.KindSecretSet, "spec.secretSet")
		if err != nil {
			return d, err
		}
		d.SecretSetVersion, d.SecretSetCreated = o.Generation, o.CreatedAt.UnixNano()
	}
	if s.checkImage == nil {
		return d, resources.Errorf(resources.CodeUnprocessable, "this platform does not reach registries: the image's digest cannot be resolved")
	}
	base, creds, err := s.pullAccess(ctx, p.org.Name, ref, ips)
	if err != nil {
		return d, err
	}
	r := s.checkImage(ctx, ImageCheck{Base: base, Repository: ref.Repository, Reference: ref.Reference(), Credentials: creds})
	if r.Outcome == ImageFound {
		d.ImageDigest = imageName(ref) + "@" + r.Digest
		return d, s.checkEnginePlatform(ctx, a.Region, spec.Image, r.Platforms)
	}
	d.Message = imageRefusal(r, ref, creds != "", spec.ImagePullSecret)
	d.Result = resources.DeploymentFailed
	d.FinishedAt = &d.At
	return d, nil
}

// imageRefusal says why the registry of ref did not give the image (r,
// asked with pull secret ips's credentials when withCreds): the reason of
// a failed deployment.
func imageRefusal(r ImageResult, ref resources.ImageRef, withCreds bool, ips string) string {
	host := resources.RegistryName(ref.Registry)
	var msg string
	switch r.Outcome {
	case ImageUnauthorized:
		if !withCreds {
			msg = fmt.Sprintf("%s: %s wants credentials to pull %s: name an image pull secret in spec.imagePullSecret", runtime.ReasonUnauthorized, host, ref.Repository)
		} else {
			msg = fmt.Sprintf("%s: %s refused the credentials of image pull secret %s", runtime.ReasonUnauthorized, host, ips)
		}
	case ImageNotFound:
		msg = fmt.Sprintf("%s: %s has no %s: push the image first", runtime.ReasonImageNotFound, host, ref.Pull())
	default:
		msg = fmt.Sprintf("%s: %s", runtime.ReasonPullFailed, r.Message)
	}
	if r.Message != "" && r.Outcome != ImageUnreachable && r.Outcome != "" {
		msg += " (" + r.Message + ")"
	}
	return msg
}

// imageName is ref without its tag or digest, as written (the registry
// kept): what REPOSITORY@DIGEST is run as.
func imageName(ref resources.ImageRef) string {
	if ref.Registry == resources.DockerHub {
		return ref.Repository
	}
	return ref.Registry + "/" + ref.Repository
}

// record writes deployment d of a (numbered next, the agent's latest),
// with the agent's spec and labels when put is not nil (the agent created
// if missing), in one transaction: everything or nothing. A deployment
// still rolling out is superseded by it, with that result. The controller
// is woken; the answer is the deployment as recorded.
func (s *Service) record(ctx context.Context, p Principal, a store.Agent, d store.Deployment, put *agentWrite) (resources.Deployment, bool, error) {
	err := s.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Agent(ctx, p.org.ID, a.Name)
		exists := err == nil
		switch {
		case errors.Is(err, store.ErrNotFound) && put != nil:
			cur = store.Agent{OrgID: p.org.ID, Name: a.Name, Region: a.Region, CreatedAt: d.At}
		case errors.Is(err, store.ErrNotFound):
			return errAgentNotFound(a.Name)
		case err != nil:
			return err
		}
		if put != nil && put.ifVersion != "" {
			if !exists {
				return errConflict("metadata.resourceVersion: agent %s does not exist (it was deleted meanwhile)", a.Name)
			}
			// A deployment recorded or promoted meanwhile changes the
			// version too: a write that leaves the spec and labels as
			// they are loses nothing (two deploys of one file at once).
			same := string(cur.Spec) == string(put.spec) && maps.Equal(cur.Labels, put.labels)
			if !ifMatches(put.ifVersion, cur.Version) && !same {
				return errConflict("metadata.resourceVersion: agent/%s changed since %s (now resourceVersion %d); read it again and retry", a.Name, put.ifVersion, cur.Version)
			}
		}
		if exists && cur.Region != a.Region {
			return errAgentMoves(a.Name, cur.Region, a.Region)
		}
		if cur.Latest > cur.Serving {
			prev, err := tx.Deployment(ctx, cur.ID, cur.Latest)
			if err != nil {
				return err
			}
			if prev.Result == resources.DeploymentRollingOut {
				msg := fmt.Sprintf("superseded by deployment %d (%s, by %s) before it served", cur.Latest+1, d.Source, d.Actor)
				if err := tx.FinishDeployment(ctx, cur.ID, prev.Number, resources.DeploymentSuperseded, msg, d.At); err != nil {
					return err
				}
			}
		}
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		cur.Latest, cur.Version, cur.UpdatedAt = cur.Latest+1, v, d.At
		if put != nil && (string(cur.Spec) != string(put.spec) || !maps.Equal(cur.Labels, put.labels)) {
			cur.Spec, cur.Labels = put.spec, put.labels
			cur.Generation++
			cur.Managed, cur.ApplySet = false, ""
		}
		id, err := tx.PutAgent(ctx, cur)
		if err != nil {
			if errors.Is(err, store.ErrExists) {
				return errConflict("agent %s was created meanwhile; retry", a.Name)
			}
			return err
		}
		a.ID = id
		d.AgentID, d.Number = id, cur.Latest
		if err := tx.PutDeployment(ctx, d); err != nil {
			if errors.Is(err, store.ErrExists) {
				return errConflict("agent %s got deployment %d meanwhile; retry", a.Name, d.Number)
			}
			return err
		}
		if !exists {
			if err := tx.Audit(ctx, store.AuditRecord{At: d.At, Org: p.org.Name, Actor: p.actor(), Action: "create", Kind: resources.KindAgent, Name: a.Name, Region: cur.Region}); err != nil {
				return err
			}
		}
		return tx.Audit(ctx, store.AuditRecord{At: d.At, Org: p.org.Name, Actor: p.actor(), Action: d.Source, Kind: resources.KindAgent, Name: a.Name, Region: cur.Region})
	})
	if err != nil {
		return resources.Deployment{}, false, err
	}
	if d.Result == resources.DeploymentRollingOut {
		s.enqueue(p, a)
	}
	return wireDeployment(d), true, nil
}

// RollbackAgent makes a new deployment of p's agent name with deployment
// req.To's image digest and secret set version (0: the deployment that
// served before the serving one).
func (s *Service) RollbackAgent(ctx context.Context, p Principal, name string, req resources.RollbackRequest) (resources.Deployment, error) {
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return resources.Deployment{}, err
	}
	if err := s.agents.CheckEngine(ctx, a.Region); err != nil {
		return resources.Deployment{}, err
	}
	var from store.Deployment
	switch {
	case req.To < 0:
		return resources.Deployment{}, errInvalid("to: want a deployment number (1 and up)")
	case req.To > 0:
		if from, err = s.store.Deployment(ctx, a.ID, req.To); errors.Is(err, store.ErrNotFound) {
			return resources.Deployment{}, errNotFound("agent %s has no deployment %d", name, req.To)
		} else if err != nil {
			return resources.Deployment{}, err
		}
		if from.ImageDigest == "" {
			return resources.Deployment{}, resources.Errorf(resources.CodeUnprocessable, "deployment %d of agent %s never resolved its image (%s): nothing to roll back to", from.Number, name, from.Result)
		}
	default:
		found := false
		if a.Serving > 0 {
			list, err := s.store.Deployments(ctx, a.ID, a.Serving, 1000)
			if err != nil {
				return resources.Deployment{}, err
			}
			for _, d := range list {
				if d.Result == resources.DeploymentSuperseded && d.ImageDigest != "" && d.FinishedAt != nil && d.Message == "" {
					from, found = d, true
					break
				}
			}
		}
		if !found {
			return resources.Deployment{}, errConflict("agent %s has no deployment that served before the serving one: name one with --to N", name)
		}
	}
	if err := s.agents.CheckDeployment(ctx, a, from); err != nil {
		return resources.Deployment{}, err
	}
	d, err := s.granted(ctx, p, copyDeployment(p, from, "rollback"))
	if err != nil {
		return resources.Deployment{}, err
	}
	out, _, err := s.record(ctx, p, a, d, nil)
	return out, err
}

// copyDeployment is a new deployment that runs what from ran: its image
// digest, secret set version and profile.
func copyDeployment(p Principal, from store.Deployment, source string) store.Deployment {
	return store.Deployment{At: time.Now().UTC(), Actor: p.actor(), Source: source, RollbackOf: from.Number,
		Image: from.Image, ImageDigest: from.ImageDigest, ImagePullSecret: from.ImagePullSecret,
		SecretSetName: from.SecretSetName, SecretSetVersion: from.SecretSetVersion, SecretSetCreated: from.SecretSetCreated, Profile: from.Profile,
		Result: resources.DeploymentRollingOut}
}

// RestartAgent restarts p's agent name as a rollout: a new deployment that
// runs what the serving one runs (source "restart"), whose agents serve
// once ready, before the old ones stop.
func (s *Service) RestartAgent(ctx context.Context, p Principal, name string) (resources.Agent, error) {
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return resources.Agent{}, err
	}
	if !s.agents.HasRuntime(a.Region) {
		return resources.Agent{}, s.noRuntime(a.Region)
	}
	if a.Serving == 0 {
		return resources.Agent{}, errConflict("agent %s has no serving deployment to restart: botkit deploy makes one", name)
	}
	if err := s.agents.CheckEngine(ctx, a.Region); err != nil {
		return resources.Agent{}, err
	}
	serving, err := s.store.Deployment(ctx, a.ID, a.Serving)
	if err != nil {
		return resources.Agent{}, err
	}
	if err := s.agents.CheckDeployment(ctx, a, serving); err != nil {
		return resources.Agent{}, err
	}
	d, err := s.granted(ctx, p, copyDeployment(p, serving, "restart"))
	if err != nil {
		return resources.Agent{}, err
	}
	if _, _, err := s.record(ctx, p, a, d, nil); err != nil {
		return resources.Agent{}, err
	}
	return s.GetAgent(ctx, p, name)
}

// Deployments lists p's agent's deployments, newest first.
func (s *Service) Deployments(ctx context.Context, p Principal, name string) (resources.DeploymentList, error) {
	list := resources.DeploymentList{Items: []resources.Deployment{}}
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return list, err
	}
	rows, err := s.store.Deployments(ctx, a.ID, 0, 1000)
	if err != nil {
		return list, err
	}
	for _, d := range rows {
		list.Items = append(list.Items, wireDeployment(d))
	}
	return list, nil
}

// Deployment returns deployment number of p's agent name.
func (s *Service) Deployment(ctx context.Context, p Principal, name, number string) (resources.Deployment, error) {
	n, err := strconv.ParseInt(number, 10, 64)
	if err != nil || n < 1 {
		return resources.Deployment{}, errInvalid("deployment number: want 1 and up")
	}
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return resources.Deployment{}, err
	}
	d, err := s.store.Deployment(ctx, a.ID, n)
	if errors.Is(err, store.ErrNotFound) {
		return resources.Deployment{}, errNotFound("agent %s has no deployment %d", name, n)
	}
	if err != nil {
		return resources.Deployment{}, err
	}
	return wireDeployment(d), nil
}

// LogsRequest is GET .../logs' query, as given.
type LogsRequest struct {
	Follow, Since, Tail string
	// Session limits the lines to that session's agent ("": every agent).
	Session string
}

// parseLogs checks a logs query: follow true|false, since a duration
// (5m, 1h) or an RFC 3339 time, tail a count.
func parseLogs(q LogsRequest, now time.Time) (agents.LogOptions, error) {
	var o agents.LogOptions
	switch q.Follow {
	case "", "false":
	case "true":
		o.Follow = true
	default:
		return o, errInvalid("follow: want true or false")
	}
	if q.Since != "" {
		if d, err := time.ParseDuration(q.Since); err == nil && d > 0 {
			o.Since = now.Add(-d)
		} else if t, err := time.Parse(time.RFC3339, q.Since); err == nil {
			o.Since = t
		} else {
			return o, errInvalid("since: want a duration (5m, 1h) or an RFC 3339 time")
		}
	}
	if q.Tail != "" {
		n, err := strconv.Atoi(q.Tail)
		if err != nil || n < 0 || n > 100000 {
			return o, errInvalid("tail: want a number from 0 to 100000")
		}
		o.Tail = n
	}
	return o, nil
}

// AgentLogs checks a logs request of p's agent name, then returns the
// function that streams its lines to fn, every secret value masked (the
// HTTP layer answers before it streams).
func (s *Service) AgentLogs(ctx context.Context, p Principal, name string, q LogsRequest) (func(ctx context.Context, fn func(resources.AgentLogLine) error) error, error) {
	opts, err := parseLogs(q, time.Now())
	if err != nil {
		return nil, err
	}
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return nil, err
	}
	if !s.agents.HasRuntime(a.Region) {
		return nil, s.noRuntime(a.Region)
	}
	if q.Session != "" {
		ss, err := s.session(ctx, p.org, name, q.Session)
		if err != nil {
			return nil, err
		}
		if _, err := s.agents.SessionAgent(ctx, a, ss); err != nil {
			return nil, err
		}
		opts.Session = &ss
	}
	return s.agents.Logs(ctx, a, opts)
}

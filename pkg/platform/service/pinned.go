package service

import (
	"context"
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// A secret set or an image pull secret that a serving (or rolling-out)
// deployment pins is not deleted: that deployment's agents could not be
// started again (an agent that dies, a scale-up, a restart), nor their
// logs masked. Deleting the agent first, or deploying it without the
// object, frees it — a delete, a delete by manifest, a prune alike (an
// agent deleted or pruned by the same request frees what it pins). A
// deployment that no longer serves pins nothing: its rollback is refused
// once the object is gone (or was created again).

// pinnedBy returns the conflict that refuses deleting object name of p's
// organization when a serving or rolling-out deployment of one of its
// agents pins it; nil when none does (or the object does not exist: the
// delete says so). The agents of skip are deleted by the same request.
func (s *Service) pinnedBy(ctx context.Context, p Principal, name string, skip map[string]bool) error {
	o, err := s.store.Object(ctx, p.org.ID, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	list, err := s.store.Agents(ctx, p.org.ID, o.Region)
	if err != nil {
		return err
	}
	return pinning(ctx, s.store, o, list, skip)
}

// agentReader reads agents and their deployments: the store, or a
// transaction.
type agentReader interface {
	Agent(ctx context.Context, orgID int64, name string) (store.Agent, error)
	Deployment(ctx context.Context, agentID, number int64) (store.Deployment, error)
}

// pinning returns the conflict that refuses deleting o when a serving or
// rolling-out deployment of one of agents (read again through r; those of
// skip left out) pins it.
func pinning(ctx context.Context, r agentReader, o store.Object, agents []store.Agent, skip map[string]bool) error {
	for _, listed := range agents {
		if skip[listed.Name] || listed.Region != o.Region {
			continue
		}
		a, err := r.Agent(ctx, o.OrgID, listed.Name)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		for _, n := range []int64{a.Serving, a.Latest} {
			if n == 0 {
				continue
			}
			d, err := r.Deployment(ctx, a.ID, n)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if d.Result != resources.DeploymentServing && d.Result != resources.DeploymentRollingOut {
				continue
			}
			switch {
			case o.Kind == resources.KindSecretSet && d.SecretSetName == o.Name &&
				(d.SecretSetCreated == 0 || d.SecretSetCreated == o.CreatedAt.UnixNano()):
				return errConflict("secret set %s is in use: deployment %d of agent %s runs its version %d; delete the agent first (botkit cloud agents delete %s), or deploy it without the set, then delete the set",
					o.Name, d.Number, a.Name, d.SecretSetVersion, a.Name)
			case o.Kind == resources.KindImagePullSecret && d.ImagePullSecret == o.Name:
				return errConflict("image pull secret %s is in use: deployment %d of agent %s pulls its image with it; delete the agent first (botkit cloud agents delete %s), or deploy it without the pull secret, then delete it",
					o.Name, d.Number, a.Name, a.Name)
			}
		}
	}
	return nil
}

package agents

import (
	"context"
	"errors"
	"fmt"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// A deployment runs exactly what it pinned: its secret set's version (and
// the set's identity: a set deleted and created again under its name is
// another set) and its image pull secret. When one of them is gone, the
// deployment's agents cannot be started again nor their logs masked: the
// controller starts none, the commands that would start some (scale up,
// restart, rollback to it) and the logs answer why and what to do, and the
// status says it.

// The words of a deployment whose inputs are gone.
func setDeleted(d store.Deployment) *DeploymentError {
	return &DeploymentError{fmt.Sprintf("secret set %s was deleted: deployment %d runs its version %d, whose values are gone; botkit deploy with another set (or none) to run again",
		d.SecretSetName, d.Number, d.SecretSetVersion)}
}

func setRecreated(d store.Deployment) *DeploymentError {
	return &DeploymentError{fmt.Sprintf("secret set %s was deleted and created again after deployment %d pinned its version %d: the values it runs are gone; botkit deploy to run the set as it is now",
		d.SecretSetName, d.Number, d.SecretSetVersion)}
}

func versionPurged(d store.Deployment) *DeploymentError {
	return &DeploymentError{fmt.Sprintf("version %d of secret set %s, which deployment %d runs, is no longer kept (the organization's history limit): botkit deploy to run its current version",
		d.SecretSetVersion, d.SecretSetName, d.Number)}
}

func pullSecretDeleted(d store.Deployment) *DeploymentError {
	return &DeploymentError{fmt.Sprintf("image pull secret %s was deleted: deployment %d pulls its image with it; create it again (botkit cloud secrets image-pull-secret %s HOST) or botkit deploy without it",
		d.ImagePullSecret, d.Number, d.ImagePullSecret)}
}

// pinnedSet checks that o, read by d's secret set's name, is the set d
// pinned (its kind, its identity).
func pinnedSet(o store.Object, err error, d store.Deployment) (*DeploymentError, error) {
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && o.Kind != resources.KindSecretSet:
		return setDeleted(d), nil
	case err != nil:
		return nil, err
	case d.SecretSetCreated != 0 && o.CreatedAt.UnixNano() != d.SecretSetCreated:
		return setRecreated(d), nil
	}
	return nil, nil
}

// inputsGone says why deployment d of agent a cannot have its inputs (a
// *DeploymentError), reading no value; nil, nil when it can. Its error
// is the store's.
func (r *Reconciler) inputsGone(ctx context.Context, a store.Agent, d store.Deployment) (*DeploymentError, error) {
	if d.SecretSetName != "" {
		o, err := r.st.Object(ctx, a.OrgID, d.SecretSetName)
		if de, err := pinnedSet(o, err, d); de != nil || err != nil {
			return de, err
		}
		if o.Generation != d.SecretSetVersion {
			_, err := r.st.Version(ctx, o.ID, d.SecretSetVersion)
			if errors.Is(err, store.ErrNotFound) {
				return versionPurged(d), nil
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if d.ImagePullSecret != "" {
		o, err := r.st.Object(ctx, a.OrgID, d.ImagePullSecret)
		if errors.Is(err, store.ErrNotFound) || err == nil && o.Kind != resources.KindImagePullSecret {
			return pullSecretDeleted(d), nil
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// CheckDeployment returns nil when deployment d of agent a can have its
// inputs (the pinned secret set version, the pull secret), else the
// unprocessable error that says which is gone and what to do: what
// refuses a command that would start d's agents.
func (r *Reconciler) CheckDeployment(ctx context.Context, a store.Agent, d store.Deployment) error {
	if r == nil {
		return nil
	}
	de, err := r.inputsGone(ctx, a, d)
	if err != nil {
		return err
	}
	if de != nil {
		return resources.Errorf(resources.CodeUnprocessable, "%s", de.Message)
	}
	return nil
}

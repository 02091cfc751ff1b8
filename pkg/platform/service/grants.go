package service

import (
	"context"
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// A deployment's image is resolved, at deploy, with its pull secret's
// credentials. What starts its agents later (a rollback to it, a restart,
// a scale-up) asks the registry again, with the pull secret's current
// credentials, whether it still grants the image: credentials revoked at
// the registry, or an image deleted there, start nothing new — the
// engine's copy is not run past the registry's refusal. A registry that
// does not answer refuses nothing (the engine's copy runs).

// checkGrant asks the registry of deployment d's image whether the current
// credentials of d's pull secret (none without one) still get the image at
// d's digest: "" when they do or the registry does not answer, else why
// not (a failed deployment's reason).
func (s *Service) checkGrant(ctx context.Context, p Principal, d store.Deployment) (string, error) {
	if s.checkImage == nil || d.ImageDigest == "" {
		return "", nil
	}
	ref, err := resources.ParseImageRef(d.ImageDigest)
	if err != nil {
		return "", err
	}
	var ips *store.Object
	if d.ImagePullSecret != "" {
		o, err := s.store.Object(ctx, p.org.ID, d.ImagePullSecret)
		if errors.Is(err, store.ErrNotFound) {
			return "", nil // the deployment's inputs' check says it
		}
		if err != nil {
			return "", err
		}
		ips = &o
	}
	base, creds, err := s.pullAccess(ctx, p.org.Name, ref, ips)
	if err != nil {
		return "", err
	}
	r := s.checkImage(ctx, ImageCheck{Base: base, Repository: ref.Repository, Reference: ref.Reference(), Credentials: creds})
	if r.Outcome == ImageFound || r.Outcome == ImageUnreachable {
		return "", nil
	}
	return imageRefusal(r, ref, creds != "", d.ImagePullSecret), nil
}

// granted returns d, a deployment that copies another's image, failed
// with the registry's reason when the registry no longer grants the image
// (checkGrant): recorded so, it starts nothing.
func (s *Service) granted(ctx context.Context, p Principal, d store.Deployment) (store.Deployment, error) {
	why, err := s.checkGrant(ctx, p, d)
	if err != nil || why == "" {
		return d, err
	}
	d.Result, d.Message, d.FinishedAt = resources.DeploymentFailed, why, &d.At
	return d, nil
}

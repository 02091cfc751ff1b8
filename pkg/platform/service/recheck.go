package service

import (
	"context"
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// An image pull secret's check can fail for a reason outside it: the
// registry was down, or the operator's settings kept the platform from
// reaching it (botkit-platform serve without --allow-private-registries).
// Giving the same credentials again, or starting the platform again, has
// it checked again.

// recheck makes *o pending again, with no new version, when it is an
// image pull secret whose check failed (a write that changes nothing
// else): the provisioner checks it again.
func recheck(ctx context.Context, tx store.Tx, o *store.Object) error {
	if o.Kind != resources.KindImagePullSecret || o.State != resources.StateFailed {
		return nil
	}
	o.State, o.Message = resources.StatePending, ""
	_, err := tx.PutObject(ctx, *o)
	return err
}

// RecheckFailedPullSecrets makes every image pull secret whose check
// failed pending again, so that the provisioner checks it with the
// registry settings this platform runs with (botkit-platform serve calls
// it as it starts), and returns how many. A pull secret written meanwhile
// keeps what its write made it.
func (s *Service) RecheckFailedPullSecrets(ctx context.Context) (int, error) {
	orgs, err := s.store.Orgs(ctx)
	if err != nil {
		return 0, err
	}
	var updates []store.StatusUpdate
	regions := map[string]bool{}
	for _, org := range orgs {
		var failed []string
		err := s.store.List(ctx, store.ListQuery{OrgID: org.ID, Kind: resources.KindImagePullSecret}, func(it *store.ListItem) (bool, error) {
			if it.State == resources.StateFailed {
				failed = append(failed, it.Name)
			}
			return true, nil
		})
		if err != nil {
			return 0, err
		}
		for _, name := range failed {
			o, err := s.store.Object(ctx, org.ID, name)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return 0, err
			}
			if o.State == resources.StateFailed {
				updates = append(updates, store.StatusUpdate{ObjectID: o.ID, Generation: o.Generation, State: resources.StatePending})
				regions[o.Region] = true
			}
		}
	}
	if len(updates) == 0 {
		return 0, nil
	}
	n, err := s.store.SetStatus(ctx, updates)
	for region := range regions {
		s.wake(region)
	}
	return n, err
}

package agents

import (
	"context"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// An image pulled with credentials is pulled again before its agents
// start (a rollout, a scale-up, a replacement), even when the engine holds
// it: the registry says whether the pull secret's current credentials
// still get it. Credentials it refuses, or an image it no longer has,
// start nothing; a registry that does not answer refuses nothing (the
// engine's copy runs).

// pulled is what the end of a pull of image (err its error) means for
// the agents to start: nil when they start — the pull succeeded, or it
// failed without the registry refusing and the engine holds the image.
func (r *Reconciler) pulled(ctx context.Context, rt runtime.Runtime, image string, err error) error {
	if err == nil {
		return nil
	}
	switch runtime.ReasonOf(err) {
	case runtime.ReasonUnauthorized, runtime.ReasonImageNotFound:
		return err
	}
	if held(ctx, rt, image) {
		return nil
	}
	return err
}

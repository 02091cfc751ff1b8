package agents

import "context"

// EnginePlatform returns the platform ("linux/amd64") of the engine that
// runs region's agents; "" and no error when the region has no runtime.
func (r *Reconciler) EnginePlatform(ctx context.Context, region string) (string, error) {
	rt := r.runtimeOf(region)
	if rt == nil {
		return "", nil
	}
	return rt.Platform(ctx)
}

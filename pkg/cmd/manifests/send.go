package manifests

import (
	"context"
	"fmt"

	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// API is the platform's manifest operations, one organization per call
// (pkg/client implements it over HTTP or in-process).
type API interface {
	Apply(ctx context.Context, org string, req resources.ApplyRequest) (resources.ApplyResult, error)
	DeleteObjects(ctx context.Context, org string, req resources.DeleteRequest) (resources.DeleteResult, error)
}

// applyRequest is the apply request's options other than its objects.
type applyRequest struct {
	ApplySet string
	Prune    bool
	Selector string
	DryRun   bool
}

// OrgApply is the answer of the platform for one organization.
type OrgApply struct {
	Organization string
	Result       resources.ApplyResult
}

// sendApply sends each group in one request (atomic per organization), in
// organization order, and stops at the first failure: the organizations
// before it are applied, that one and the rest are not. It returns the
// answers so far with the error.
func sendApply(ctx context.Context, api API, groups []apply.Group, opts applyRequest) ([]OrgApply, error) {
	var out []OrgApply
	for _, g := range groups {
		res, err := api.Apply(ctx, g.Organization, resources.ApplyRequest{
			Objects: g.Objects(), ApplySet: opts.ApplySet, Prune: opts.Prune, Selector: opts.Selector, DryRun: opts.DryRun,
		})
		if err != nil {
			return out, fmt.Errorf("organization %s: %w", g.Organization, err)
		}
		out = append(out, OrgApply{Organization: g.Organization, Result: res})
	}
	return out, nil
}

// deleteRequest is the delete request's options other than its objects.
type deleteRequest struct {
	IgnoreNotFound bool
	DryRun         bool
}

// OrgDelete is the answer of the platform for one organization.
type OrgDelete struct {
	Organization string
	Result       resources.DeleteResult
}

// sendDelete deletes the objects the groups name, one request (one
// transaction) per organization, stopping at the first failure.
func sendDelete(ctx context.Context, api API, groups []apply.Group, opts deleteRequest) ([]OrgDelete, error) {
	var out []OrgDelete
	for _, g := range groups {
		req := resources.DeleteRequest{IgnoreNotFound: opts.IgnoreNotFound, DryRun: opts.DryRun}
		for _, d := range g.Documents {
			req.Objects = append(req.Objects, resources.ObjectRef{Kind: d.Kind(), Name: d.Name(), Region: d.Object.Meta().Region})
		}
		res, err := api.DeleteObjects(ctx, g.Organization, req)
		if err != nil {
			return out, fmt.Errorf("organization %s: %w", g.Organization, err)
		}
		out = append(out, OrgDelete{Organization: g.Organization, Result: res})
	}
	return out, nil
}

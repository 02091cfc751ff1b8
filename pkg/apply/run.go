package apply

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// API is the platform's manifest operations, one organization per call
// (pkg/client implements it over HTTP or in-process).
type API interface {
	Apply(ctx context.Context, org string, req resources.ApplyRequest) (resources.ApplyResult, error)
	DeleteObjects(ctx context.Context, org string, req resources.DeleteRequest) (resources.DeleteResult, error)
}

// ApplyOptions are the apply request's options other than its objects.
type ApplyOptions struct {
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

// Apply sends each group in one request (atomic per organization), in
// organization order, and stops at the first failure: the organizations
// before it are applied, that one and the rest are not. It returns the
// answers so far with the error.
func Apply(ctx context.Context, api API, groups []Group, opts ApplyOptions) ([]OrgApply, error) {
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

// Plan is Apply as a dry run: what apply would do, computed by the platform
// against what it stores (diff and --dry-run=server).
func Plan(ctx context.Context, api API, groups []Group, opts ApplyOptions) ([]OrgApply, error) {
	opts.DryRun = true
	return Apply(ctx, api, groups, opts)
}

// DeleteOptions are the delete request's options other than its objects.
type DeleteOptions struct {
	IgnoreNotFound bool
	DryRun         bool
}

// OrgDelete is the answer of the platform for one organization.
type OrgDelete struct {
	Organization string
	Result       resources.DeleteResult
}

// Delete deletes the objects the groups name, one request (one
// transaction) per organization, stopping at the first failure.
func Delete(ctx context.Context, api API, groups []Group, opts DeleteOptions) ([]OrgDelete, error) {
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

func dryRunSuffix(dry bool) string {
	if dry {
		return " (dry run)"
	}
	return ""
}

// WriteApplyLines writes one line per object: "secretset/NAME created",
// configured, unchanged or pruned, with " (dry run)" for a dry run.
func WriteApplyLines(w io.Writer, results []OrgApply) error {
	var b strings.Builder
	for _, r := range results {
		for _, it := range r.Result.Items {
			fmt.Fprintf(&b, "%s %s%s\n", iostreams.Printable(it.Ref()), iostreams.Printable(it.Action), dryRunSuffix(r.Result.DryRun))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteDeleteLines writes one line per deleted object: "secretset/NAME
// deleted" (with " (dry run)"); objects that were not found (with
// ignoreNotFound) get no line, as in kubectl.
func WriteDeleteLines(w io.Writer, results []OrgDelete) error {
	var b strings.Builder
	for _, r := range results {
		for _, it := range r.Result.Items {
			if it.Action == resources.ActionNotFound {
				continue
			}
			fmt.Fprintf(&b, "%s %s%s\n", iostreams.Printable(it.Ref()), iostreams.Printable(it.Action), dryRunSuffix(r.Result.DryRun))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var changeMark = map[string]string{
	resources.ChangeAdded:   "+",
	resources.ChangeChanged: "~",
	resources.ChangeRemoved: "-",
}

var actionMark = map[string]string{
	resources.ActionCreated:    "+",
	resources.ActionConfigured: "~",
	resources.ActionPruned:     "-",
}

// WriteDiff writes what a plan changes, per object and then per key and
// field: "+" added, "~" changed, "-" removed (objects to prune and their
// keys included). Unchanged objects, keys and fields are not shown; no
// value ever is. It reports whether anything differs (diff's exit status
// 1).
//
//	~ secretset/app
//	    ~ OPENAI_API_KEY
//	    - OLD_KEY
//	    + NEW_KEY
//	    ~ metadata.labels
//	+ secretset/new
//	    + LOG_LEVEL
//	- secretset/gone (prune)
//	    - A
func WriteDiff(w io.Writer, results []OrgApply) (bool, error) {
	var b strings.Builder
	changed := false
	multi := len(results) > 1
	for _, r := range results {
		for _, it := range r.Result.Items {
			mark, ok := actionMark[it.Action]
			if !ok {
				continue
			}
			changed = true
			b.WriteString(mark + " " + iostreams.Printable(it.Ref()))
			if multi {
				b.WriteString(" (organization " + iostreams.Printable(r.Organization) + ")")
			}
			if it.Action == resources.ActionPruned {
				b.WriteString(" (prune)")
			}
			b.WriteByte('\n')
			for _, k := range it.Keys {
				if m, ok := changeMark[k.Change]; ok {
					b.WriteString("    " + m + " " + iostreams.Printable(k.Key) + "\n")
				}
			}
			for _, f := range it.Fields {
				// Ownership is news only for an object that exists.
				if it.Action != resources.ActionConfigured && strings.HasPrefix(f.Field, "metadata.") && f.Field != "metadata.labels" {
					continue
				}
				if m, ok := changeMark[f.Change]; ok {
					b.WriteString("    " + m + " " + iostreams.Printable(f.Field) + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return changed, err
}

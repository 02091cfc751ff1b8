package manifests

import (
	"io"
	"strings"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// writeApplyLines writes one line per object: "secretset/NAME created",
// configured, unchanged or pruned, with " (dry run)" for a dry run.
func writeApplyLines(w io.Writer, results []OrgApply) error {
	var ops []printers.Operation
	for _, r := range results {
		for _, it := range r.Result.Items {
			op := printers.Operation{Ref: it.Ref(), Action: it.Action, DryRun: r.Result.DryRun}
			if it.Object != nil && !r.Result.DryRun && (it.Action == resources.ActionCreated || it.Action == resources.ActionConfigured) {
				op.Version = it.Object.Meta().Generation
			}
			ops = append(ops, op)
		}
	}
	return printers.PrintOperations(w, ops...)
}

// writeDeleteLines writes one line per deleted object: "secretset/NAME
// deleted" (with " (dry run)"); objects that were not found (with
// ignoreNotFound) get no line, as in kubectl.
func writeDeleteLines(w io.Writer, results []OrgDelete) error {
	var ops []printers.Operation
	for _, r := range results {
		for _, it := range r.Result.Items {
			if it.Action != resources.ActionNotFound {
				ops = append(ops, printers.Operation{Ref: it.Ref(), Action: it.Action, DryRun: r.Result.DryRun})
			}
		}
	}
	return printers.PrintOperations(w, ops...)
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

// writeDiff writes what a plan changes, per object and then per key and
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
func writeDiff(w io.Writer, results []OrgApply) (bool, error) {
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

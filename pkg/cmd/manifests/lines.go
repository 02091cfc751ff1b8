package manifests

import (
	"fmt"
	"io"
	"strings"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// writeApplyLines writes one line per object: "secretset/NAME created",
// configured, unchanged or pruned, with " (dry run)" for a dry run; an
// agent that apply rolls out says which deployment does and how it stands
// ("agent/NAME configured: deployment 2 serving (version 3)").
func writeApplyLines(w io.Writer, results []OrgApply) error {
	var ops []printers.Operation
	for _, r := range results {
		for _, it := range r.Result.Items {
			op := printers.Operation{Ref: it.Ref(), Action: it.Action, DryRun: r.Result.DryRun}
			if it.Object != nil && !r.Result.DryRun && (it.Action == resources.ActionCreated || it.Action == resources.ActionConfigured) {
				op.Version = it.Object.Meta().Generation
			}
			switch {
			case it.Deployment != nil:
				// "agent/NAME created: deployment 1 rolling-out"
				op.Detail = fmt.Sprintf("deployment %d %s", it.Deployment.Number, it.Deployment.Result)
			case it.Message != "":
				op.Detail = it.Message
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
// keys included), and under metadata.labels each label that changes with
// its old and new value (labels are not secret). Unchanged objects, keys
// and fields are not shown; no value ever is. An object that an apply set
// other than applySet owns says so. It reports whether anything differs
// (diff's exit status 1).
//
//	~ secretset/app
//	    ~ OPENAI_API_KEY
//	    - OLD_KEY
//	    + NEW_KEY
//	    ~ metadata.labels
//	        ~ team: voice -> support
//	+ secretset/new
//	    + LOG_LEVEL
//	~ secretset/other (apply set voice-prod)
//	    + B
//	- secretset/gone (prune)
//	    - A
func writeDiff(w io.Writer, diffs []orgDiff, applySet string) (bool, error) {
	var b strings.Builder
	changed := false
	multi := len(diffs) > 1
	for _, d := range diffs {
		for _, it := range d.Result.Items {
			mark, ok := actionMark[it.Action]
			if !ok {
				continue
			}
			changed = true
			b.WriteString(mark + " " + iostreams.Printable(it.Ref()))
			if multi {
				b.WriteString(" (organization " + iostreams.Printable(d.Organization) + ")")
			}
			if owner := d.owner(it.Ref()); owner != "" && owner != applySet {
				b.WriteString(" (apply set " + iostreams.Printable(owner) + ")")
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
				m, ok := changeMark[f.Change]
				if !ok {
					continue
				}
				b.WriteString("    " + m + " " + iostreams.Printable(f.Field))
				if it.Kind == resources.KindAgent && strings.HasPrefix(f.Field, "spec.") {
					// An agent's spec holds no secret: old and new value.
					writeValueChange(&b, f.Change, f.From, f.To)
				}
				b.WriteByte('\n')
				if f.Field == "metadata.labels" {
					had, has := d.labels(it)
					for _, l := range labelChanges(had, has) {
						writeLabel(&b, l)
					}
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return changed, err
}

// writeValueChange writes ": new", ": old -> new" or ": old" after a
// field that is added, changed or removed.
func writeValueChange(b *strings.Builder, change, from, to string) {
	switch change {
	case resources.ChangeAdded:
		b.WriteString(": " + iostreams.Printable(to))
	case resources.ChangeRemoved:
		b.WriteString(": " + iostreams.Printable(from))
	case resources.ChangeChanged:
		b.WriteString(": " + iostreams.Printable(from) + " -> " + iostreams.Printable(to))
	}
}

// writeLabel writes the line of a label that changes: "+ team: voice",
// "~ team: voice -> support", "- team: voice".
func writeLabel(b *strings.Builder, l resources.LabelChange) {
	m, ok := changeMark[l.Change]
	if !ok {
		return
	}
	b.WriteString("        " + m + " " + iostreams.Printable(l.Label) + ": ")
	switch l.Change {
	case resources.ChangeAdded:
		b.WriteString(iostreams.Printable(l.To))
	case resources.ChangeRemoved:
		b.WriteString(iostreams.Printable(l.From))
	default:
		b.WriteString(iostreams.Printable(l.From) + " -> " + iostreams.Printable(l.To))
	}
	b.WriteByte('\n')
}

// writeOwners notes on stderr each object of the manifests that an apply
// set other than applySet owns: apply would refuse it without that
// --applyset.
func writeOwners(w io.Writer, diffs []orgDiff, applySet string) error {
	var b strings.Builder
	for _, d := range diffs {
		for _, it := range d.Result.Items {
			if owner := d.owner(it.Ref()); owner != "" && owner != applySet && it.Action != resources.ActionPruned {
				fmt.Fprintf(&b, "note: %s belongs to apply set %s: apply it with --applyset %s\n",
					iostreams.Printable(it.Ref()), iostreams.Printable(owner), iostreams.Printable(owner))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// differs reports whether a diff's plan changes anything.
func differs(rep resources.ApplyReport) bool {
	for _, it := range rep.Items {
		if _, ok := actionMark[it.Action]; ok {
			return true
		}
	}
	return false
}

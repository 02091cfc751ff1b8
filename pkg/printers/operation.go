package printers

import (
	"io"
	"strings"

	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// Operation is the line a command prints for an object it acted on, as
// kubectl's name printer with an operation does: "secretset/app
// configured", with a detail after a colon ("configured: added A; updated
// B") and " (dry run)" when nothing was written. Every command's object
// lines are Operations: apply, diff's dry runs, delete, set, unset,
// image-pull-secret, botkit-platform orgs create.
type Operation struct {
	Ref    string // kind/name
	Action string // created, configured, unchanged, pruned, deleted, ...
	Detail string // optional
	DryRun bool
}

// String is the line, printable (no terminal escapes from the platform).
func (o Operation) String() string {
	s := iostreams.Printable(o.Ref) + " " + iostreams.Printable(o.Action)
	if o.Detail != "" {
		s += ": " + iostreams.Printable(o.Detail)
	}
	if o.DryRun {
		s += " (dry run)"
	}
	return s
}

// PrintOperations writes one line per operation, in one write.
func PrintOperations(w io.Writer, ops ...Operation) error {
	var b strings.Builder
	for _, o := range ops {
		b.WriteString(o.String())
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

package printers

import (
	"io"
	"strconv"
	"strings"

	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// Operation is the line a command prints for an object it acted on, as
// kubectl's name printer with an operation does: "secretset/app
// configured", with a detail after a colon ("configured: added A; updated
// B"), the version it wrote (" (version 7)") and " (dry run)" when nothing
// was written. Every command's object
// lines are Operations: apply, diff's dry runs, delete, set, unset,
// image-pull-secret, botkit-platform orgs create.
type Operation struct {
	Ref    string // kind/name
	Action string // created, configured, unchanged, pruned, deleted, ...
	Detail string // optional
	// Version is the version of the object's contents the operation wrote
	// (metadata.generation; 0: none to report).
	Version int64
	DryRun  bool
}

// String is the line, printable (no terminal escapes from the platform).
func (o Operation) String() string {
	s := iostreams.Printable(o.Ref) + " " + iostreams.Printable(o.Action)
	if o.Detail != "" {
		s += ": " + iostreams.Printable(o.Detail)
	}
	if o.Version > 0 {
		s += " (version " + strconv.FormatInt(o.Version, 10) + ")"
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

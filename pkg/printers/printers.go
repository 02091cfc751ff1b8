// Package printers prints botkit objects (SecretSet, ImagePullSecret) in the
// formats every command offers through -o/--output: table (the default), wide,
// json, yaml and name.
//
// Several objects print as rows (table, wide), as a List (json, yaml) or as
// one kind/name per line (name); an empty result prints "No resources found"
// on stderr in the row formats and an empty List in json and yaml. One named
// object prints bare: a detail view in table and wide, the object itself in
// json and yaml.
//
// Nothing here ever prints a secret value: spec.data and spec.credentials are
// dropped before any format sees an object, and spec.keys (the key names)
// shows instead.
package printers

import (
	"time"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/spf13/cobra"
)

// Output formats.
const (
	FormatTable = "table"
	FormatWide  = "wide"
	FormatJSON  = "json"
	FormatYAML  = "yaml"
	FormatName  = "name"
)

// Formats returns the valid output formats, the default first.
func Formats() []string {
	return []string{FormatTable, FormatWide, FormatJSON, FormatYAML, FormatName}
}

// NoResourcesMessage is what the row formats print on stderr for an empty
// result.
const NoResourcesMessage = "No resources found"

// Printer prints objects in one format. Data goes to ios.Out; the only thing a
// printer writes to ios.ErrOut is NoResourcesMessage.
type Printer interface {
	// PrintList prints the result of a listing: any number of objects, in
	// the order given. Zero objects print NoResourcesMessage on stderr
	// (table, wide, name) or an empty List (json, yaml).
	PrintList(ios *iostreams.IOStreams, objs []resources.Object) error
	// PrintObject prints one object the user named: a detail view (table,
	// wide), the bare object (json, yaml) or kind/name (name).
	PrintObject(ios *iostreams.IOStreams, obj resources.Object) error
}

// New returns the printer for format ("" means table). now gives the current
// time the AGE column is measured against; nil means time.Now.
func New(format string, now func() time.Time) (Printer, error) {
	if now == nil {
		now = time.Now
	}
	switch format {
	case FormatTable, "":
		return &tablePrinter{now: now}, nil
	case FormatWide:
		return &tablePrinter{now: now, wide: true}, nil
	case FormatJSON:
		return jsonPrinter{}, nil
	case FormatYAML:
		return yamlPrinter{}, nil
	case FormatName:
		return namePrinter{}, nil
	}
	return nil, cmdutil.CheckEnum("output", format, Formats())
}

// Flags is -o/--output, kubectl's PrintFlags: every command that prints
// objects or rows binds it (botkit-platform's too), so that the formats a
// command allows, its default, the check and the help read the same
// everywhere. The zero value allows every format and defaults to table.
type Flags struct {
	// Output is the format chosen ("" : the default).
	Output string
	// Now is the clock AGE is measured against (nil: time.Now). Tests set it.
	Now func() time.Time

	formats []string // the formats allowed (nil: Formats())
	lines   bool     // no -o prints the command's own lines (Operation)
}

// NewFlags returns Flags defaulting to the table format, every format
// allowed.
func NewFlags() *Flags { return &Flags{Output: FormatTable} }

// WithFormats limits -o to formats (the first is the default unless
// WithLines).
func (f *Flags) WithFormats(formats ...string) *Flags {
	f.formats = formats
	if !f.lines && len(formats) > 0 {
		f.Output = formats[0]
	}
	return f
}

// WithLines makes the default, no -o, the command's own lines (one
// Operation per object, as apply prints them); -o then prints objects.
func (f *Flags) WithLines() *Flags {
	f.lines, f.Output = true, ""
	return f
}

func (f *Flags) allowed() []string {
	if f.formats == nil {
		return Formats()
	}
	return f.formats
}

// AddFlags registers -o/--output on cmd: checked when parsed, the formats
// in its help and its completions.
func (f *Flags) AddFlags(cmd *cobra.Command) {
	usage := "Output format"
	if f.lines {
		usage = "Print the objects in this format instead of a line each"
	}
	cmdutil.EnumFlag(cmd, &f.Output, "output", "o", f.Output, f.allowed(), usage)
}

// Lines reports whether no -o was given to a command WithLines: it prints
// its own lines.
func (f *Flags) Lines() bool { return f.lines && f.Output == "" }

// Validate checks Output (for a run function called without cobra, which
// did not parse the flag): a flag error naming the allowed formats.
func (f *Flags) Validate() error {
	if f.Output == "" {
		return nil // the default
	}
	return cmdutil.CheckEnum("output", f.Output, f.allowed())
}

// ToPrinter returns the printer of the chosen format.
func (f *Flags) ToPrinter() (Printer, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return New(f.Output, f.Now)
}

// IsTable reports whether the chosen format is table or wide (the formats
// meant for people rather than programs).
func (f *Flags) IsTable() bool {
	return f.Output == FormatTable || f.Output == FormatWide || (f.Output == "" && !f.lines)
}

// PrintRows prints rows that are not platform objects (organizations,
// regions, tokens) in the chosen format; see PrintRows.
func (f *Flags) PrintRows(ios *iostreams.IOStreams, header []string, rows [][]string, v any) error {
	if err := f.Validate(); err != nil {
		return err
	}
	return PrintRows(ios, f.Output, header, rows, v)
}

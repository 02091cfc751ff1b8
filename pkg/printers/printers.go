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
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
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

// UnknownFormatError is returned for an -o value that is not a format.
type UnknownFormatError struct {
	Format string
	Valid  []string
}

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("--output: unknown format %q (valid: %s)", e.Format, strings.Join(e.Valid, ", "))
}

// ErrorCode makes it invalid input (exit 2; see cmdutil.Coded).
func (e *UnknownFormatError) ErrorCode() string { return resources.CodeInvalid }

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
	return nil, &UnknownFormatError{Format: format, Valid: Formats()}
}

// Flags is the -o/--output flag, bound once per command.
type Flags struct {
	// Output is the format name; NewFlags sets it to "table".
	Output string
	// Now is the clock AGE is measured against (nil: time.Now). Tests set it.
	Now func() time.Time
}

// NewFlags returns Flags defaulting to the table format.
func NewFlags() *Flags { return &Flags{Output: FormatTable} }

// AddFlags registers -o/--output on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&f.Output, "output", "o", f.Output,
		"Output format: one of "+strings.Join(Formats(), "|"))
}

// ToPrinter returns the printer for the chosen format, or an
// *UnknownFormatError.
func (f *Flags) ToPrinter() (Printer, error) { return New(f.Output, f.Now) }

// IsTable reports whether the chosen format is table or wide (the formats
// meant for people rather than programs).
func (f *Flags) IsTable() bool {
	return f.Output == FormatTable || f.Output == FormatWide || f.Output == ""
}

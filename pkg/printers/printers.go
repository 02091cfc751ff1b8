// Package printers prints botkit objects (SecretSet, ImagePullSecret) in the
// formats every command offers through -o/--output: table (the default), wide,
// json, yaml and name, and, wherever json is one of them, --jq EXPR (a jq
// expression on the JSON form, gojq) and Go templates (-o go-template=...,
// -o go-template-file=PATH, --template).
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
	"bytes"
	"slices"
	"strings"
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

	// JQ is --jq: a jq expression the JSON form goes through.
	JQ string
	// Template is --template: a Go template the JSON form goes through.
	Template string

	formats []string // the formats allowed (nil: Formats())
	lines   bool     // no -o prints the command's own lines (Operation)
	def     string   // the default Output

	outputSet bool            // -o was given
	jq        *jqFilter       // JQ compiled
	tmpl      *templateFilter // Template parsed
	oTmpl     *templateFilter // -o go-template=... / go-template-file=... parsed
}

// NewFlags returns Flags defaulting to the table format, every format
// allowed.
func NewFlags() *Flags { return &Flags{Output: FormatTable, def: FormatTable} }

// WithFormats limits -o to formats (the first is the default unless
// WithLines).
func (f *Flags) WithFormats(formats ...string) *Flags {
	f.formats = formats
	if !f.lines && len(formats) > 0 {
		f.Output, f.def = formats[0], formats[0]
	}
	return f
}

// WithLines makes the default, no -o, the command's own lines (one
// Operation per object, as apply prints them); -o then prints objects.
func (f *Flags) WithLines() *Flags {
	f.lines, f.Output, f.def = true, "", ""
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
	values := f.allowed()
	shown := strings.Join(values, "|")
	if f.filters() {
		shown += "|" + FormatGoTemplate + "=TEMPLATE|" + FormatGoTemplateFile + "=PATH"
	}
	cmd.Flags().VarP(&outputValue{f: f}, "output", "o", usage+" (one of: "+shown+")")
	// The template formats are not completed: their value follows "=",
	// and completing them would take the space after every format away.
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	if f.filters() {
		cmd.Flags().Var(&jqValue{f: f}, "jq", "Filter the JSON output with a jq `expression` (strings print raw, other values as compact JSON)")
		cmd.Flags().Var(&templateValue{f: f}, "template", "Format the JSON output with a Go `template` (text/template; same as -o go-template=TEMPLATE)")
	}
}

// filters reports whether --jq and templates apply: wherever -o json does.
func (f *Flags) filters() bool { return slices.Contains(f.allowed(), FormatJSON) }

// Lines reports whether no -o was given to a command WithLines: it prints
// its own lines (--jq and --template print the objects).
func (f *Flags) Lines() bool {
	return f.lines && f.Output == "" && f.JQ == "" && f.Template == ""
}

// Validate checks Output, JQ and Template (for a run function called
// without cobra, which did not parse the flags, and for the combinations of
// flags): a flag error naming the flag.
func (f *Flags) Validate() error {
	_, err := f.validate()
	return err
}

func (f *Flags) validate() (filter, error) {
	if f.Output != "" {
		if format, _, _ := parseOutput(f.Output); format != FormatGoTemplate && format != FormatGoTemplateFile {
			if err := cmdutil.CheckEnum("output", f.Output, f.allowed()); err != nil {
				return nil, err
			}
		} else if !f.filters() {
			return nil, cmdutil.CheckEnum("output", f.Output, f.allowed())
		}
	}
	if !f.filters() {
		return nil, nil
	}
	return f.checkFilters()
}

// ToPrinter returns the printer of the chosen format.
func (f *Flags) ToPrinter() (Printer, error) {
	flt, err := f.validate()
	if err != nil {
		return nil, err
	}
	if flt != nil {
		return filterPrinter{f: flt}, nil
	}
	return New(f.Output, f.Now)
}

// IsTable reports whether the chosen format is table or wide (the formats
// meant for people rather than programs).
func (f *Flags) IsTable() bool {
	if f.JQ != "" || f.Template != "" {
		return false
	}
	return f.Output == FormatTable || f.Output == FormatWide || (f.Output == "" && !f.lines)
}

// PrintRows prints rows that are not platform objects (organizations,
// regions, tokens) in the chosen format; see PrintRows. With --jq or a
// template, v goes through it.
func (f *Flags) PrintRows(ios *iostreams.IOStreams, header []string, rows [][]string, v any) error {
	flt, err := f.validate()
	if err != nil {
		return err
	}
	if flt != nil {
		return writeFiltered(ios, flt, v)
	}
	return PrintRows(ios, f.Output, header, rows, v)
}

// PrintValue prints v, a value that is not a platform object (an apply's
// result, a diff), in the chosen format: json, yaml, or through --jq or a
// template. Row formats are the caller's.
func (f *Flags) PrintValue(ios *iostreams.IOStreams, v any) error {
	flt, err := f.validate()
	if err != nil {
		return err
	}
	if flt != nil {
		return writeFiltered(ios, flt, v)
	}
	switch f.Output {
	case FormatYAML:
		return writeYAML(ios.Out, v)
	case FormatJSON:
		return writeJSON(ios.Out, v)
	}
	return cmdutil.CheckEnum("output", f.Output, []string{FormatJSON, FormatYAML})
}

// writeFiltered writes v's JSON form through flt.
func writeFiltered(ios *iostreams.IOStreams, flt filter, v any) error {
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		return err
	}
	return flt.apply(ios.Out, b.Bytes())
}

// filterPrinter prints what the json printer prints, through a jq
// expression or a Go template.
type filterPrinter struct{ f filter }

func (p filterPrinter) run(ios *iostreams.IOStreams, print func(*iostreams.IOStreams) error) error {
	var b bytes.Buffer
	tmp := *ios
	tmp.Out = &b
	if err := print(&tmp); err != nil {
		return err
	}
	return p.f.apply(ios.Out, b.Bytes())
}

func (p filterPrinter) PrintList(ios *iostreams.IOStreams, objs []resources.Object) error {
	return p.run(ios, func(s *iostreams.IOStreams) error { return jsonPrinter{}.PrintList(s, objs) })
}

func (p filterPrinter) PrintObject(ios *iostreams.IOStreams, obj resources.Object) error {
	return p.run(ios, func(s *iostreams.IOStreams) error { return jsonPrinter{}.PrintObject(s, obj) })
}

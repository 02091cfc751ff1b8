package printers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"

	"github.com/itchyny/gojq"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
)

// The formats that print the JSON form of the output through a Go template
// (text/template, as kubectl's -o go-template and gh's --template).
const (
	FormatGoTemplate     = "go-template"      // -o go-template=TEMPLATE, or --template
	FormatGoTemplateFile = "go-template-file" // -o go-template-file=PATH
)

// filter turns the JSON form of what -o json prints into the output:
// a jq expression (--jq) or a Go template (--template, -o go-template=...).
// It is compiled when the flag is parsed (or by Validate), so that a bad
// expression is a usage error before the command does anything.
type filter interface {
	// apply writes the output of the filter on the JSON document doc to w.
	apply(w io.Writer, doc []byte) error
}

// jqFilter is a compiled --jq expression.
type jqFilter struct{ code *gojq.Code }

func compileJQ(expr string) (*jqFilter, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, jqError(expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, jqError(expr, err)
	}
	return &jqFilter{code: code}, nil
}

// jqError is err, with where in expr gojq found it when it says.
func jqError(expr string, err error) error {
	var pe *gojq.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: at offset %d of %q", pe.Error(), pe.Offset, expr)
	}
	return err
}

// apply writes each result of the expression on a line of its own: a
// string as it is (jq -r, as gh does), anything else as compact JSON.
func (f *jqFilter) apply(w io.Writer, doc []byte) error {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return err
	}
	var b bytes.Buffer
	iter := f.code.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := r.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break
			}
			return &cmdutil.FlagError{Err: fmt.Errorf("--jq: %w", err)}
		}
		if s, ok := r.(string); ok {
			b.WriteString(s)
		} else {
			enc, err := gojq.Marshal(r)
			if err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--jq: %w", err)}
			}
			b.Write(enc)
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// templateFilter is a parsed Go template.
type templateFilter struct {
	tmpl *template.Template
	flag string // the flag that gave it, for errors: --template or -o
}

func compileTemplate(flag, text string) (*templateFilter, error) {
	t, err := template.New(strings.TrimPrefix(strings.TrimPrefix(flag, "-o "), "--")).Parse(text)
	if err != nil {
		return nil, err
	}
	return &templateFilter{tmpl: t, flag: flag}, nil
}

// apply executes the template on the JSON form (numbers as written:
// versions print as 7, not 7e+00). Nothing is written when it fails.
func (f *templateFilter) apply(w io.Writer, doc []byte) error {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := f.tmpl.Execute(&b, v); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("%s: %w", f.flag, err)}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// jqValue is --jq: compiled when parsed.
type jqValue struct{ f *Flags }

func (v *jqValue) String() string { return v.f.JQ }
func (v *jqValue) Type() string   { return "expression" }
func (v *jqValue) Set(s string) error {
	c, err := compileJQ(s)
	if err != nil {
		return err
	}
	v.f.JQ, v.f.jq = s, c
	return nil
}

// templateValue is --template: parsed when parsed.
type templateValue struct{ f *Flags }

func (v *templateValue) String() string { return v.f.Template }
func (v *templateValue) Type() string   { return "string" }
func (v *templateValue) Set(s string) error {
	c, err := compileTemplate("--template", s)
	if err != nil {
		return err
	}
	v.f.Template, v.f.tmpl = s, c
	return nil
}

// outputValue is -o/--output: one of the allowed formats, or
// go-template=TEMPLATE / go-template-file=PATH where json is allowed.
type outputValue struct{ f *Flags }

func (v *outputValue) String() string { return v.f.Output }
func (v *outputValue) Type() string   { return "string" }
func (v *outputValue) Set(s string) error {
	if err := v.f.checkOutput(s); err != nil {
		// cobra names the flag: the reason alone.
		var fe *cmdutil.FlagError
		if errors.As(err, &fe) {
			if inner := errors.Unwrap(fe.Err); inner != nil {
				return inner
			}
			return fe.Err
		}
		return err
	}
	v.f.Output, v.f.outputSet = s, true
	return nil
}

// parseOutput splits -o go-template=TEXT and -o go-template-file=PATH:
// format is the part before "=" for those two, the whole value otherwise.
func parseOutput(s string) (format, arg string, hasArg bool) {
	for _, f := range []string{FormatGoTemplate, FormatGoTemplateFile} {
		if s == f {
			return f, "", false
		}
		if a, ok := strings.CutPrefix(s, f+"="); ok {
			return f, a, true
		}
	}
	return s, "", false
}

// checkOutput checks an -o value (a flag error naming --output) and, for a
// template, parses it (a file is read).
func (f *Flags) checkOutput(s string) error {
	format, arg, hasArg := parseOutput(s)
	if format != FormatGoTemplate && format != FormatGoTemplateFile {
		return cmdutil.CheckEnum("output", s, f.allowed())
	}
	if !f.filters() {
		return cmdutil.CheckEnum("output", s, f.allowed())
	}
	if !hasArg {
		if format == FormatGoTemplate {
			f.oTmpl = nil
			return nil // the template comes from --template
		}
		return &cmdutil.FlagError{Err: fmt.Errorf("--output: %s needs a file: -o %s=PATH", format, format)}
	}
	text := arg
	if format == FormatGoTemplateFile {
		b, err := os.ReadFile(arg)
		if err != nil {
			return &cmdutil.FlagError{Err: fmt.Errorf("--output: %s: %w", format, err)}
		}
		text = string(b)
	}
	t, err := compileTemplate("-o "+format, text)
	if err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--output: %w", err)}
	}
	f.oTmpl = t
	return nil
}

// checkFilters checks --jq, --template and -o together, and compiles what a
// caller without cobra set in JQ and Template: the filter of the output, or
// nil for none.
func (f *Flags) checkFilters() (filter, error) {
	if f.JQ != "" && f.jq == nil {
		c, err := compileJQ(f.JQ)
		if err != nil {
			return nil, &cmdutil.FlagError{Err: fmt.Errorf("--jq: %w", err)}
		}
		f.jq = c
	}
	if f.Template != "" && f.tmpl == nil {
		c, err := compileTemplate("--template", f.Template)
		if err != nil {
			return nil, &cmdutil.FlagError{Err: fmt.Errorf("--template: %w", err)}
		}
		f.tmpl = c
	}
	format, _, hasArg := parseOutput(f.Output)
	isTemplate := format == FormatGoTemplate || format == FormatGoTemplateFile
	if isTemplate && hasArg && f.oTmpl == nil {
		if err := f.checkOutput(f.Output); err != nil {
			return nil, err
		}
	}
	explicit := f.outputSet || (f.Output != "" && f.Output != f.def)
	switch {
	case f.JQ != "" && (f.Template != "" || isTemplate):
		return nil, cmdutil.FlagErrorf("--jq and a template (--template, -o go-template) cannot go together: choose one")
	case f.JQ != "":
		if explicit && f.Output != FormatJSON {
			return nil, cmdutil.FlagErrorf("--jq filters the JSON output: use it without -o, or with -o json (not -o %s)", f.Output)
		}
		return f.jq, nil
	case f.Template != "":
		if explicit && format != FormatGoTemplate {
			return nil, cmdutil.FlagErrorf("--template goes with -o go-template or no -o (not -o %s)", f.Output)
		}
		if hasArg {
			return nil, cmdutil.FlagErrorf("a template twice: -o go-template=... and --template; give one")
		}
		return f.tmpl, nil
	case isTemplate:
		if f.oTmpl == nil {
			return nil, cmdutil.FlagErrorf("-o %s needs a template: -o %s=TEMPLATE or --template TEMPLATE", FormatGoTemplate, FormatGoTemplate)
		}
		return f.oTmpl, nil
	}
	return nil, nil
}

package apply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/botkit-dev/botkit/internal/docscan"
	"github.com/botkit-dev/botkit/internal/yamlnode"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/sealed"
	yaml "go.yaml.in/yaml/v3"
)

// Document is one SecretSet, ImagePullSecret or Agent decoded from a manifest,
// with the line of each of its fields (for later problems).
type Document struct {
	File   string // the file as named on the command line ("<stdin>" for -)
	Line   int    // the line where the document starts
	Object resources.Object
	seq    int             // position among the documents Load read
	lines  map[string]int  // field path → line
	bad    map[string]bool // fields that did not decode
	null   map[string]bool // fields set to null (spec:, spec: null, spec: ~)
}

// has reports whether the manifest set the field at path and it decoded.
func (d *Document) has(path string) bool {
	_, ok := d.lines[path]
	return ok && !d.bad[path]
}

// Kind returns the document's kind.
func (d *Document) Kind() string { return d.Object.Kind() }

// Name returns metadata.name.
func (d *Document) Name() string { return d.Object.Meta().Name }

// Ref returns "secretset/NAME".
func (d *Document) Ref() string { return resources.Ref(d.Kind(), d.Name()) }

// Location returns "file:line" of the document.
func (d *Document) Location() string { return fmt.Sprintf("%s:%d", d.File, d.Line) }

// LineOf returns the line of the field at path (a dot path such as
// "spec.data.KEY"), of its nearest ancestor present, or of the document.
func (d *Document) LineOf(path string) int {
	for p := path; p != ""; {
		if l, ok := d.lines[p]; ok && l > 0 {
			return l
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return d.Line
}

// problem returns a problem at the line of path.
func (d *Document) problem(path, format string, args ...any) Problem {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return Problem{File: d.File, Line: d.LineOf(path), Message: msg}
}

// problemAt returns err (whose message already names the field) as a
// problem at the line of path.
func (d *Document) problemAt(path string, err error) Problem {
	return Problem{File: d.File, Line: d.LineOf(path), Message: err.Error()}
}

// Decode decodes the manifests of one file: YAML (several documents
// separated by ---), JSON (one value or a stream of values), or a List of
// either. ProjectConfig documents are skipped with a note. Every problem
// found is returned, each with file:line; problems never hold a value.
func Decode(file string, data []byte) (docs []*Document, problems []Problem, notes []string) {
	d := decode(file, data, false)
	return d.docs, d.problems, d.notes
}

// decode is Decode; namesOnly (delete -f, which needs the objects' names
// only) does not require spec.
func decode(file string, data []byte, namesOnly bool) *decoder {
	d := &decoder{file: file, namesOnly: namesOnly}
	for _, chunk := range splitDocuments(file, data, &d.problems) {
		d.document(chunk.node, chunk.lineOffset, false)
	}
	return d
}

type chunk struct {
	node       *yaml.Node
	lineOffset int
	// columnOffset is how many runes precede the chunk on its first line
	// (a JSON value after another on the same line).
	columnOffset int
}

// splitDocuments parses data into document nodes. A JSON stream ({...}
// {...}) is split with encoding/json first (YAML does not read it), each
// value keeping its line.
func splitDocuments(file string, data []byte, problems *[]Problem) []chunk {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if strings.HasPrefix(string(trimmed), "\ufeff") {
		trimmed = trimmed[3:]
	}
	var out []chunk
	if len(trimmed) > 0 && trimmed[0] == '{' {
		// Nesting (and lone surrogate escapes, which encoding/json would
		// turn into U+FFFD) before any decoder spends memory per level.
		if e := docscan.JSON(data); e != nil {
			*problems = append(*problems, Problem{File: file, Line: e.Line, Message: e.Error()})
			return out
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			start := dec.InputOffset()
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				line := 1 + bytes.Count(data[:min(int(dec.InputOffset()), len(data))], []byte("\n"))
				var se *json.SyntaxError
				if errors.As(err, &se) {
					line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
				}
				*problems = append(*problems, Problem{File: file, Line: line, Message: "invalid JSON: " + jsonMessage(err)})
				return out
			}
			// The value starts after any whitespace following start.
			off := int(start)
			for off < len(data) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
				off++
			}
			lineOffset := bytes.Count(data[:off], []byte("\n"))
			var n yaml.Node
			if err := yaml.Unmarshal(raw, &n); err != nil {
				line, msg := yamlnode.ErrorMessage(err)
				*problems = append(*problems, Problem{File: file, Line: line + lineOffset, Message: msg})
				return out
			}
			out = append(out, chunk{&n, lineOffset, columnOffset(data, off)})
		}
	}
	if e := docscan.YAML(data); e != nil {
		*problems = append(*problems, Problem{File: file, Line: e.Line, Message: e.Error()})
		return out
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			line, msg := yamlnode.ErrorMessage(err)
			*problems = append(*problems, Problem{File: file, Line: line, Message: msg})
			return out
		}
		if e := yamlnode.TooDeep(&n); e != nil {
			*problems = append(*problems, Problem{File: file, Line: e.Line, Message: e.Error()})
			return out
		}
		out = append(out, chunk{&n, 0, 0})
	}
}

// jsonMessage describes a JSON syntax error without quoting the input.
func jsonMessage(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return "malformed"
}

type decoder struct {
	file      string
	namesOnly bool
	docs      []*Document
	broken    []*Document // documents with problems: not applied, their literal values still reported
	problems  []Problem
	notes     []string
}

func (d *decoder) addf(line int, format string, args ...any) {
	d.problems = append(d.problems, Problem{File: d.file, Line: line, Message: fmt.Sprintf(format, args...)})
}

// document decodes one document node (or a List item).
func (d *decoder) document(n *yaml.Node, lineOffset int, inList bool) {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return // an empty document (e.g. a trailing ---)
		}
		n = n.Content[0]
	}
	line := n.Line + lineOffset
	if !inList {
		if a := findAlias(n); a != nil {
			d.addf(a.Line+lineOffset, "YAML aliases (*%s) are not supported in manifests", printable(a.Value))
			return
		}
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // an empty document
	}
	if n.Kind != yaml.MappingNode {
		d.addf(line, "want a manifest (a mapping with apiVersion, kind, metadata and spec), got %s", yamlnode.Describe(n))
		return
	}
	kindNode := yamlnode.Lookup(n, "kind")
	avNode := yamlnode.Lookup(n, "apiVersion")
	kind := ""
	switch {
	case kindNode == nil:
		d.addf(line, "kind is missing (want %s)", strings.Join(kinds(), ", "))
		return
	case kindNode.Kind != yaml.ScalarNode || kindNode.Tag != "!!str":
		d.addf(kindNode.Line+lineOffset, "kind: want a string, got %s", yamlnode.Describe(kindNode))
		return
	default:
		kind = kindNode.Value
	}
	switch {
	case avNode == nil:
		d.addf(line, "apiVersion is missing (want %s)", resources.APIVersion)
		return
	case avNode.Kind != yaml.ScalarNode || avNode.Value != resources.APIVersion:
		d.addf(avNode.Line+lineOffset, "apiVersion: unknown apiVersion %q (want %s)", printable(avNode.Value), resources.APIVersion)
		return
	}
	switch kind {
	case resources.KindProjectConfig:
		name := ""
		if m := yamlnode.Lookup(n, "metadata"); m != nil {
			if v := yamlnode.Lookup(m, "name"); v != nil {
				name = " " + printable(v.Value)
			}
		}
		d.notes = append(d.notes, fmt.Sprintf("%s:%d: skipped ProjectConfig%s (botkit create -c reads it)", d.file, line, name))
		return
	case resources.KindList:
		if inList {
			d.addf(kindNode.Line+lineOffset, "kind: a List cannot hold a List")
			return
		}
		d.list(n, lineOffset)
		return
	case resources.KindSecretSet, resources.KindImagePullSecret, resources.KindAgent:
	default:
		d.addf(kindNode.Line+lineOffset, "kind: unknown kind %q (want %s)", printable(kind), strings.Join(kinds(), ", "))
		return
	}
	doc := &Document{File: d.file, Line: line, lines: map[string]int{}, bad: map[string]bool{}, null: map[string]bool{}}
	var target reflect.Value
	switch kind {
	case resources.KindSecretSet:
		doc.Object.SecretSet = &resources.SecretSet{}
		target = reflect.ValueOf(doc.Object.SecretSet).Elem()
	case resources.KindImagePullSecret:
		doc.Object.ImagePullSecret = &resources.ImagePullSecret{}
		target = reflect.ValueOf(doc.Object.ImagePullSecret).Elem()
	default:
		doc.Object.Agent = &resources.Agent{}
		target = reflect.ValueOf(doc.Object.Agent).Elem()
	}
	before := len(d.problems)
	fd := &fieldDecoder{d: d, doc: doc, offset: lineOffset, outputOnly: outputOnly()}
	fd.decode(n, target, "")
	missing := map[string]bool{}
	for _, f := range resources.RequiredFields(kind) {
		parent, _, _ := cutLast(f)
		if _, ok := doc.lines[f]; ok && !doc.null[f] || missing[parent] {
			continue // set, or its parent is missing already (said once)
		}
		if d.namesOnly && (f == "spec" || strings.HasPrefix(f, "spec.")) {
			continue
		}
		missing[f] = true
		msg := f + " is required"
		if doc.null[f] {
			msg = f + " is required (it is null here)"
		}
		if f == "spec" || f == "spec.data" {
			if kind == resources.KindSecretSet {
				msg += "; an empty secret set is spec: {data: {}}"
			}
		}
		d.problems = append(d.problems, Problem{File: d.file, Line: doc.LineOf(f), Message: msg})
	}
	d.problems = append(d.problems, validate(doc)...)
	if len(d.problems) == before {
		d.docs = append(d.docs, doc)
	} else {
		d.broken = append(d.broken, doc)
	}
}

func (d *decoder) list(n *yaml.Node, lineOffset int) {
	yamlnode.Duplicates(n, func(k *yaml.Node, first int) {
		d.addf(k.Line+lineOffset, "duplicate key %q (first at line %d)", printable(k.Value), first+lineOffset)
	})
	var items *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "apiVersion", "kind":
		case "items":
			items = v
		case "metadata":
			// A List's metadata (e.g. continue) carries nothing to apply.
		default:
			d.addf(k.Line+lineOffset, "unknown field %q in List (valid: apiVersion, kind, items, metadata)", printable(k.Value))
		}
	}
	if items == nil || items.Kind == yaml.ScalarNode && items.Tag == "!!null" {
		return
	}
	if items.Kind != yaml.SequenceNode {
		d.addf(items.Line+lineOffset, "items: want a list, got %s", yamlnode.Describe(items))
		return
	}
	for _, it := range items.Content {
		d.document(it, lineOffset, true)
	}
}

func kinds() []string {
	return []string{resources.KindSecretSet, resources.KindImagePullSecret, resources.KindAgent, resources.KindProjectConfig, resources.KindList}
}

func outputOnly() map[string]bool {
	m := map[string]bool{}
	for _, f := range resources.OutputOnlyFields() {
		m[f] = true
	}
	return m
}

func cutLast(path string) (parent, last string, ok bool) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", path, false
	}
	return path[:i], path[i+1:], true
}

// findAlias returns the first alias (*name) in the tree of n, or nil.
// Aliases are refused: following them can blow a small document up
// exponentially, and a manifest gains nothing from them.
func findAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return n
	}
	for _, c := range n.Content {
		if a := findAlias(c); a != nil {
			return a
		}
	}
	return nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// printable shortens a name or key for a message (never call it on a value).
func printable(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

// fieldDecoder decodes a node into a resources type by reflection over its
// json tags, strictly: unknown fields, output-only fields, wrong types and
// duplicate keys are problems at their line.
type fieldDecoder struct {
	d          *decoder
	doc        *Document
	offset     int
	outputOnly map[string]bool
}

func (f *fieldDecoder) add(n *yaml.Node, path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
		f.doc.bad[path] = true
	}
	f.d.problems = append(f.d.problems, Problem{File: f.d.file, Line: n.Line + f.offset, Message: msg})
}

var valueSourceType = reflect.TypeFor[resources.ValueSource]()

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (f *fieldDecoder) decode(n *yaml.Node, v reflect.Value, path string) {
	if path != "" {
		f.doc.lines[path] = n.Line + f.offset
		if isNull(n) {
			f.doc.null[path] = true
		}
	}
	t := v.Type()
	if t == valueSourceType {
		f.valueSource(n, v, path)
		return
	}
	if t.Kind() == reflect.Pointer {
		if isNull(n) {
			return
		}
		p := reflect.New(t.Elem())
		f.decode(n, p.Elem(), path)
		v.Set(p)
		return
	}
	switch t.Kind() {
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			f.add(n, path, "want a string, got %s", yamlnode.Describe(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
			f.add(n, path, "want true or false, got %s", yamlnode.Describe(n))
			return
		}
		v.SetBool(b)
	case reflect.Int:
		var i int64
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&i) != nil || i != int64(int(i)) {
			f.add(n, path, "want a whole number, got %s", yamlnode.Describe(n))
			return
		}
		v.SetInt(i)
	case reflect.Map:
		if isNull(n) {
			return
		}
		if n.Kind != yaml.MappingNode {
			f.add(n, path, "want a mapping, got %s", yamlnode.Describe(n))
			return
		}
		f.duplicates(n, path)
		m := reflect.MakeMapWithSize(t, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag != "!!str" && k.Tag != "!!int" && k.Tag != "!!bool" && k.Tag != "!!float" && k.Tag != "!!null" {
				f.add(k, path, "want a string key, got %s", yamlnode.Describe(k))
				continue
			}
			ev := reflect.New(t.Elem()).Elem()
			f.decode(val, ev, join(path, k.Value))
			m.SetMapIndex(reflect.ValueOf(k.Value), ev)
		}
		v.Set(m)
	case reflect.Slice:
		if isNull(n) {
			return
		}
		if n.Kind != yaml.SequenceNode {
			f.add(n, path, "want a list, got %s", yamlnode.Describe(n))
			return
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, it := range n.Content {
			f.decode(it, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Struct:
		f.structure(n, v, path)
	default:
		f.add(n, path, "this field cannot be set in a manifest")
	}
}

func (f *fieldDecoder) duplicates(n *yaml.Node, path string) {
	yamlnode.Duplicates(n, func(k *yaml.Node, first int) {
		f.add(k, "", "duplicate key %q (first at line %d)", printable(join(path, k.Value)), first+f.offset)
	})
}

func (f *fieldDecoder) structure(n *yaml.Node, v reflect.Value, path string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		f.add(n, path, "want a mapping, got %s", yamlnode.Describe(n))
		return
	}
	f.duplicates(n, path)
	fields := StructFields(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		fp := join(path, k.Value)
		j := slices.IndexFunc(fields, func(sf Field) bool { return sf.Name == k.Value })
		if f.outputOnly[fp] {
			// delete -f needs names only: what the platform printed
			// (`list -o json | botkit delete -f -`) deletes what it lists.
			if !f.d.namesOnly {
				f.add(k, fp, "output only (the platform sets it); remove it from the manifest")
			}
			continue
		}
		if j < 0 {
			var valid []string
			for _, sf := range fields {
				if !f.outputOnly[join(path, sf.Name)] {
					valid = append(valid, sf.Name)
				}
			}
			where := path
			if where == "" {
				where = "the manifest"
			}
			f.add(k, "", "unknown field %q in %s (valid: %s)", printable(k.Value), where, strings.Join(valid, ", "))
			continue
		}
		f.decode(val, v.FieldByIndex(fields[j].Index), fp)
	}
}

// emptySource is what an empty value source says, by source.
var emptySource = map[string]string{
	"fromEnv":  "the variable name is empty: want {fromEnv: VAR}",
	"fromFile": "the path is empty: want {fromFile: PATH}",
	"sealed":   "the sealed value is empty: want the output of botkit seal (v1.KEYID.PAYLOAD)",
}

// valueSource decodes a literal string, {fromEnv: VAR}, {fromFile: PATH} or
// {sealed: VALUE} (checked for form here; only the platform can open it).
func (f *fieldDecoder) valueSource(n *yaml.Node, v reflect.Value, path string) {
	const want = "want a string, {fromEnv: VAR}, {fromFile: PATH} or {sealed: VALUE}"
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		v.Set(reflect.ValueOf(resources.Literal(n.Value)))
	case n.Kind == yaml.MappingNode:
		f.duplicates(n, path)
		if len(n.Content) != 2 {
			f.add(n, path, "%s (exactly one of fromEnv, fromFile, sealed)", want)
			return
		}
		k, val := n.Content[0], n.Content[1]
		if empty, known := emptySource[k.Value]; known && val.Kind == yaml.ScalarNode && val.Tag == "!!str" && val.Value == "" {
			f.add(val, join(path, k.Value), "%s", empty)
			return
		}
		if val.Kind != yaml.ScalarNode || val.Tag != "!!str" || val.Value == "" {
			f.add(val, join(path, k.Value), "want a non-empty string, got %s", yamlnode.Describe(val))
			return
		}
		switch k.Value {
		case "fromEnv":
			v.Set(reflect.ValueOf(resources.ValueSource{FromEnv: val.Value}))
		case "fromFile":
			v.Set(reflect.ValueOf(resources.ValueSource{FromFile: val.Value}))
		case "sealed":
			if _, err := sealed.Parse(val.Value); err != nil {
				f.add(val, join(path, k.Value), "%v", err)
				return
			}
			v.Set(reflect.ValueOf(resources.ValueSource{Sealed: val.Value}))
		default:
			f.add(k, path, "unknown value source %q (%s)", printable(k.Value), want)
		}
	case n.Kind == yaml.ScalarNode:
		f.add(n, path, "%s, got %s (quote the value to make it a string)", want, yamlnode.Describe(n))
	default:
		f.add(n, path, "%s, got %s", want, yamlnode.Describe(n))
	}
}

// Field is one JSON field of a resources struct.
type Field struct {
	Name      string // the json name
	Index     []int  // for reflect.Value.FieldByIndex
	Type      reflect.Type
	OmitEmpty bool
}

// StructFields lists the JSON fields of struct type t as encoding/json sees
// them: json tags, embedded structs inlined, "-" skipped. The manifest
// decoder and the JSON Schema generator both walk the types with it.
func StructFields(t reflect.Type) []Field {
	var out []Field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" || !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			for _, inner := range StructFields(sf.Type) {
				inner.Index = append([]int{i}, inner.Index...)
				out = append(out, inner)
			}
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, Field{Name: name, Index: []int{i}, Type: sf.Type, OmitEmpty: strings.Contains(opts, "omitempty")})
	}
	return out
}

package scaffold

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/botkit-dev/botkit/internal/docscan"
	"github.com/botkit-dev/botkit/internal/yamlnode"
	yaml "go.yaml.in/yaml/v3"
)

// MaxConfigSize is the largest config file accepted: 1 MiB, far above any
// real config (a few hundred bytes).
const MaxConfigSize = 1 << 20

// ProjectConfig manifest identity (docs/manifests.md).
const (
	APIVersion        = "botkit.dev/v1"
	KindProjectConfig = "ProjectConfig"
)

// ConfigFileError lists every problem found in a config file; each problem
// names file:line and the key.
type ConfigFileError struct{ Problems []string }

func (e *ConfigFileError) Error() string { return strings.Join(e.Problems, "; ") }

// DecodeConfigFile parses a flat JSON or YAML config (docs/create.md) or a
// ProjectConfig manifest. name is used in error messages. Decoding is strict:
// unknown keys, wrong types and duplicate keys are errors with file:line.
//
// On problems the error is a *ConfigFileError and the Partial holds what
// could be decoded, so that callers can report other problems along.
func DecodeConfigFile(name string, data []byte) (Partial, error) {
	if len(data) > MaxConfigSize {
		return Partial{}, &ConfigFileError{Problems: []string{fmt.Sprintf("%s: larger than %d bytes (1 MiB), the limit of a config file", name, MaxConfigSize)}}
	}
	if prob := checkJSON(name, data); prob != "" {
		return Partial{}, &ConfigFileError{Problems: []string{prob}}
	}
	// Nesting before and after parsing: the one limit of every document
	// botkit reads (docscan.MaxDepth).
	if e := docscan.YAML(data); e != nil {
		return Partial{}, &ConfigFileError{Problems: []string{fmt.Sprintf("%s:%d: %s", name, e.Line, e)}}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Partial{}, &ConfigFileError{Problems: []string{fmt.Sprintf("%s: empty config file", name)}}
		}
		return Partial{}, &ConfigFileError{Problems: []string{fmt.Sprintf("%s: %s", name, yamlMessage(err))}}
	}
	if e := yamlnode.TooDeep(&doc); e != nil {
		return Partial{}, &ConfigFileError{Problems: []string{fmt.Sprintf("%s:%d: %s", name, e.Line, e)}}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return Partial{}, &ConfigFileError{Problems: []string{fmt.Sprintf("%s:%d: a config file holds one document", name, extra.Line)}}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return Partial{}, &ConfigFileError{Problems: []string{fmt.Sprintf("%s:%d: want a mapping of config keys", name, root.Line)}}
	}
	d := &configDecoder{file: name}
	var p Partial
	if hasKey(root, "apiVersion") || hasKey(root, "kind") {
		p = d.manifest(root)
	} else {
		p = d.flat(root, "")
	}
	if len(d.problems) > 0 {
		return p, &ConfigFileError{Problems: d.problems}
	}
	return p, nil
}

// checkJSON holds a file that is JSON (it starts with '{' or '[') to JSON's
// rules, which the YAML decoder is laxer about: trailing commas, a second
// value or garbage after the first are errors, with file:line.
func checkJSON(name string, data []byte) string {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return ""
	}
	if e := docscan.JSON(data); e != nil {
		return fmt.Sprintf("%s:%d: %v", name, e.Line, e)
	}
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Sprintf("%s:%d: invalid JSON: %v", name, lineAt(se.Offset), se)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Sprintf("%s:%d: invalid JSON: the file ends inside the config object", name, lineAt(int64(len(data))))
		}
		return fmt.Sprintf("%s: invalid JSON: %v", name, err)
	}
	off := dec.InputOffset()
	rest := data[off:]
	if skip := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n")); skip < len(rest) {
		return fmt.Sprintf("%s:%d: invalid JSON: data after the config object; a config file holds one object", name, lineAt(off+int64(skip)))
	}
	return ""
}

func yamlMessage(err error) string {
	line, msg := yamlnode.ErrorMessage(err)
	if line > 0 {
		return fmt.Sprintf("line %d: %s", line, msg)
	}
	return msg
}

func hasKey(m *yaml.Node, key string) bool { return yamlnode.HasKey(m, key) }

type configDecoder struct {
	file     string
	problems []string
}

func (d *configDecoder) addf(n *yaml.Node, format string, args ...any) {
	d.problems = append(d.problems, fmt.Sprintf("%s:%d: ", d.file, n.Line)+fmt.Sprintf(format, args...))
}

// duplicates reports every key of mapping m given more than once.
func (d *configDecoder) duplicates(m *yaml.Node, prefix string) {
	yamlnode.Duplicates(m, func(k *yaml.Node, line int) {
		d.addf(k, "duplicate key %q (first at line %d)", prefix+k.Value, line)
	})
}

func (d *configDecoder) manifest(root *yaml.Node) Partial {
	d.duplicates(root, "")
	var p Partial
	var spec, meta *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "apiVersion":
			if v.Kind != yaml.ScalarNode || v.Value != APIVersion {
				d.addf(v, "apiVersion: want %q", APIVersion)
			}
		case "kind":
			if v.Kind != yaml.ScalarNode || v.Value != KindProjectConfig {
				d.addf(v, "kind: want %q, got %q", KindProjectConfig, v.Value)
			}
		case "metadata":
			meta = v
		case "spec":
			spec = v
		default:
			d.addf(k, "unknown key %q in ProjectConfig (valid keys: apiVersion, kind, metadata, spec)", k.Value)
		}
	}
	if meta != nil {
		if meta.Kind != yaml.MappingNode {
			d.addf(meta, "metadata: want a mapping")
		} else {
			d.duplicates(meta, "metadata.")
			for i := 0; i+1 < len(meta.Content); i += 2 {
				k, v := meta.Content[i], meta.Content[i+1]
				switch k.Value {
				case "name":
					if s, ok := d.scalarString(v, "metadata.name"); ok && s != nil {
						p.ProjectName = s
					}
				default:
					d.addf(k, "unknown key %q in metadata (valid keys: name)", k.Value)
				}
			}
		}
	}
	if spec != nil {
		if spec.Kind != yaml.MappingNode {
			d.addf(spec, "spec: want a mapping")
		} else {
			s := d.flat(spec, "spec.")
			if hasKey(spec, "project_name") {
				for i := 0; i+1 < len(spec.Content); i += 2 {
					if spec.Content[i].Value == "project_name" {
						d.addf(spec.Content[i], "spec.project_name: the project name goes in metadata.name")
					}
				}
			}
			name := p.ProjectName
			p = s
			p.ProjectName = name
		}
	}
	return p
}

// scalarString decodes a string or null.
func (d *configDecoder) scalarString(v *yaml.Node, key string) (*string, bool) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, true
	}
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		d.addf(v, "%s: want a string, got %s", key, describe(v))
		return nil, false
	}
	s := v.Value
	return &s, true
}

func describe(v *yaml.Node) string { return yamlnode.Describe(v) }

func (d *configDecoder) flat(m *yaml.Node, prefix string) Partial {
	d.duplicates(m, prefix)
	var p Partial
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if prefix != "" && k.Value == "project_name" {
			continue // reported by the manifest decoder
		}
		f, ok := LookupField(k.Value)
		if !ok {
			d.addf(k, "unknown key %q (valid keys: %s)", prefix+k.Value, strings.Join(ConfigKeys(), ", "))
			continue
		}
		key := prefix + f.Key
		switch f.Kind {
		case KindString:
			if s, ok := d.scalarString(v, key); ok && s != nil {
				f.SetString(&p, *s)
			}
		case KindBool:
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue
			}
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
				d.addf(v, "%s: want true or false, got %s", key, describe(v))
				continue
			}
			var b bool
			if err := v.Decode(&b); err != nil {
				d.addf(v, "%s: want true or false", key)
				continue
			}
			f.SetBool(&p, b)
		case KindList:
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				d.addf(v, "%s: want a list of transport ids, got %s", key, describe(v))
				continue
			}
			list := []string{}
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
					d.addf(item, "%s: want a string, got %s", key, describe(item))
					continue
				}
				list = append(list, item.Value)
			}
			f.SetList(&p, list)
		}
	}
	return p
}

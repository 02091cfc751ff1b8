package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/botkit-dev/botkit/internal/yamlnode"
	yaml "go.yaml.in/yaml/v3"
)

// ProjectConfig manifest identity (DESIGN §2).
const (
	APIVersion        = "botkit.dev/v1"
	KindProjectConfig = "ProjectConfig"
)

type fieldKind int

const (
	kindString fieldKind = iota
	kindBool
	kindStringList
)

// configField describes one key of the flat config (DESIGN §4.2).
type configField struct {
	key  string
	kind fieldKind
	str  func(*Partial) **string
	bl   func(*Partial) **bool
}

// configFields lists every config key in the documented order.
func configFields() []configField {
	s := func(key string, f func(*Partial) **string) configField {
		return configField{key: key, kind: kindString, str: f}
	}
	b := func(key string, f func(*Partial) **bool) configField {
		return configField{key: key, kind: kindBool, bl: f}
	}
	return []configField{
		s("project_name", func(p *Partial) **string { return &p.ProjectName }),
		s("bot_type", func(p *Partial) **string { return &p.BotType }),
		{key: "transports", kind: kindStringList},
		s("mode", func(p *Partial) **string { return &p.Mode }),
		s("stt_service", func(p *Partial) **string { return &p.STTService }),
		s("llm_service", func(p *Partial) **string { return &p.LLMService }),
		s("tts_service", func(p *Partial) **string { return &p.TTSService }),
		s("realtime_service", func(p *Partial) **string { return &p.RealtimeService }),
		s("video_service", func(p *Partial) **string { return &p.VideoService }),
		s("client_framework", func(p *Partial) **string { return &p.ClientFramework }),
		s("client_server", func(p *Partial) **string { return &p.ClientServer }),
		s("pstn_mode", func(p *Partial) **string { return &p.PSTNMode }),
		s("sip_bridge_mode", func(p *Partial) **string { return &p.SIPBridgeMode }),
		b("recording", func(p *Partial) **bool { return &p.Recording }),
		b("transcription", func(p *Partial) **bool { return &p.Transcription }),
		b("video_input", func(p *Partial) **bool { return &p.VideoInput }),
		b("video_output", func(p *Partial) **bool { return &p.VideoOutput }),
		b("deploy_to_cloud", func(p *Partial) **bool { return &p.DeployToCloud }),
		b("enable_denoise", func(p *Partial) **bool { return &p.EnableDenoise }),
		b("enable_observability", func(p *Partial) **bool { return &p.EnableObservability }),
		b("eval", func(p *Partial) **bool { return &p.Eval }),
	}
}

// ConfigKeys returns the keys of the flat config file in documented order.
func ConfigKeys() []string {
	var keys []string
	for _, f := range configFields() {
		keys = append(keys, f.key)
	}
	return keys
}

// ConfigKey is one key of the flat config file and its JSON type:
// "string", "boolean" or "array" (of strings).
type ConfigKey struct {
	Key  string
	Type string
}

// ConfigKeyTypes returns every config key with its type, in documented
// order (the JSON Schema of ProjectConfig is derived from it).
func ConfigKeyTypes() []ConfigKey {
	var out []ConfigKey
	for _, f := range configFields() {
		t := "string"
		switch f.kind {
		case kindBool:
			t = "boolean"
		case kindStringList:
			t = "array"
		}
		out = append(out, ConfigKey{Key: f.key, Type: t})
	}
	return out
}

// ConfigFileError lists every problem found in a config file; each problem
// names file:line and the key.
type ConfigFileError struct{ Problems []string }

func (e *ConfigFileError) Error() string { return strings.Join(e.Problems, "; ") }

// DecodeConfigFile parses a flat JSON or YAML config (DESIGN §4.2) or a
// ProjectConfig manifest. name is used in error messages. Decoding is strict:
// unknown keys, wrong types and duplicate keys are errors with file:line.
func DecodeConfigFile(name string, data []byte) (Partial, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Partial{}, &ConfigFileError{Problems: []string{fmt.Sprintf("%s: empty config file", name)}}
		}
		return Partial{}, &ConfigFileError{Problems: []string{fmt.Sprintf("%s: %s", name, yamlMessage(err))}}
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
		return Partial{}, &ConfigFileError{Problems: d.problems}
	}
	return p, nil
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
	fields := configFields()
	byKey := map[string]configField{}
	for _, f := range fields {
		byKey[f.key] = f
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if prefix != "" && k.Value == "project_name" {
			continue // reported by the manifest decoder
		}
		f, ok := byKey[k.Value]
		if !ok {
			d.addf(k, "unknown key %q (valid keys: %s)", prefix+k.Value, strings.Join(ConfigKeys(), ", "))
			continue
		}
		key := prefix + f.key
		switch f.kind {
		case kindString:
			if s, ok := d.scalarString(v, key); ok {
				*f.str(&p) = s
			}
		case kindBool:
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
			*f.bl(&p) = &b
		case kindStringList:
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
			p.Transports = list
		}
	}
	return p
}

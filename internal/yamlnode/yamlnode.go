// Package yamlnode holds what strict YAML/JSON decoders built on
// go.yaml.in/yaml/v3 nodes share: describing a node's type for an error,
// finding duplicate keys, and turning a parser error into a line and a
// message. Decoding into nodes (not Go values) keeps every line number, so
// problems can be reported as file:line.
package yamlnode

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"

	"github.com/botkit-dev/botkit/internal/docscan"
)

// Describe names the type of a node for an error message ("a mapping", "a
// number", ...). It never includes the node's value.
func Describe(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch v.Tag {
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	case "!!null":
		return "null"
	case "!!str":
		return "a string"
	case "!!timestamp":
		return "a timestamp"
	case "!!binary":
		return "binary data"
	}
	return "a value tagged " + strconv.Quote(v.Tag)
}

// Duplicates calls fn for every key of mapping m that an earlier key of m
// already gave, with the line of that first key.
func Duplicates(m *yaml.Node, fn func(key *yaml.Node, firstLine int)) {
	if m.Kind != yaml.MappingNode {
		return
	}
	first := make(map[string]int, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if line, ok := first[k.Value]; ok {
			fn(k, line)
			continue
		}
		first[k.Value] = k.Line
	}
}

// HasKey reports whether mapping m has key.
func HasKey(m *yaml.Node, key string) bool {
	return Lookup(m, key) != nil
}

// Lookup returns the value of key in mapping m, or nil.
func Lookup(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

var lineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): `) })

// ErrorMessage splits a parser error into its line (0 when the parser gave
// none) and its message without the "yaml: " and "line N: " prefixes.
// Parser messages name the problem, not the document's text.
func ErrorMessage(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := lineRe().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, msg[len(m[0]):]
	}
	return 0, msg
}

// TooDeep reports the first mapping or sequence of n (a document or any
// node) nested deeper than docscan.MaxDepth, the one nesting limit of
// documents botkit reads, as a *docscan.Error with its line (nil when
// there is none). It descends no further than the limit and does not
// follow aliases. (The parser itself stops at 10,000 levels.)
func TooDeep(n *yaml.Node) *docscan.Error {
	if d := tooDeep(n, 0); d != nil {
		return &docscan.Error{Problem: docscan.TooDeep, Line: d.Line}
	}
	return nil
}

func tooDeep(n *yaml.Node, depth int) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		if depth == docscan.MaxDepth {
			return n
		}
		depth++
	case yaml.DocumentNode:
	default:
		return nil
	}
	for _, c := range n.Content {
		if d := tooDeep(c, depth); d != nil {
			return d
		}
	}
	return nil
}

// Marshal writes v as YAML the way its JSON form reads: through
// encoding/json (json tags, MarshalJSON, omitempty), then as block YAML
// with mapping keys sorted, two-space indentation and sequences flush with
// their key ("key:\n- a"). It is the one YAML writer of the CLI (`-o yaml`,
// `create --dry-run -o yaml`), on the same library as its readers, so the
// binary links one YAML library. Long strings stay on one line.
func Marshal(v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	// JSON is YAML: decoding it keeps integers integers (json.Unmarshal
	// into any would make every number a float64).
	var doc any
	if err := yaml.Unmarshal(j, &doc); err != nil {
		return nil, err
	}
	return encode(doc)
}

// MarshalOrdered is Marshal with the mapping keys in the order of v's JSON
// encoding (a Go struct's field order: a report's check starts with its
// id) instead of sorted. The JSON text parses into nodes that keep that
// order; their flow style and quoting, JSON's, are dropped so that it
// prints as block YAML, quoted only where YAML needs it.
func MarshalOrdered(v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(j, &doc); err != nil {
		return nil, err
	}
	var plain func(n *yaml.Node)
	plain = func(n *yaml.Node) {
		n.Style = 0
		for _, c := range n.Content {
			plain(c)
		}
	}
	plain(&doc)
	return encode(&doc)
}

// encode is the one encoder setup of Marshal and MarshalOrdered.
func encode(doc any) ([]byte, error) {
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	e.CompactSeqIndent()
	if err := e.Encode(doc); err != nil {
		return nil, err
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

package apply

import (
	"bytes"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/internal/yamlnode"
	"github.com/botkit-dev/botkit/pkg/resources"
	yaml "go.yaml.in/yaml/v3"
)

// SealedSource is one {sealed: VALUE} value source of a SecretSet's
// spec.data, where a manifest file writes it.
type SealedSource struct {
	Key    string // the spec.data key
	Line   int    // 1-based: the value's line; a block scalar's indicator (| or >)
	Column int    // 1-based, in runes, on Line
	Value  string // the YAML string's value
	Block  bool   // a block scalar (| or >): the text is on the lines after Line
}

// SealedSources finds the sealed values of one manifest file, as apply
// reads it (YAML documents, a JSON value or stream, Lists): only the value
// sources of SecretSets' spec.data. Another key named sealed (a label, an
// annotation, another kind's field) is not a sealed value. A file that is
// not YAML or JSON is a problem at its line; documents that are not
// SecretSets (of botkit's apiVersion) are skipped: apply says what is
// wrong with them.
func SealedSources(file string, data []byte) ([]SealedSource, []Problem) {
	var problems []Problem
	var out []SealedSource
	for _, c := range splitDocuments(file, data, &problems) {
		out = sealedIn(c.node, c, false, out)
	}
	return out, problems
}

func sealedIn(n *yaml.Node, c chunk, inList bool, out []SealedSource) []SealedSource {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return out
		}
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return out
	}
	// Another apiVersion is another API's kind (apply refuses a document
	// with none, and says so).
	if av := yamlnode.Lookup(n, "apiVersion"); av != nil && av.Value != resources.APIVersion {
		return out
	}
	kind := yamlnode.Lookup(n, "kind")
	switch {
	case kind == nil:
		return out
	case kind.Value == resources.KindList && !inList:
		if items := yamlnode.Lookup(n, "items"); items != nil && items.Kind == yaml.SequenceNode {
			for _, it := range items.Content {
				out = sealedIn(it, c, true, out)
			}
		}
		return out
	case kind.Value != resources.KindSecretSet:
		return out
	}
	data := yamlnode.Lookup(yamlnode.Lookup(n, "spec"), "data")
	if data == nil || data.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(data.Content); i += 2 {
		k, src := data.Content[i], data.Content[i+1]
		v := yamlnode.Lookup(src, "sealed")
		if v == nil || v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
			continue
		}
		col := v.Column
		if v.Line == 1 {
			col += c.columnOffset
		}
		out = append(out, SealedSource{Key: k.Value, Line: v.Line + c.lineOffset, Column: col, Value: v.Value,
			Block: v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0})
	}
	return out
}

// columnOffset is how many runes precede offset off on its line.
func columnOffset(data []byte, off int) int {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return utf8.RuneCount(data[start:off])
}

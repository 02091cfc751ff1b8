package printers

import (
	"bytes"
	"encoding/json"
	"io"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

type yamlPrinter struct{}

func writeYAML(w io.Writer, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeOrderedYAML writes v as YAML with the fields in the order of its JSON
// encoding (the Go struct's order: a report's check starts with its id),
// where writeYAML sorts keys. JSON is YAML, so the JSON text parses into
// nodes that keep that order; only the flow style and quoting of JSON are
// dropped so that it prints as block YAML.
func writeOrderedYAML(w io.Writer, v any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(j, &doc); err != nil {
		return err
	}
	blockStyle(&doc)
	var buf bytes.Buffer
	enc := yamlv3.NewEncoder(&buf)
	enc.SetIndent(2)
	enc.CompactSeqIndent() // "- " at the parent's indentation, as writeYAML prints lists
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// blockStyle clears the styles a node parsed from JSON has (flow
// collections, double-quoted strings); the encoder then quotes a string
// only where YAML needs it (its tag stays !!str).
func blockStyle(n *yamlv3.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

func (yamlPrinter) PrintList(ios *iostreams.IOStreams, objs []resources.Object) error {
	l, err := list(objs)
	if err != nil {
		return err
	}
	return writeYAML(ios.Out, l)
}

func (yamlPrinter) PrintObject(ios *iostreams.IOStreams, obj resources.Object) error {
	o, err := redact(obj)
	if err != nil {
		return err
	}
	return writeYAML(ios.Out, o)
}

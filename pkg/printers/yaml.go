package printers

import (
	"io"

	"github.com/botkit-dev/botkit/internal/yamlnode"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

type yamlPrinter struct{}

func writeYAML(w io.Writer, v any) error {
	b, err := yamlnode.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeOrderedYAML writes v as YAML with the fields in the order of its JSON
// encoding (the Go struct's order: a report's check starts with its id),
// where writeYAML sorts keys.
func writeOrderedYAML(w io.Writer, v any) error {
	b, err := yamlnode.MarshalOrdered(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
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

package printers

import (
	"fmt"
	"io"
	"strings"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

type namePrinter struct{}

// Name returns "secretset/NAME" or "imagepullsecret/NAME", as -o name prints.
func Name(o resources.Object) string {
	m := o.Meta()
	if m == nil {
		return ""
	}
	return strings.ToLower(o.Kind()) + "/" + m.Name
}

func (namePrinter) PrintList(ios *iostreams.IOStreams, objs []resources.Object) error {
	if len(objs) == 0 {
		_, err := fmt.Fprintln(ios.ErrOut, NoResourcesMessage)
		return err
	}
	var b strings.Builder
	for _, o := range objs {
		if o.Meta() == nil {
			_, err := redact(o)
			return err
		}
		b.WriteString(Name(o) + "\n")
	}
	_, err := io.WriteString(ios.Out, b.String())
	return err
}

func (p namePrinter) PrintObject(ios *iostreams.IOStreams, obj resources.Object) error {
	return p.PrintList(ios, []resources.Object{obj})
}

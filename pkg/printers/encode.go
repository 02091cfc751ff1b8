package printers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// redact returns a copy of o fit for output: spec.data becomes key names in
// spec.keys, spec.credentials is dropped. o itself is not modified.
func redact(o resources.Object) (resources.Object, error) {
	switch {
	case o.SecretSet != nil:
		s := *o.SecretSet
		s.TypeMeta = resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet}
		s.Spec.Keys = keysOf(o.SecretSet)
		s.Spec.Data = nil
		return resources.Object{SecretSet: &s}, nil
	case o.ImagePullSecret != nil:
		s := *o.ImagePullSecret
		s.TypeMeta = resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindImagePullSecret}
		s.Spec.Credentials = nil
		return resources.Object{ImagePullSecret: &s}, nil
	}
	return resources.Object{}, fmt.Errorf("printers: an object must be a %s or an %s", resources.KindSecretSet, resources.KindImagePullSecret)
}

// keysOf returns the sorted key names of s: spec.keys, plus the keys of
// spec.data when an input object is printed.
func keysOf(s *resources.SecretSet) []string {
	keys := slices.Clone(s.Spec.Keys)
	for k := range s.Spec.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

func redactAll(objs []resources.Object) ([]resources.Object, error) {
	out := make([]resources.Object, 0, len(objs))
	for _, o := range objs {
		r, err := redact(o)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// list is the List of objs as api/openapi.yaml's List has it, with empty
// metadata: no pagination cursor (a printed list is always complete).
func list(objs []resources.Object) (any, error) {
	items, err := redactAll(objs)
	if err != nil {
		return nil, err
	}
	return resources.NewList(items), nil
}

type jsonPrinter struct{}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// PrintList writes the List item by item: the same bytes as MarshalIndent
// of the whole List, without encoding every object twice (Object's
// MarshalJSON output would be re-validated and re-indented) or holding the
// whole document (10,000 sets: 60 ms less, see bench/secrets.sh).
func (jsonPrinter) PrintList(ios *iostreams.IOStreams, objs []resources.Object) error {
	w := bufio.NewWriterSize(ios.Out, 64<<10)
	w.WriteString("{\n  \"apiVersion\": \"" + resources.APIVersion + "\",\n  \"kind\": \"" + resources.KindList + "\",\n  \"items\": [")
	for i, o := range objs {
		r, err := redact(o)
		if err != nil {
			return err
		}
		var v any = r.SecretSet
		if r.ImagePullSecret != nil {
			v = r.ImagePullSecret
		}
		b, err := json.MarshalIndent(v, "    ", "  ")
		if err != nil {
			return err
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		w.Write(b)
	}
	if len(objs) > 0 {
		w.WriteString("\n  ")
	}
	w.WriteString("],\n  \"metadata\": {}\n}\n")
	return w.Flush()
}

func (jsonPrinter) PrintObject(ios *iostreams.IOStreams, obj resources.Object) error {
	o, err := redact(obj)
	if err != nil {
		return err
	}
	return writeJSON(ios.Out, o)
}

type yamlPrinter struct{}

func writeYAML(w io.Writer, v any) error {
	b, err := yaml.Marshal(v)
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

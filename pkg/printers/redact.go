package printers

import (
	"fmt"
	"slices"

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
	case o.Agent != nil:
		// An agent's spec names its secrets, never holds them.
		a := *o.Agent
		a.TypeMeta = resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindAgent}
		return resources.Object{Agent: &a}, nil
	}
	return resources.Object{}, fmt.Errorf("printers: an object must be a %s, an %s or an %s", resources.KindSecretSet, resources.KindImagePullSecret, resources.KindAgent)
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

// Redact returns a copy of o fit for output, as every format prints it: key
// names in spec.keys, no spec.data, no spec.credentials.
func Redact(o resources.Object) (resources.Object, error) { return redact(o) }

package manifests

import (
	"io"
	"maps"
	"slices"

	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// warnEmptyValues warns, on w, of each secret set of the manifests that
// was given an empty value (a literal, a fromEnv variable set to "" or an
// empty fromFile), naming its keys: apply stores them as given. A sealed
// value is opened by the platform only, so its emptiness is botkit
// preflight's to report.
func warnEmptyValues(w io.Writer, groups []apply.Group) {
	for _, g := range groups {
		for _, d := range g.Documents {
			if d.Object.SecretSet == nil {
				continue
			}
			data := d.Object.SecretSet.Spec.Data
			var empty []string
			for _, k := range slices.Sorted(maps.Keys(data)) {
				if v := data[k].Literal; v != nil && *v == "" {
					empty = append(empty, k)
				}
			}
			cmdutil.WarnEmptyValues(w, iostreams.Printable(d.Ref()), empty)
		}
	}
}

package cmdutil

import (
	"fmt"
	"io"
	"strings"
)

// WarnEmptyValues warns, on w (stderr), that the secret set ref (as
// secretset/NAME) gets an empty value for each of keys (sorted): stored as
// given, since an empty value can be meant, but most often it is a copied
// .env.example that was never filled in. Key names only, never a value.
// Nothing is written when keys is empty.
func WarnEmptyValues(w io.Writer, ref string, keys []string) {
	if len(keys) == 0 {
		return
	}
	what := "an empty value"
	if len(keys) > 1 {
		what = "empty values"
	}
	fmt.Fprintf(w, "warning: %s: %s for %s, stored as empty (botkit preflight fails when a key .env.example requires is empty)\n", ref, what, strings.Join(keys, ", "))
}

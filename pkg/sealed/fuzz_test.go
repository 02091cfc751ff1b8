package sealed

import (
	"errors"
	"strings"
	"testing"
)

// FuzzOpen feeds arbitrary strings to the decoder the platform runs on
// every sealed value of an apply: Parse and Open never panic, and what
// opens is only what was sealed (a mutation never opens to another value).
// The seeds are in testdata/fuzz/FuzzOpen.
func FuzzOpen(f *testing.F) {
	id, r := newKey(f)
	good, err := Seal(r, Binding{Scope: ScopeStrict, Organization: "acme", Set: "bot", Key: "K"}, "the-value")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add("v1." + id.ID + ".")
	f.Add("v1." + id.ID + ".YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0-IFgyNTUxOQ")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !strings.Contains(err.Error(), "at most") {
				t.Fatalf("Parse: unexpected error %v", err)
			}
			return
		}
		// Sealed to this test's key under the input's own id.
		v.KeyID = id.ID
		b, val, err := Open(v, id)
		if err != nil {
			return
		}
		// Only one value was ever sealed to this key: whatever opens is it
		// (age authenticates the ciphertext).
		if val != "the-value" || b != (Binding{Scope: ScopeStrict, Organization: "acme", Set: "bot", Key: "K"}) {
			t.Fatalf("an input opened to something never sealed: %+v", b)
		}
	})
}

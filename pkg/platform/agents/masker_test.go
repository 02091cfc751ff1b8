package agents

import (
	"strings"
	"testing"
)

// Every value of the secret set is masked in a log line: a long one
// wherever it appears, a short one (under MinMaskedLen) where it stands as
// a word of its own, never inside another word.
func TestMaskerMasksEveryValue(t *testing.T) {
	var m masker
	for _, v := range []string{"sk-canary-0123456789", "42", "x", "multi\nline-secret", ""} {
		m.add(v)
	}
	for _, tc := range []struct{ in, want string }{
		{"key sk-canary-0123456789 in use", "key **** in use"},
		{"prefixsk-canary-0123456789suffix", "prefix****suffix"},
		{"PIN=42", "PIN=****"},
		{"42", "****"},
		{"answer: 42.", "answer: ****."},
		{"port 4242 and 142 and 42x and _42", "port 4242 and 142 and 42x and _42"},
		{"mode=x", "mode=****"},
		{"max index x-ray xylophone", "max index ****-ray xylophone"},
		{"line-secret leaked", "**** leaked"},
		{"nothing here", "nothing here"},
	} {
		if got := m.mask(tc.in); got != tc.want {
			t.Errorf("mask(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := m.mask("multi\nline-secret"); strings.Contains(got, "line-secret") {
		t.Errorf("a multi-line value shows: %q", got)
	}
}

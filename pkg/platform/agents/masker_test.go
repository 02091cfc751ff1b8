package agents

import (
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// Every value of the secret set of MinMaskedLen bytes or more is masked in
// a log line wherever it appears, each line of a multi-line value too; a
// shorter one ("1", "yes": a flag, not a secret) is left, so that exit
// codes and counts stay readable.
func TestMaskerMasksEveryValue(t *testing.T) {
	var m masker
	for _, v := range []string{"sk-canary-0123456789", "1", "yes", "multi\nline-secret", ""} {
		m.add(v)
	}
	for _, tc := range []struct{ in, want string }{
		{"key sk-canary-0123456789 in use", "key **** in use"},
		{"prefixsk-canary-0123456789suffix", "prefix****suffix"},
		{"line-secret leaked", "**** leaked"},
		{"exited with code 1: yes", "exited with code 1: yes"},
		{"nothing here", "nothing here"},
	} {
		if got := m.mask(tc.in); got != tc.want {
			t.Errorf("mask(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := m.mask("multi\nline-secret"); strings.Contains(got, "line-secret") || strings.Contains(got, "multi") {
		t.Errorf("a multi-line value shows: %q", got)
	}
}

// A line cut short in a value's middle shows none of the value's start;
// a whole line ending with a value's start is left as it is.
func TestMaskerMasksAValueCut(t *testing.T) {
	var m masker
	m.add("sk-canary-0123456789")
	cut := runtime.LogLine{Size: 3 << 20}.CutMarker()
	for _, tc := range []struct{ in, want string }{
		{"key sk-canary-01234" + cut, "key ****" + cut},
		{"key sk-canary-0123456789 and sk-can" + cut, "key **** and ****" + cut},
		{"nothing here" + cut, "nothing here" + cut},
		{"key sk-canary-01234", "key sk-canary-01234"},
	} {
		if got := m.mask(tc.in); got != tc.want {
			t.Errorf("mask(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

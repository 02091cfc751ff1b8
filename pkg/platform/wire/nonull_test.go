package wire

import (
	"strings"
	"testing"
)

// A null anywhere in a request body is refused, naming where; bodies
// without one pass.
func TestCheckNoNull(t *testing.T) {
	for body, want := range map[string]string{
		`null`:                                "null is not a request",
		`{"set": null}`:                       `"set" is null`,
		`{"labels": null, "set": {"A": "1"}}`: `"labels" is null`,
		`{"set": {"A": "1", "B": null}}`:      `"set.B" is null`,
		`{"objects": [{"metadata": {"labels": null}}]}`: `"objects.[].metadata.labels" is null`,
		`{"objects": [null]}`:                           `"objects.[]" is null`,
		`{"set": {"A": "x"}, "remove": ["B"]}`:          "",
		`{"objects": [], "prune": true}`:                "",
		`{"a": [[], {}], "b": {"c": [1, "null"]}}`:      "",
		`{"a": {"b": {}}, "c": null}`:                   `"c" is null`,
	} {
		err := checkNoNull([]byte(body))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", body, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

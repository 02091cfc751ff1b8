package sqlite

import (
	"maps"
	"testing"
)

func TestKeysEncoding(t *testing.T) {
	for _, m := range []map[string]int{nil, {"A": 1}, {"B_2": 0, "A": 65536, "_x": 12}} {
		enc := encodeKeys(m)
		got, err := decodeKeys(enc)
		if err != nil || (len(m) > 0 && !maps.Equal(got, m)) || (len(m) == 0 && len(got) != 0) {
			t.Errorf("%v -> %q -> %v, %v", m, enc, got, err)
		}
	}
	if encodeKeys(map[string]int{"B": 1, "A": 2}) != "A:2,B:1" {
		t.Error("keys are not sorted")
	}
	for _, bad := range []string{"A", "A:x", ":1", "A:1,"} {
		if _, err := decodeKeys(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestLabelsEncoding(t *testing.T) {
	for _, m := range []map[string]string{{"team": "voice"}, {"b": "", "botkit.dev/a": "x.y-z_1"}, {"odd,key": "v=1"}} {
		enc, err := encodeLabels(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeLabels(enc)
		if err != nil || !maps.Equal(got, m) {
			t.Errorf("%v -> %q -> %v, %v", m, enc, got, err)
		}
	}
	if enc, _ := encodeLabels(nil); enc != "" {
		t.Errorf("nil labels: %q", enc)
	}
}

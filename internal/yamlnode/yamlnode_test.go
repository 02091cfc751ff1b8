package yamlnode

import (
	"errors"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

func TestErrorMessage(t *testing.T) {
	for in, want := range map[string]struct {
		line int
		msg  string
	}{
		"yaml: line 3: mapping values are not allowed in this context": {3, "mapping values are not allowed in this context"},
		"yaml: did not find expected node content":                     {0, "did not find expected node content"},
	} {
		line, msg := ErrorMessage(errors.New(in))
		if line != want.line || msg != want.msg {
			t.Errorf("%q: %d %q", in, line, msg)
		}
	}
}

func TestDuplicatesAndDescribe(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: 1\nb: [x]\na: true\n"), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Content[0]
	var got []int
	Duplicates(m, func(k *yaml.Node, first int) { got = append(got, k.Line, first) })
	if len(got) != 2 || got[0] != 3 || got[1] != 1 {
		t.Errorf("duplicates: %v", got)
	}
	if Describe(Lookup(m, "b")) != "a list" || Describe(m.Content[1]) != "a number" || Lookup(m, "c") != nil {
		t.Error("describe/lookup")
	}
}

// Marshal writes what `-o yaml` printed when it went through
// sigs.k8s.io/yaml (keys sorted, lists flush with their key, strings that
// would read as another type quoted, integers kept), except that a long
// string stays on one line.
func TestMarshal(t *testing.T) {
	type meta struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels,omitempty"`
	}
	long := strings.Repeat("word ", 20) + "end"
	v := map[string]any{
		"kind":     "SecretSet",
		"metadata": meta{Name: "app"},
		"spec": map[string]any{
			"keys":  []string{"A", "B"},
			"items": []map[string]any{{"size": 12345678901, "ok": true}},
			"no":    "no", "num": "0123", "empty": "", "null": nil, "multi": "a\nb\n", "long": long,
		},
	}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `kind: SecretSet
metadata:
  name: app
spec:
  empty: ""
  items:
  - ok: true
    size: 12345678901
  keys:
  - A
  - B
  long: ` + long + `
  multi: |
    a
    b
  "no": "no"
  "null": null
  num: "0123"
`
	if string(got) != want {
		t.Errorf("Marshal:\n%s\nwant:\n%s", got, want)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("Marshal of a func: no error")
	}
}

package yamlnode

import (
	"errors"
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

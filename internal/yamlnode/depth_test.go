package yamlnode

import (
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/botkit-dev/botkit/internal/docscan"
)

func TestTooDeep(t *testing.T) {
	for _, c := range []struct {
		doc  string
		line int // 0: none
	}{
		{"a: " + strings.Repeat("[", docscan.MaxDepth-1) + strings.Repeat("]", docscan.MaxDepth-1) + "\n", 0},
		{"a: " + strings.Repeat("[", docscan.MaxDepth) + strings.Repeat("]", docscan.MaxDepth) + "\n", 1},
		{"a:\n  b:\n    - c: " + strings.Repeat("{x: ", docscan.MaxDepth) + "1" + strings.Repeat("}", docscan.MaxDepth) + "\n", 3},
		{"a: &x [1]\nb: *x\n", 0},
	} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(c.doc), &n); err != nil {
			t.Fatalf("%q: %v", c.doc, err)
		}
		e := TooDeep(&n)
		switch {
		case c.line == 0 && e != nil:
			t.Errorf("%.50q: %v", c.doc, e)
		case c.line != 0 && (e == nil || e.Line != c.line):
			t.Errorf("%.50q: %v, want too deep at line %d", c.doc, e, c.line)
		}
	}
}

// FuzzYAMLScan: the byte scan of YAML (docscan.YAML) never refuses a
// document whose parsed nodes are within the limit.
func FuzzYAMLScan(f *testing.F) {
	for _, s := range []string{
		"a: [b, {c: d}]\n", "a: x[[[\nb: '[['\n", "a: |\n  [[[[\nb: [1]\n", "- [a, [b, [c]]]\n",
		"a: \"[\\\"[\"\n", "? [a]\n: [b]\n", "a: !!seq [1]\n", "a: &x {b: [1]}\n", "a: b # [[[\n", "{a: [b]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var n yaml.Node
		if yaml.Unmarshal(data, &n) != nil || TooDeep(&n) != nil {
			return
		}
		if e := docscan.YAML(data); e != nil {
			t.Fatalf("docscan.YAML refuses %q (%v), whose nodes are within the limit", data, e)
		}
	})
}

package apply

import (
	"fmt"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/docscan"
)

// A manifest nested deeper than docscan.MaxDepth is a problem at its
// file:line, YAML or JSON, however deep: no decoder builds it.
func TestDecodeRefusesDeepNesting(t *testing.T) {
	want := fmt.Sprintf("nested deeper than %d levels", docscan.MaxDepth)
	deepYAML := "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata:\n  name: x\nspec:\n  data:\n    A: " +
		strings.Repeat("[", 20) + strings.Repeat("]", 20) + "\n"
	block := "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata:\n  name: x\n  labels:\n"
	for i := range 20 {
		block += strings.Repeat("  ", i+2) + "a:\n"
	}
	for _, c := range []struct {
		name, src string
		line      int
	}{
		{"yaml flow", deepYAML, 7},
		{"yaml block", block + strings.Repeat("  ", 22) + "b: c\n", 5 + docscan.MaxDepth - 1},
		{"yaml 1 MiB of [", "kind: " + strings.Repeat("[", 1<<20), 1},
		{"json", "{\"kind\": \"SecretSet\",\n\"spec\": " + strings.Repeat(`{"a":`, 1<<20), 2},
		{"json 1 MiB of [", "{" + strings.Repeat("[", 1<<20), 1},
		{"json stream", "{\"kind\":\"SecretSet\",\"metadata\":{\"name\":\"a\"},\"spec\":{}}\n{\"spec\":" + strings.Repeat("[", 30), 2},
	} {
		docs, problems, _ := Decode("m.yaml", []byte(c.src))
		if len(docs) != 0 || len(problems) != 1 || problems[0].Line != c.line || !strings.Contains(problems[0].Message, want) {
			t.Errorf("%s: %d docs, problems %v, want one at m.yaml:%d: %s", c.name, len(docs), problems, c.line, want)
		}
	}
	// A lone surrogate escape in a JSON manifest would be decoded as U+FFFD.
	_, problems, _ := Decode("m.json", []byte(`{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"x"},"spec":{"data":{"A":"\udc00"}}}`))
	if len(problems) != 1 || !strings.Contains(problems[0].String(), `"spec.data.A"`) {
		t.Errorf("lone surrogate: %v", problems)
	}
}

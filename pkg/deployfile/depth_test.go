package deployfile

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/docscan"
)

// A deploy file nested deeper than docscan.MaxDepth is a problem at its
// file:line, however deep, before the TOML parser builds anything.
func TestParseRefusesDeepNesting(t *testing.T) {
	want := fmt.Sprintf("nested deeper than %d levels", docscan.MaxDepth)
	for _, c := range []struct {
		name, src string
		line      int
	}{
		{"arrays", "agent_name = \"a\"\n[scaling]\nmin_agents = " + strings.Repeat("[", 20) + strings.Repeat("]", 20) + "\n", 3},
		{"1 MiB of [", "agent_name = \"a\"\nimage = " + strings.Repeat("[", 1<<20), 2},
		{"inline tables", "[docker]\nx = " + strings.Repeat("{a = ", 20) + "1" + strings.Repeat("}", 20) + "\n", 2},
		{"header", "[" + strings.Repeat("a.", 20) + "b]\n", 1},
	} {
		_, err := Parse("pcc-deploy.toml", []byte(c.src))
		var e *Error
		if !errors.As(err, &e) || len(e.Problems) != 1 || e.Problems[0].Line != c.line || !strings.Contains(e.Problems[0].Message, want) {
			t.Errorf("%s: %v, want pcc-deploy.toml:%d: %s", c.name, err, c.line, want)
		}
	}
}

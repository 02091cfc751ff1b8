package scaffold

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/docscan"
)

// A config file (create -c) nested deeper than docscan.MaxDepth is one
// problem at its file:line, YAML or JSON, however deep.
func TestDecodeConfigFileRefusesDeepNesting(t *testing.T) {
	want := fmt.Sprintf("nested deeper than %d levels", docscan.MaxDepth)
	block := "project_name: a\neval:\n"
	for i := range 20 {
		block += strings.Repeat("  ", i+1) + "a:\n"
	}
	for _, c := range []struct {
		name, src string
		line      int
	}{
		{"yaml flow", "project_name: a\ntransports: " + strings.Repeat("[", 20) + strings.Repeat("]", 20) + "\n", 2},
		{"yaml 1 MiB of [", "transports: " + strings.Repeat("[", 1<<20-20), 1},
		{"yaml block", block, 2 + docscan.MaxDepth},
		{"json", "{\"project_name\": \"a\",\n\"transports\": " + strings.Repeat("[", 1<<20-40), 2},
	} {
		_, err := DecodeConfigFile("bot.yaml", []byte(c.src))
		var e *ConfigFileError
		at := fmt.Sprintf("bot.yaml:%d: ", c.line)
		if !errors.As(err, &e) || len(e.Problems) != 1 || !strings.HasPrefix(e.Problems[0], at) || !strings.Contains(e.Problems[0], want) {
			t.Errorf("%s: %v, want %s%s", c.name, err, at, want)
		}
	}
}

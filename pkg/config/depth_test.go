package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/docscan"
)

// A config file nested deeper than docscan.MaxDepth is a FileError at its
// line, however deep, and no parser builds it.
func TestParseRefusesDeepNesting(t *testing.T) {
	want := fmt.Sprintf("nested deeper than %d levels", docscan.MaxDepth)
	block := "apiVersion: botkit.dev/v1\nkind: Config\ncontexts:\n"
	for i := range 20 {
		block += strings.Repeat("  ", i+1) + "- \n"
	}
	for _, c := range []struct {
		name, src string
		line      int
	}{
		{"flow", "apiVersion: botkit.dev/v1\nkind: Config\ncontexts: " + strings.Repeat("[", 20) + strings.Repeat("]", 20) + "\n", 3},
		{"1 MiB of [", "contexts: " + strings.Repeat("[", 1<<20), 1},
		{"block", block, 3 + docscan.MaxDepth},
	} {
		_, err := parse("botkit.yaml", []byte(c.src))
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line != c.line || !strings.Contains(fe.Msg, want) {
			t.Errorf("%s: %v, want botkit.yaml:%d: %s", c.name, err, c.line, want)
		}
	}
}

package apply

import (
	"fmt"
	"strings"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// Problem is one thing wrong with the manifests, at file:line. Its message
// names the field, key or object, never a value.
type Problem struct {
	File    string
	Line    int // 0 when the problem is with the file as a whole
	Message string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Message)
}

// ManifestError lists every problem found in the manifests, each at its
// file:line: a local error, never the platform's (whose errors are
// *resources.Error). Nothing may be sent to the platform when loading
// returns it (invalid input: exit 2).
type ManifestError struct {
	Problems []Problem
}

func (e *ManifestError) Error() string { return strings.Join(e.Lines(), "; ") }

// ErrorCode makes it invalid input (exit 2; see cmdutil.Coded).
func (e *ManifestError) ErrorCode() string { return resources.CodeInvalid }

// Lines returns one line per problem, for the command to print each as
// "error: ...".
func (e *ManifestError) Lines() []string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return lines
}

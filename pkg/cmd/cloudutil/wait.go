package cloudutil

import (
	"context"
	"fmt"
	"strings"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// FailedError is the objects a wait found failed, one line each:
// "secretset/NAME failed: the platform's reason". Exit 1.
type FailedError struct{ lines []string }

func (e *FailedError) Error() string { return strings.Join(e.lines, "; ") }

// Lines returns one line per failed object (the command root prints each).
func (e *FailedError) Lines() []string { return e.lines }

// Wait is what --wait does, for every command that has it: it waits until
// the objects of org named in names are ready or failed (one request a
// round, however many), saying so on stderr on a terminal, and returns them
// in names order with the lines of those that failed. Failed objects are
// not an error here: a command prints what it has, then returns
// FailedErr(lines).
func Wait(ctx context.Context, ios *iostreams.IOStreams, c *client.Client, org string, names []string) ([]resources.Object, []string, error) {
	if len(names) == 0 {
		return nil, nil, nil
	}
	if ios.ShowProgress() {
		what := fmt.Sprintf("%d objects", len(names))
		if len(names) == 1 {
			what = names[0]
		}
		fmt.Fprintf(ios.ErrOut, "Waiting for %s to be ready...\n", iostreams.Printable(what))
	}
	objs, err := c.WaitAll(ctx, org, names)
	if err != nil {
		return objs, nil, err
	}
	var failed []string
	for _, o := range objs {
		if st := o.Status(); st != nil && st.State == resources.StateFailed {
			msg := st.Message
			if msg == "" {
				msg = "no reason given"
			}
			failed = append(failed, iostreams.Printable(resources.Ref(o.Kind(), o.Meta().Name)+" failed: "+msg))
		}
	}
	return objs, failed, nil
}

// FailedErr is the error of a wait that found failed objects, or of
// deploy's failed preflight checks (nil for none): exit 1, a line each.
func FailedErr(failed []string) error {
	if len(failed) == 0 {
		return nil
	}
	return cmdutil.WithCode(cmdutil.ExitError, &FailedError{lines: failed})
}

package cloudutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
)

// Target is where a command acts: its context (protected or not, named by
// --context or not) and organization. Confirmations name it.
type Target struct {
	Context   string
	Platform  string // the API URL, or "the embedded local platform"
	Protected bool
	// Explicit: --context named the context on this command line.
	Explicit bool
}

// DefaultTarget is the context of a configuration without contexts: the
// embedded local platform, unprotected.
var DefaultTarget = Target{Context: config.LocalContext, Platform: "the embedded local platform"}

// Target returns the context the command acts in.
func (f *Factory) Target() (Target, error) {
	cfg, err := f.Config()
	if err != nil {
		return Target{}, err
	}
	if err := cfg.CheckSelected(); err != nil {
		return Target{}, err
	}
	return TargetOf(cfg), nil
}

// TargetOf returns the target a configuration selects.
func TargetOf(cfg *config.Config) Target {
	platform := cfg.APIURL
	if cfg.Embedded() {
		platform = "the embedded local platform"
	}
	return Target{Context: cfg.Context, Platform: platform, Protected: cfg.Protected, Explicit: cfg.ContextSource == "--context"}
}

// Where names the target in a question: "in organization O (context C)".
func (t Target) Where(org string) string {
	return fmt.Sprintf("in organization %s (context %s)", iostreams.Printable(org), iostreams.Printable(t.Context))
}

// CheckSkip refuses --skip in a protected context that --context did not
// name on the command line: a script never acts on a protected context
// through the current context or BOTKIT_CONTEXT. Invalid input (exit 2).
func (t Target) CheckSkip(skip bool) error {
	if skip && t.Protected && !t.Explicit {
		return cmdutil.UsageErrorf("context %s is protected: --skip needs --context %s on the command line", iostreams.Printable(t.Context), iostreams.Printable(t.Context))
	}
	return nil
}

// Confirm asks before a destructive action in org: yes/no, or in a
// protected context the context's name typed. Without a terminal it asks
// nothing and fails with exit 2 naming problem and --skip (with --context
// in a protected context). A "no" is exit 1.
func Confirm(ctx context.Context, ios *iostreams.IOStreams, ask func() prompter.Prompter, t Target, org, question, problem string) error {
	question = fmt.Sprintf("%s [%s]", question, t.Where(org))
	if !ios.CanPrompt() {
		if t.Protected {
			return cmdutil.UsageErrorf("%s (protected context %s): pass --skip with --context %s to go ahead without confirmation (no terminal to ask on)", problem, iostreams.Printable(t.Context), iostreams.Printable(t.Context))
		}
		return cmdutil.UsageErrorf("%s: pass --skip to go ahead without confirmation (no terminal to ask on)", problem)
	}
	p := ask().WithContext(ctx)
	if t.Protected {
		typed, err := p.Input(question+" Context "+t.Context+" is protected: type its name to go ahead", "--skip --context "+t.Context, "", nil)
		if err != nil {
			return err
		}
		if typed != t.Context {
			return cmdutil.WithCode(cmdutil.ExitError, errors.New("cancelled: that is not the context's name; nothing was changed"))
		}
		return nil
	}
	ok, err := p.Confirm(question, "--skip", false)
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.WithCode(cmdutil.ExitError, errors.New("cancelled: nothing was changed"))
	}
	return nil
}

// Guarded is what a command is about to do that the protection check
// guards: it removes keys, replaces values or credentials, deletes or
// prunes.
type Guarded struct {
	Org string
	// What names the action in the protected context's message ("delete",
	// "prune", "apply changes to secretset/app").
	What string
	// Asks: the command asks in every context and has --skip (set, unset,
	// delete, rollback): Question and Problem are Confirm's, Skip is
	// --skip. A command that does not ask (apply, delete -f,
	// image-pull-secret) asks nothing in an unprotected context; in a
	// protected one, --context NAME on the command line is its go-ahead.
	Asks              bool
	Question, Problem string
	Skip              bool
}

// Protect is the one protection check: every command that removes keys,
// replaces values or credentials, deletes or prunes calls it, with what it
// is about to do, before the write. In a protected context the command
// goes ahead only when the context's name is typed on a terminal, or
// --context named it on the command line (with --skip, for a command that
// asks); without a terminal it is exit 2 naming the flags. A wrong name or
// a "no" is exit 1; nothing is written.
func Protect(ctx context.Context, ios *iostreams.IOStreams, ask func() prompter.Prompter, t Target, g Guarded) error {
	if g.Asks {
		if err := t.CheckSkip(g.Skip); err != nil {
			return err
		}
		if g.Skip {
			return nil
		}
		return Confirm(ctx, ios, ask, t, g.Org, g.Question, g.Problem)
	}
	if !t.Protected || t.Explicit {
		return nil
	}
	if !ios.CanPrompt() || ask == nil {
		return cmdutil.UsageErrorf("context %s is protected: %s needs --context %s on the command line (no terminal to ask on)", iostreams.Printable(t.Context), g.What, iostreams.Printable(t.Context))
	}
	typed, err := ask().WithContext(ctx).Input(fmt.Sprintf("Context %s is protected: type its name to %s", t.Context, g.What), "--context "+t.Context, "", nil)
	if err != nil {
		return err
	}
	if typed != t.Context {
		return cmdutil.WithCode(cmdutil.ExitError, errors.New("cancelled: that is not the context's name; nothing was changed"))
	}
	return nil
}

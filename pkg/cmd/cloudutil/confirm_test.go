package cloudutil

import (
	"context"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
)

func terminal() *iostreams.IOStreams {
	ios, _, _, _ := iostreams.Test()
	ios.SetStdinTTY(true)
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	return ios
}

// A protected context asks for its name to be typed (a wrong name cancels,
// exit 1); an unprotected one asks yes/no; both name the context and the
// organization; without a terminal both are exit 2 naming the flags.
func TestConfirm(t *testing.T) {
	prod := Target{Context: "prod", Protected: true}
	staging := Target{Context: "staging"}
	ctx := context.Background()

	fake := prompter.NewFake(t, prompter.Answer{Match: "--skip --context prod", Value: "prod"})
	if err := Confirm(ctx, terminal(), func() prompter.Prompter { return fake }, prod, "acme", "Delete secretset/x?", "deleting secretset/x needs confirmation"); err != nil {
		t.Fatalf("typed the name: %v", err)
	}
	if q := fake.Asked(); len(q) != 1 || q[0].Kind != "input" || !strings.Contains(q[0].Title, "Delete secretset/x? [in organization acme (context prod)] Context prod is protected: type its name") {
		t.Errorf("asked %+v", q)
	}
	fake = prompter.NewFake(t, prompter.Answer{Match: "--skip --context prod", Value: "staging"})
	err := Confirm(ctx, terminal(), func() prompter.Prompter { return fake }, prod, "acme", "Delete secretset/x?", "p")
	if cmdutil.ExitCode(err) != cmdutil.ExitError || !strings.Contains(err.Error(), "not the context's name") {
		t.Errorf("a wrong name: %v", err)
	}
	fake = prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: true})
	if err := Confirm(ctx, terminal(), func() prompter.Prompter { return fake }, staging, "acme", "Delete secretset/x?", "p"); err != nil {
		t.Errorf("yes: %v", err)
	}
	if q := fake.Asked(); len(q) != 1 || q[0].Title != "Delete secretset/x? [in organization acme (context staging)]" {
		t.Errorf("asked %+v", q)
	}
	ios, _, _, _ := iostreams.Test()
	err = Confirm(ctx, ios, nil, prod, "acme", "q", "deleting secretset/x needs confirmation")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--skip with --context prod") {
		t.Errorf("no terminal, protected: %v", err)
	}
}

func TestCheckSkip(t *testing.T) {
	for _, tc := range []struct {
		t    Target
		skip bool
		ok   bool
	}{
		{Target{Context: "prod", Protected: true}, true, false},
		{Target{Context: "prod", Protected: true, Explicit: true}, true, true},
		{Target{Context: "prod", Protected: true}, false, true},
		{Target{Context: "dev"}, true, true},
	} {
		err := tc.t.CheckSkip(tc.skip)
		if (err == nil) != tc.ok || err != nil && cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%+v skip=%v: %v", tc.t, tc.skip, err)
		}
	}
}

// Protect for a command that does not ask (apply, delete -f,
// image-pull-secret): nothing in an unprotected context or when --context
// named the protected one; otherwise the name typed, or exit 2 naming
// --context. For a command that asks: CheckSkip, then Confirm.
func TestProtect(t *testing.T) {
	ctx := context.Background()
	prod := Target{Context: "prod", Protected: true}
	noTTY, _, _, _ := iostreams.Test()
	g := Guarded{Org: "acme", What: "apply changes to secretset/app"}
	for _, tc := range []Target{{Context: "dev"}, {Context: "prod", Protected: true, Explicit: true}} {
		if err := Protect(ctx, noTTY, nil, tc, g); err != nil {
			t.Errorf("%+v: %v", tc, err)
		}
	}
	err := Protect(ctx, noTTY, nil, prod, g)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || err.Error() != "context prod is protected: apply changes to secretset/app needs --context prod on the command line (no terminal to ask on)" {
		t.Errorf("no terminal: %v", err)
	}
	fake := prompter.NewFake(t, prompter.Answer{Match: "--context prod", Value: "prod"})
	if err := Protect(ctx, terminal(), func() prompter.Prompter { return fake }, prod, g); err != nil {
		t.Errorf("typed: %v", err)
	}
	if q := fake.Asked(); len(q) != 1 || q[0].Title != "Context prod is protected: type its name to apply changes to secretset/app" {
		t.Errorf("asked %+v", q)
	}
	fake = prompter.NewFake(t, prompter.Answer{Match: "--context prod", Value: "dev"})
	if err := Protect(ctx, terminal(), func() prompter.Prompter { return fake }, prod, g); cmdutil.ExitCode(err) != cmdutil.ExitError {
		t.Errorf("a wrong name: %v", err)
	}
	// A command that asks.
	asks := Guarded{Org: "acme", Asks: true, Question: "Delete secretset/x?", Problem: "deleting secretset/x needs confirmation"}
	asks.Skip = true
	if err := Protect(ctx, noTTY, nil, prod, asks); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--skip needs --context prod") {
		t.Errorf("--skip, not named: %v", err)
	}
	if err := Protect(ctx, noTTY, nil, Target{Context: "prod", Protected: true, Explicit: true}, asks); err != nil {
		t.Errorf("--skip --context prod: %v", err)
	}
	asks.Skip = false
	if err := Protect(ctx, noTTY, nil, Target{Context: "prod", Protected: true, Explicit: true}, asks); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--skip with --context prod") {
		t.Errorf("no --skip, no terminal: %v", err)
	}
}

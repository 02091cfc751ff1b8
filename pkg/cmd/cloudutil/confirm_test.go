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

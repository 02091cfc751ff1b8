package manifests

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
)

// On a terminal apply and delete -f name the context first; in a protected
// context a delete asks for its name unless --context named it, and without
// a terminal it is exit 2 naming --context.
func TestAnnounceContext(t *testing.T) {
	ctx := context.Background()
	term := func() (*iostreams.IOStreams, *bytes.Buffer) {
		ios, _, _, errOut := iostreams.Test()
		ios.SetStdinTTY(true)
		ios.SetStdoutTTY(true)
		ios.SetStderrTTY(true)
		ios.SetCI(false)
		return ios, errOut
	}
	prod := cloudutil.Target{Context: "prod", Platform: "https://api.example.com", Protected: true}
	ios, errOut := term()
	fake := prompter.NewFake(t, prompter.Answer{Match: "--context prod", Value: "prod"})
	s := &ManifestOptions{IO: ios, Target: func() (cloudutil.Target, error) { return prod, nil }, Prompter: func() prompter.Prompter { return fake }}
	if err := s.announce(ctx, true, "delete"); err != nil {
		t.Fatal(err)
	}
	if got := errOut.String(); got != "Context prod (https://api.example.com)\n" {
		t.Errorf("first line: %q", got)
	}
	// Named on the command line: nothing asked.
	explicit := prod
	explicit.Explicit = true
	ios, _ = term()
	s = &ManifestOptions{IO: ios, Target: func() (cloudutil.Target, error) { return explicit, nil }, Prompter: func() prompter.Prompter { return prompter.NewFake(t) }}
	if err := s.announce(ctx, true, "delete"); err != nil {
		t.Errorf("explicit: %v", err)
	}
	// No terminal: exit 2 naming --context.
	plain, _, _, errOut := iostreams.Test()

	s = &ManifestOptions{IO: plain, Target: func() (cloudutil.Target, error) { return prod, nil }}
	err := s.announce(ctx, true, "prune")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "context prod is protected: prune needs --context prod") || errOut.Len() != 0 {
		t.Errorf("no terminal: %v (stderr %q)", err, errOut)
	}
	// Not deleting, or not protected: nothing asked.
	if err := s.announce(ctx, false, "apply"); err != nil {
		t.Errorf("an apply without prune: %v", err)
	}
}

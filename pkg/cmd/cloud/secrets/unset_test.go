package secrets

import (
	"context"
	"slices"
	"testing"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Several keys: one confirmation naming them, one request, one version.
func TestUnsetSeveralKeysOneRequest(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", canary, "B", "2", "C", "3") // version 1
	e.terminal()
	p := prompter.NewFake(t, prompter.Answer{Match: "Remove keys A, C from secretset/demo? [in organization local (context local)]", Value: true})
	patches := 0
	e.beforePatch = func() { patches++ }
	if err := runUnset(context.Background(), &UnsetOptions{PlatformOptions: e.scope(p), Name: "demo", Keys: []string{"A", "C", "A"}}); err != nil {
		t.Fatal(err)
	}
	if got := e.keys("demo"); !slices.Equal(got, []string{"B"}) {
		t.Errorf("keys %v", got)
	}
	if got := e.out.String(); got != "secretset/demo configured: removed A, C (version 2)\n" {
		t.Errorf("stdout %q", got)
	}
	if patches != 1 {
		t.Errorf("%d PATCH requests", patches)
	}
	e.noCanary(nil, p)
}

// A missing key: exit 3 naming it, nothing removed, nothing asked.
func TestUnsetMissingKeyRemovesNothing(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", canary, "B", "2")
	e.terminal()
	err := runUnset(context.Background(), &UnsetOptions{PlatformOptions: e.scope(nil), Name: "demo", Keys: []string{"A", "NOPE", "B"}})
	if cmdutil.ExitCode(err) != cmdutil.ExitNotFound || err.Error() != "key NOPE not found in secretset/demo; nothing was removed" {
		t.Fatalf("err %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	if got := e.keys("demo"); !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("keys %v", got)
	}
}

// A key removed by someone else between the check and the write: the
// conditional write fails, the command reads the set again, finds the key
// missing and removes none of the others (all or nothing).
func TestUnsetConcurrentRemovalRemovesNothing(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", canary, "B", "2", "C", "3")
	e.beforePatch = func() {
		if _, _, err := e.other.Merge(context.Background(), client.EmbeddedOrg, "demo", resources.Patch{Remove: []string{"B"}}, ""); err != nil {
			t.Error(err)
		}
	}
	err := runUnset(context.Background(), &UnsetOptions{PlatformOptions: e.scope(nil), Name: "demo", Keys: []string{"A", "B"}, Skip: true})
	if cmdutil.ExitCode(err) != cmdutil.ExitNotFound || err.Error() != "key B not found in secretset/demo; nothing was removed" {
		t.Fatalf("err %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	if got := e.keys("demo"); !slices.Equal(got, []string{"A", "C"}) {
		t.Errorf("keys %v: A was removed without B", got)
	}
	e.noCanary(err, nil)
}

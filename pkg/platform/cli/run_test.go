package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// The run functions work without cobra, as botkit's do: an organization
// and a token made and listed through them alone, and their flag checks.
func TestRunFunctionsWithoutCobra(t *testing.T) {
	ctx := context.Background()
	store := storeFlags{DataDir: t.TempDir()}
	ios, _, out, _ := iostreams.Test()
	if err := runOrgsCreate(ctx, &OrgsCreateOptions{storeFlags: store, Name: "acme", DefaultRegion: "eu-central", IO: ios}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "organization/acme created: default region eu-central\n" {
		t.Errorf("orgs create printed %q", got)
	}
	var fe *cmdutil.FlagError
	if err := runOrgsSet(ctx, &OrgsSetOptions{storeFlags: store, Name: "acme", IO: ios}); !errors.As(err, &fe) || !strings.Contains(err.Error(), "nothing to set") {
		t.Errorf("orgs set without --history-limit: %v", err)
	}
	ios, _, out, _ = iostreams.Test()
	if err := runOrgsList(ctx, &OrgsListOptions{storeFlags: store, Print: printers.NewFlags(), IO: ios}); err != nil || !strings.Contains(out.String(), "acme   eu-central") {
		t.Errorf("orgs list: %v %q", err, out)
	}
	ios, _, out, errOut := iostreams.Test()
	if err := runTokensCreate(ctx, &TokensCreateOptions{storeFlags: store, Org: "acme", User: "ci", IO: ios}); err != nil {
		t.Fatal(err)
	}
	if tok := strings.TrimSpace(out.String()); tok == "" || !strings.Contains(errOut.String(), "for organization acme (user ci)") {
		t.Errorf("tokens create: stdout %q, stderr %q", out, errOut)
	}
	if err := runTokensList(ctx, &TokensListOptions{storeFlags: store, Print: printers.NewFlags(), IO: ios}); !errors.As(err, &fe) {
		t.Errorf("tokens list without --org: %v", err)
	}
	if err := runOrgsList(ctx, &OrgsListOptions{Print: printers.NewFlags(), IO: ios}); !errors.As(err, &fe) || !strings.Contains(err.Error(), "--data-dir or --store is required") {
		t.Errorf("no store: %v", err)
	}
	if err := runMigrate(ctx, &MigrateOptions{From: store.DataDir, To: "/not/a/url", IO: ios}); !errors.As(err, &fe) {
		t.Errorf("migrate --to a path: %v", err)
	}
}

// The commands fill their Options from the flags and arguments, then call
// the run function they are given.
func TestCommandsFillTheirOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var set *OrgsSetOptions
	c := NewCmdOrgsSet(ios, func(_ context.Context, o *OrgsSetOptions) error { set = o; return nil })
	c.SetArgs([]string{"acme", "--history-limit", "25", "--data-dir", "d"})
	if err := c.Execute(); err != nil || set == nil || set.Name != "acme" || set.HistoryLimit != 25 || !set.HistoryLimitSet || set.DataDir != "d" {
		t.Errorf("orgs set: %v %+v", err, set)
	}
	var serve *ServeOptions
	c = NewCmdServe(ios, func(_ context.Context, o *ServeOptions) error { serve = o; return nil })
	c.SetArgs([]string{"--store", "postgres://x", "--commit-delay", "2ms", "--runtime", "us-west=docker:///s.sock"})
	if err := c.Execute(); err != nil || serve == nil || !serve.CommitDelaySet || serve.Store != "postgres://x" || len(serve.Runtimes) != 1 {
		t.Errorf("serve: %v %+v", err, serve)
	}
	var revoke *TokensRevokeOptions
	c = NewCmdTokensRevoke(ios, func(_ context.Context, o *TokensRevokeOptions) error { revoke = o; return nil })
	c.SetArgs([]string{"tok_1", "--data-dir", "d"})
	if err := c.Execute(); err != nil || revoke == nil || revoke.ID != "tok_1" {
		t.Errorf("tokens revoke: %v %+v", err, revoke)
	}
}

// --runtime's parsing is a function of its own: nothing stays open after a
// bad value.
func TestParseRuntimes(t *testing.T) {
	rts, closeAll, err := parseRuntimes([]string{"us-west=docker:///var/run/a.sock", "eu-central=docker:///var/run/b.sock"}, nil)
	if err != nil || len(rts) != 2 {
		t.Fatalf("%v %v", rts, err)
	}
	closeAll()
	var fe *cmdutil.FlagError
	if _, _, err := parseRuntimes([]string{"us-west"}, nil); !errors.As(err, &fe) {
		t.Errorf("no address: %v", err)
	}
}

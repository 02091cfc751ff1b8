package root

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// testFactory returns a factory over test streams and an empty config
// directory, and its stdout and stderr.
func testFactory(t *testing.T) (*cloudutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	dir := t.TempDir()
	env := map[string]string{"BOTKIT_CONFIG_DIR": dir, "XDG_CONFIG_HOME": dir, "XDG_DATA_HOME": dir, "HOME": dir}
	return &cloudutil.Factory{Factory: &cmdutil.Factory{IOStreams: ios, Getenv: func(k string) string { return env[k] }, WorkingDir: func() (string, error) { return dir, nil }}}, out, errOut
}

// Every stub shows what its command shows where the root lists or finds it:
// the stub and the command are made from the same Summary.
func TestStubsMatchTheirCommands(t *testing.T) {
	for _, c := range commands() {
		f, _, _ := testFactory(t)
		stub, real := c.stub(), c.build(f)
		if stub.Use != real.Use || !slices.Equal(stub.Aliases, real.Aliases) || stub.Short != real.Short || stub.GroupID != real.GroupID || stub.Hidden != real.Hidden {
			t.Errorf("stub of %s: Use %q Aliases %q Short %q GroupID %q Hidden %v; the command: %q %q %q %q %v",
				real.Name(), stub.Use, stub.Aliases, stub.Short, stub.GroupID, stub.Hidden, real.Use, real.Aliases, real.Short, real.GroupID, real.Hidden)
		}
	}
	// In the trees the root runs: each top-level command is listed (or not)
	// alike by the tree of stubs and the whole tree.
	f, _, _ := testFactory(t)
	lazy, built := newCmdRoot(f, []string{"--version"}, false)
	if len(built) != 0 {
		t.Fatalf("--version built %v", built)
	}
	whole := NewCmdRoot(f)
	type listing struct {
		Name, Short                 string
		Aliases                     []string
		Available, Topic, HasParent bool
	}
	list := func(root *cobra.Command) []listing {
		var l []listing
		for _, c := range root.Commands() {
			l = append(l, listing{c.Name(), c.Short, c.Aliases, c.IsAvailableCommand(), c.IsAdditionalHelpTopicCommand(), c.HasParent()})
		}
		return l
	}
	if got, want := list(lazy), list(whole); !reflect.DeepEqual(got, want) {
		t.Errorf("the root of stubs lists\n%+v\nthe whole tree\n%+v", got, want)
	}
}

// A run builds the one top-level command its arguments reach; --version and
// --help of the root build none; what needs the whole tree builds it all.
func TestRunBuildsOnlyTheCommandReached(t *testing.T) {
	f, _, _ := testFactory(t)
	var all []string
	for _, c := range NewCmdRoot(f).Commands() {
		for _, cc := range commands() {
			if cc.stub().Name() == c.Name() {
				all = append(all, c.Name())
			}
		}
	}
	if len(all) != len(commands()) {
		t.Fatalf("the whole tree has %v of the %d commands", all, len(commands()))
	}
	cases := []struct {
		args  []string
		built []string // nil: none; "all": every command
	}{
		{[]string{"--version"}, nil},
		{[]string{"-v"}, nil},
		{[]string{"--help"}, nil},
		{[]string{"-h"}, nil},
		{nil, nil},
		{[]string{"version"}, []string{"version"}},
		{[]string{"create", "--help"}, []string{"create"}},
		{[]string{"create", "--name", "cloud", "x"}, []string{"create"}},
		{[]string{"cloud", "secrets", "list"}, []string{"cloud"}},
		{[]string{"cloud", "agent", "list"}, []string{"cloud"}},
		{[]string{"cloud", "--context", "apply", "secrets"}, []string{"cloud"}},
		{[]string{"--context", "x", "cloud", "secrets", "list"}, []string{"cloud"}},
		{[]string{"--context=x", "deploy"}, []string{"deploy"}},
		{[]string{"apply", "-f", "m.yaml", "--context", "x"}, []string{"apply"}},
		{[]string{"help"}, all},
		{[]string{"help", "create"}, all},
		{[]string{"__complete", ""}, all},
		{[]string{"__completeNoDesc", "cloud", ""}, all},
		{[]string{"completion", "bash"}, all},
		{[]string{"exit-codes"}, []string{"exit-codes"}},
		{[]string{"help", "exit-codes"}, all},
		{[]string{"secrets"}, all},
		{[]string{"--version", "secrets"}, all},
		{[]string{"--", "create"}, all},
	}
	for _, c := range cases {
		f, _, _ := testFactory(t)
		_, built := newCmdRoot(f, c.args, false)
		slices.Sort(built)
		want := slices.Clone(c.built)
		slices.Sort(want)
		if !slices.Equal(built, want) {
			t.Errorf("%q built %v, want %v", c.args, built, want)
		}
	}
}

// The root finds a stub by its aliases too, and past the root's flags.
func TestReachFindsAliases(t *testing.T) {
	root := &cobra.Command{Use: "botkit"}
	root.Flags().Bool("verbose", false, "")
	stubs := []*cobra.Command{
		cmdutil.Summary{Use: "agents <command>", Aliases: []string{"agent"}, Short: "Agents"}.Stub(),
		cmdutil.Summary{Use: "regions", Short: "Regions"}.Stub(),
	}
	root.AddCommand(stubs...)
	for _, c := range []struct {
		args   []string
		target int
		all    bool
	}{
		{[]string{"agent", "list"}, 0, false},
		{[]string{"--verbose", "agents"}, 0, false},
		{[]string{"--verbose", "regions", "--x", "y"}, 1, false},
		{[]string{"--verbose"}, -1, false},
		{[]string{"agnts"}, -1, true},
	} {
		target, all := reach(root, stubs, c.args)
		if target != c.target || all != c.all {
			t.Errorf("reach %q = %d, %v; want %d, %v", c.args, target, all, c.target, c.all)
		}
	}
}

// What a run prints and its exit code are those of the whole tree: help,
// suggestions, completion, usage errors, persistent flags on either side of
// the command's name.
func TestRunBehavesAsTheWholeTree(t *testing.T) {
	cases := [][]string{
		nil, {"--help"}, {"-h"}, {"--version"}, {"version"}, {"help"}, {"help", "create"}, {"help", "exit-codes"},
		{"exit-codes"}, {"environment"}, {"help", "environment"}, {"secrets"}, {"frobnicate"}, {"--", "secrets"}, {"--version", "secrets"}, {"--bogus"},
		{"create", "--help"}, {"create", "--bogus"}, {"create", "a", "b"}, {"init", "--help"}, {"config"}, {"config", "--help"},
		{"auth"}, {"auth", "logni"}, {"cloud"}, {"cloud", "--help"}, {"cloud", "secret", "list"}, {"cloud", "agent", "--help"},
		{"cloud", "agents", "list", "--help"}, {"--context", "x", "cloud", "secrets", "--help"},
		{"cloud", "--context", "x", "secrets", "list", "--help"}, {"cloud", "secrets", "list", "--context", "a", "--context", "b"},
		{"apply", "--help"}, {"apply", "--context", "x", "--help"}, {"--context", "x", "apply", "--help"}, {"apply"},
		{"diff", "--help"}, {"delete", "--help"}, {"seal", "--help"}, {"preflight", "--help"}, {"deploy", "--help"},
		{"deploy", "a", "b"}, {"version", "x"},
		{"completion"}, {"completion", "bash"}, {"completion", "zsh"}, {"completion", "fish", "--no-descriptions"},
		{"__complete", ""}, {"__complete", "c"}, {"__completeNoDesc", "c"}, {"__complete", "cloud", ""},
		{"__complete", "cloud", "agent", ""}, {"__complete", "create", "--"}, {"__complete", "apply", "--context", ""},
	}
	for _, args := range cases {
		f, lazyOut, lazyErr := testFactory(t)
		lazyCode := Run(context.Background(), f, args)
		f, out, errOut := testFactory(t)
		wholeCode := cmdutil.Execute(context.Background(), NewCmdRoot(f), f.IOStreams, args)
		if lazyCode != wholeCode || lazyOut.String() != out.String() || lazyErr.String() != errOut.String() {
			t.Errorf("%q: exit %d, stdout %.2000q, stderr %q; the whole tree: exit %d, stdout %.2000q, stderr %q",
				args, lazyCode, lazyOut, lazyErr, wholeCode, out, errOut)
		}
		if strings.Contains(lazyErr.String(), "before it was built") {
			t.Errorf("%q ran a stub: %s", args, lazyErr)
		}
	}
}

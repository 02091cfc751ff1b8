package cmdutil

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A flag that holds one value, given twice, is a usage error naming the
// flag (never its values); lists accumulate; a persistent flag of a parent
// is checked on its subcommands too.
func TestRepeatedFlagIsUsageError(t *testing.T) {
	run := func(args ...string) (string, []string, error) {
		var to string
		var files []string
		root := &cobra.Command{Use: "x"}
		root.PersistentFlags().String("context", "", "")
		sub := &cobra.Command{Use: "rollback", RunE: func(*cobra.Command, []string) error { return nil }}
		sub.Flags().StringVar(&to, "to", "", "")
		sub.Flags().StringSliceVarP(&files, "filename", "f", nil, "")
		sub.Flags().Bool("wait", false, "")
		var skip bool
		BoolPair(sub.Flags(), &skip, "skip", "", false, "")
		root.AddCommand(sub)
		TypeUsageErrors(root)
		root.SetArgs(args)
		root.SetErr(&bytes.Buffer{})
		root.SetOut(&bytes.Buffer{})
		return to, files, root.Execute()
	}
	for _, args := range [][]string{
		{"rollback", "--to", "1", "--to", "secret-2"},
		{"rollback", "--to=1", "--to=secret-2"},
		{"rollback", "--wait", "--wait"},
		{"rollback", "--skip", "--skip=secret-2"},
		{"rollback", "--context", "a", "--context", "secret-2"},
		{"--context", "a", "rollback", "--context", "secret-2"},
	} {
		_, _, err := run(args...)
		var fe *FlagError
		if !errors.As(err, &fe) || ExitCode(err) != ExitUsage {
			t.Errorf("%q: want a flag error (exit 2), got %v", args, err)
			continue
		}
		name := strings.TrimLeft(strings.SplitN(args[len(args)-1], "=", 2)[0], "-")
		if name == "secret-2" {
			name = strings.TrimLeft(args[len(args)-2], "-")
		}
		if !strings.Contains(err.Error(), "--"+name+": given more than once") || strings.Contains(err.Error(), "secret-2") {
			t.Errorf("%q: error %q", args, err)
		}
	}
	to, files, err := run("rollback", "--to", "3", "-f", "a", "-f", "b", "--filename", "c,d")
	if err != nil || to != "3" || strings.Join(files, " ") != "a b c d" {
		t.Errorf("once and lists: to %q, files %q, %v", to, files, err)
	}
}

package cmdutil

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func newEnumCmd(p *string) *cobra.Command {
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	EnumFlag(cmd, p, "mode", "m", "cascade", []string{"cascade", "realtime"}, "Pipeline mode")
	TypeUsageErrors(cmd)
	return cmd
}

func TestEnumFlag(t *testing.T) {
	var mode string
	cmd := newEnumCmd(&mode)
	cmd.SetArgs([]string{"--mode", "realtime"})
	if err := cmd.Execute(); err != nil || mode != "realtime" {
		t.Fatalf("--mode realtime: mode %q, err %v", mode, err)
	}

	cmd = newEnumCmd(&mode)
	cmd.SetArgs([]string{"-m", "robot"})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	var fe *FlagError
	if !errors.As(err, &fe) || ExitCode(err) != ExitUsage {
		t.Fatalf("-m robot: want a flag error (exit 2), got %v", err)
	}
	for _, want := range []string{"--mode", `"robot"`, "cascade, realtime"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}

	cmd = newEnumCmd(&mode)
	if usage := cmd.Flags().Lookup("mode").Usage; !strings.Contains(usage, "cascade|realtime") {
		t.Errorf("help does not list the values: %q", usage)
	}
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{cobra.ShellCompRequestCmd, "--mode", ""})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "cascade\nrealtime\n") {
		t.Errorf("completion = %q, want the values", got)
	}
}

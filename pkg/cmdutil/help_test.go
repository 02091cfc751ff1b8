package cmdutil

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every exit code a domain error can map to, and every named one, is in
// the documented table, once.
func TestExitCodesTableCoversEveryCode(t *testing.T) {
	seen := map[int]int{}
	for _, e := range ExitCodes {
		seen[e.Code]++
		if e.Meaning == "" {
			t.Errorf("exit code %d has no meaning", e.Code)
		}
	}
	want := []int{ExitOK, ExitError, ExitUsage, ExitNotFound, ExitAuth, ExitConflict, ExitInterrupted}
	for _, c := range exitByCode {
		want = append(want, c)
	}
	for _, c := range want {
		if seen[c] != 1 {
			t.Errorf("exit code %d appears %d times in ExitCodes, want once", c, seen[c])
		}
	}
}

func TestHelpTopics(t *testing.T) {
	root := &cobra.Command{Use: "tool", Run: func(*cobra.Command, []string) {}}
	root.AddCommand(NewHelpTopic("exit-codes", "exit codes", ExitCodesHelp("tool")), NewHelpTopic("environment", "environment", EnvironmentHelp()))
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"help", "exit-codes"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, e := range ExitCodes {
		if !strings.Contains(out.String(), "  "+strconv.Itoa(e.Code)+" ") {
			t.Errorf("help exit-codes lacks code %d:\n%s", e.Code, out.String())
		}
	}
	out.Reset()
	root.SetArgs([]string{"help", "environment"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, e := range Environment {
		if !strings.Contains(out.String(), "  "+e.Name+"\n") {
			t.Errorf("help environment lacks %s:\n%s", e.Name, out.String())
		}
	}
	out.Reset()
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Additional help topics:") || !strings.Contains(out.String(), "tool exit-codes") {
		t.Errorf("root help does not list the topics:\n%s", out.String())
	}
}

package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/botkit-dev/botkit/pkg/cmd/factory"
	"github.com/botkit-dev/botkit/pkg/cmd/root"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

var update = flag.Bool("update", false, "rewrite the golden files (cmp targets) in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"botkit": func() {
			os.Exit(root.Run(context.Background(), factory.New(iostreams.System()), os.Args[1:]))
		},
	})
}

// TestScripts runs the end-to-end scenarios in testdata/script: the real
// botkit binary's surface, output and exit codes.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("CI", "")
			env.Setenv("ACCESSIBLE", "")
			return nil
		},
	})
}

// cmdExits runs a command and checks its exit code: exits CODE CMD [ARGS...].
// Its stdout and stderr are kept for the stdout and stderr commands.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/botkit-dev/botkit/internal/platformtest"
	"github.com/botkit-dev/botkit/internal/testenv"
	"github.com/botkit-dev/botkit/pkg/credentials"
)

// TestPlatformScripts runs the scenarios in testdata/platform: botkit
// against the real botkit-platform binary serving on 127.0.0.1 over a real
// SQLite file, with the real OS keyring (scripts/test.sh runs the tests
// inside dbus-run-session with an unlocked gnome-keyring).
//
// Extra script commands:
//
//	platform start          serve a fresh platform; sets PLATFORM_URL
//	platform start-ipv6 NAME  the same on [::1]; sets PLATFORM_URL_NAME
//	platform token ORG      create ORG and a token: $WORK/ORG.token, env TOKEN_ORG
//	noleak [DIR...]         no token (of $WORK/*.token) in the last stdout/stderr, nor in any file under DIR
//
// Conditions: [keyring] is true when a Secret Service answers; under CI a
// scenario asking for it fails instead of being skipped.
func TestPlatformScripts(t *testing.T) {
	bin := platformBinary(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/platform",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":    cmdExits,
			"platform": func(ts *testscript.TestScript, neg bool, args []string) { cmdPlatform(ts, neg, args, bin) },
			"noleak":   cmdNoLeak,
			"nodaemon": cmdNoDaemon,
		},
		Condition: keyringCondition,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("CI", "")
			env.Setenv("ACCESSIBLE", "")
			// The keyring of scripts/test.sh's private session.
			env.Setenv("DBUS_SESSION_BUS_ADDRESS", os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
			return os.MkdirAll(home, 0o700)
		},
	})
}

// platformBuild builds botkit-platform once for all scenarios.
var platformBuild = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "botkit-platform-bin-")
	if err != nil {
		return "", err
	}
	return platformtest.Build(dir)
})

// platformBinary returns the botkit-platform binary, built on first use.
func platformBinary(t *testing.T) string {
	t.Helper()
	bin, err := platformBuild()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func cmdPlatform(ts *testscript.TestScript, neg bool, args []string, bin string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: platform start [NAME] | platform token ORG [NAME]")
	}
	// A second platform has a NAME: its data directory and URL variable
	// are suffixed with it.
	suffix := func(i int) string {
		if len(args) > i {
			return "_" + args[i]
		}
		return ""
	}
	switch args[0] {
	case "start", "start-ipv6":
		listen := "127.0.0.1:0"
		if args[0] == "start-ipv6" {
			listen = "[::1]:0"
		}
		s, err := platformtest.ServeOn(bin, listen, ts.MkAbs("platform-data"+suffix(1)), nil)
		ts.Check(err)
		ts.Defer(s.Stop)
		ts.Setenv("PLATFORM_URL"+suffix(1), s.URL)
		ts.Setenv("PLATFORM_HOST"+suffix(1), strings.TrimPrefix(s.URL, "http://"))
		ts.Setenv("PLATFORM_PORT"+suffix(1), s.URL[strings.LastIndex(s.URL, ":")+1:])
	case "token":
		if len(args) != 2 && len(args) != 3 {
			ts.Fatalf("usage: platform token ORG [NAME]")
		}
		dataDir := ts.MkAbs("platform-data" + suffix(2))
		org := args[1]
		tok, err := platformtest.CreateOrgToken(bin, dataDir, org)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(org+suffix(2)+".token"), []byte(tok+"\n"), 0o600))
		ts.Setenv("TOKEN_"+org+suffix(2), tok)
	default:
		ts.Fatalf("platform: unknown subcommand %q", args[0])
	}
}

// cmdNoLeak fails when a token of the scenario appears in the last command's
// stdout or stderr, or in a file under any DIR given.
// cmdNoDaemon fails when a dbus-daemon or gnome-keyring-daemon runs with
// this script's HOME: one that a command started (D-Bus autolaunch) and
// left behind.
func cmdNoDaemon(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: nodaemon")
	}
	home := ts.Getenv("HOME")
	procs, err := filepath.Glob("/proc/[0-9]*/environ")
	ts.Check(err)
	for _, envFile := range procs {
		dir := filepath.Dir(envFile)
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil {
			continue // gone meanwhile
		}
		name := strings.TrimSpace(string(comm))
		if name != "dbus-daemon" && !strings.HasPrefix(name, "gnome-keyring") {
			continue
		}
		env, err := os.ReadFile(envFile)
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == "HOME="+home {
				ts.Fatalf("%s (pid %s) runs with this script's HOME: left behind by a command", name, filepath.Base(dir))
			}
		}
	}
}

func cmdNoLeak(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("noleak does not take !")
	}
	matches, err := filepath.Glob(ts.MkAbs("*.token"))
	ts.Check(err)
	var tokens []string
	for _, m := range matches {
		b, err := os.ReadFile(m)
		ts.Check(err)
		if t := strings.TrimSpace(string(b)); t != "" {
			tokens = append(tokens, t)
		}
	}
	check := func(what, content string) {
		for _, t := range tokens {
			if strings.Contains(content, t) {
				ts.Fatalf("a token appears in %s", what)
			}
		}
	}
	check("stdout", ts.ReadFile("stdout"))
	check("stderr", ts.ReadFile("stderr"))
	for _, dir := range args {
		err := filepath.WalkDir(ts.MkAbs(dir), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			check(p, string(b))
			return nil
		})
		ts.Check(err)
	}
}

// keyringCondition is the [keyring] condition: a Secret Service answers.
// Under CI, where scripts/test.sh provides one, its absence is an error.
func keyringCondition(cond string) (bool, error) {
	if cond != "keyring" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	_, err := credentials.Keyring{}.Get("probe.botkit.invalid")
	var ue *credentials.UnavailableError
	if errors.As(err, &ue) {
		if testenv.InCI() {
			return false, fmt.Errorf("CI: no OS keyring reachable (scripts/test.sh runs the tests under dbus-run-session with gnome-keyring): %v", err)
		}
		return false, nil
	}
	return true, nil
}

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

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

var (
	platformOnce sync.Once
	platformBin  string
	platformErr  error
)

// platformBinary builds botkit-platform once for all scenarios.
func platformBinary(t *testing.T) string {
	t.Helper()
	platformOnce.Do(func() {
		dir, err := os.MkdirTemp("", "botkit-platform-bin-")
		if err != nil {
			platformErr = err
			return
		}
		platformBin = filepath.Join(dir, "botkit-platform")
		out, err := exec.Command("go", "build", "-o", platformBin, "../botkit-platform").CombinedOutput()
		if err != nil {
			platformErr = fmt.Errorf("building botkit-platform: %v\n%s", err, out)
		}
	})
	if platformErr != nil {
		t.Fatal(platformErr)
	}
	return platformBin
}

var listenRe = regexp.MustCompile(`listening on (http://\S+)`)

func cmdPlatform(ts *testscript.TestScript, neg bool, args []string, bin string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: platform start | platform token ORG")
	}
	dataDir := ts.MkAbs("platform-data")
	switch args[0] {
	case "start":
		cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir)
		stderr, err := cmd.StderrPipe()
		ts.Check(err)
		ts.Check(cmd.Start())
		ts.Defer(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
			}
		})
		urlc := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stderr)
			sent := false
			for sc.Scan() {
				if m := listenRe.FindStringSubmatch(sc.Text()); m != nil && !sent {
					urlc <- m[1]
					sent = true
				}
			}
			io.Copy(io.Discard, stderr)
		}()
		select {
		case u := <-urlc:
			ts.Setenv("PLATFORM_URL", u)
		case <-time.After(20 * time.Second):
			ts.Fatalf("botkit-platform serve did not listen within 20s")
		}
	case "token":
		if len(args) != 2 {
			ts.Fatalf("usage: platform token ORG")
		}
		org := args[1]
		if out, err := exec.Command(bin, "orgs", "create", org, "--data-dir", dataDir).CombinedOutput(); err != nil {
			ts.Fatalf("orgs create: %v: %s", err, out)
		}
		out, err := exec.Command(bin, "tokens", "create", "--org", org, "--data-dir", dataDir).Output()
		if err != nil {
			ts.Fatalf("tokens create: %v", err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		tok := lines[len(lines)-1]
		if !strings.HasPrefix(tok, "bkp_") {
			ts.Fatalf("tokens create: last line is not a token")
		}
		ts.Check(os.WriteFile(ts.MkAbs(org+".token"), []byte(tok+"\n"), 0o600))
		ts.Setenv("TOKEN_"+org, tok)
	default:
		ts.Fatalf("platform: unknown subcommand %q", args[0])
	}
}

// cmdNoLeak fails when a token of the scenario appears in the last command's
// stdout or stderr, or in a file under any DIR given.
func cmdNoLeak(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("noleak does not take !")
	}
	matches, _ := filepath.Glob(ts.MkAbs("*.token"))
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

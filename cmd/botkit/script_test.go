package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
)

var update = flag.Bool("update", false, "rewrite the golden files (cmp targets) in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"botkit": func() { os.Exit(run()) },
	})
}

// canary is planted as a secret value by the secrets scenarios; `exits`
// fails when it shows in a command's stdout or stderr, and `nocanary` when
// it shows in a file of the data directories.
const canary = "CANARY-v4lu3-7f3a9c"

// TestScripts runs the end-to-end scenarios in testdata/script: the real
// botkit binary's surface, output and exit codes.
func TestScripts(t *testing.T) {
	testscript.Run(t, params(t, "testdata/script", false))
}

// TestSecrets runs the cloud secrets scenarios on the embedded local
// platform (no API URL configured: a SQLite file under $XDG_DATA_HOME).
func TestSecrets(t *testing.T) {
	platformBinary(t) // built here, in the test's goroutine (exit_codes starts one)
	testscript.Run(t, params(t, "testdata/secrets", false))
}

// TestSecretsRemote runs the same scenarios against the real botkit-platform
// binary serving on 127.0.0.1, with an organization "acme" and a token in
// BOTKIT_API_URL / BOTKIT_TOKEN.
func TestSecretsRemote(t *testing.T) {
	platformBinary(t)
	testscript.Run(t, params(t, "testdata/secrets", true))
}

// TestApply runs the manifest scenarios (apply, diff, delete -f) on the
// embedded local platform.
func TestApply(t *testing.T) {
	testscript.Run(t, params(t, "testdata/apply", false))
}

// TestApplyRemote runs the same scenarios against the real botkit-platform
// binary.
func TestApplyRemote(t *testing.T) {
	testscript.Run(t, params(t, "testdata/apply", true))
}

func params(t *testing.T, dir string, remote bool) testscript.Params {
	return testscript.Params{
		Dir:           dir,
		UpdateScripts: *update,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"nocanary":  cmdNoCanary,
			"interrupt": cmdInterrupt,
			"mkfifo":    cmdMkfifo,
			"registry":  cmdRegistry,
			"pushimage": cmdPushImage,
			"platform":  cmdOtherPlatform(t),
			"readme":    cmdReadme,
			"race":      cmdRace,
			"parallel":  cmdParallel,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "remote":
				return remote, nil
			case "embedded":
				return !remote, nil
			case "registry":
				return registryCondition()
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			// A fresh machine: its own home and XDG directories, no
			// botkit configuration, no keyring, no terminal, not CI.
			home := filepath.Join(env.WorkDir, "home")
			for k, v := range map[string]string{
				"HOME":                     home,
				"XDG_CONFIG_HOME":          filepath.Join(home, ".config"),
				"XDG_DATA_HOME":            filepath.Join(home, ".local", "share"),
				"XDG_CACHE_HOME":           filepath.Join(home, ".cache"),
				"XDG_STATE_HOME":           filepath.Join(home, ".local", "state"),
				"BOTKIT_API_URL":           "",
				"BOTKIT_TOKEN":             "",
				"BOTKIT_ORG":               "",
				"BOTKIT_CONFIG_DIR":        "",
				"DBUS_SESSION_BUS_ADDRESS": "",
				"CI":                       "",
				"ACCESSIBLE":               "",
				"CANARY":                   canary,
				"ORG":                      "local",
				"PLATFORM_DATA":            filepath.Join(env.WorkDir, "platform"),
				// The data directory of the platform the scenario talks
				// to, for botkit-platform's admin commands.
				"KEYS_DIR": filepath.Join(home, ".local", "share", "botkit"),
			} {
				env.Setenv(k, v)
			}
			// botkit-platform on the PATH, for its admin commands.
			bin, err := platformBuild()
			if err != nil {
				return err
			}
			env.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			if remote {
				p, err := startPlatform(t, env.WorkDir, filepath.Join(env.WorkDir, "platform"), "acme")
				if err != nil {
					return err
				}
				env.Defer(p.stop)
				env.Setenv("BOTKIT_API_URL", p.url)
				env.Setenv("BOTKIT_TOKEN", p.token)
				env.Setenv("ORG", "acme")
				env.Setenv("KEYS_DIR", filepath.Join(env.WorkDir, "platform"))
			}
			return nil
		},
	}
}

// cmdRace starts N copies of a command at the same moment, as separate
// processes in the current directory: race N TARGET cmd [args...]. Exactly
// one must exit 0 printing TARGET's path on stdout; every other one must exit
// 2 with an "error: " line on stderr that names TARGET (and no staging path).
func cmdRace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: race N TARGET cmd [args...]")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 2 {
		ts.Fatalf("race: bad count %q", args[0])
	}
	target, name := args[1], args[2]
	path := ""
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, name); fileExists(p) {
			path = p
			break
		}
	}
	if path == "" {
		ts.Fatalf("race: %s not found on the script's PATH", name)
	}
	env := os.Environ()
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "CI", "ACCESSIBLE", "BOTKIT_API_URL", "BOTKIT_TOKEN", "BOTKIT_ORG", "BOTKIT_CONFIG_DIR"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	type result struct {
		code           int
		stdout, stderr string
	}
	results := make([]result, n)
	start := make(chan struct{})
	done := make(chan int)
	for i := range n {
		go func() {
			cmd := exec.Command(path, args[3:]...)
			cmd.Dir = ts.MkAbs(".")
			cmd.Env = env
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			<-start
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				code = -1
			}
			results[i] = result{code, out.String(), errOut.String()}
			done <- i
		}()
	}
	close(start)
	for range n {
		<-done
	}
	winners := 0
	for i, r := range results {
		ts.Logf("process %d: exit %d, stdout %q, stderr %q", i, r.code, r.stdout, r.stderr)
		switch r.code {
		case 0:
			winners++
			if !strings.HasSuffix(strings.TrimSpace(r.stdout), target) {
				ts.Fatalf("race: the winner printed %q, not the target %s", r.stdout, target)
			}
		case 2:
			// One line naming the target when it lost while the winner was
			// writing; when the winner had already finished, the usual
			// conflict report: that line, then the files it holds.
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(lines[0], target) || strings.Contains(r.stderr, "staging") {
				ts.Fatalf("race: a loser's stderr does not start with an error line naming %s: %q", target, r.stderr)
			}
			// The files of a conflict report follow the one error line,
			// indented, without the prefix.
			for _, l := range lines[1:] {
				if !strings.HasPrefix(l, "  ") || strings.Contains(l, "error:") {
					ts.Fatalf("race: a loser's stderr has a line after the error that is not a file: %q", l)
				}
			}
		default:
			ts.Fatalf("race: process %d exited %d", i, r.code)
		}
	}
	if winners != 1 {
		ts.Fatalf("race: %d processes exited 0, want exactly 1", winners)
	}
}

// cmdParallel starts N copies of a command at the same moment, as separate
// processes in the current directory, "{i}" in an argument replaced by the
// copy's number (0 to N-1): parallel N cmd [args...]. Every one must exit 0.
func cmdParallel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: parallel N cmd [args...]")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 2 {
		ts.Fatalf("parallel: bad count %q", args[0])
	}
	path := lookPath(ts, args[1])
	type result struct {
		err            error
		stdout, stderr string
	}
	results := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		cmd := exec.Command(path, slices.Collect(func(yield func(string) bool) {
			for _, a := range args[2:] {
				if !yield(strings.ReplaceAll(a, "{i}", strconv.Itoa(i))) {
					return
				}
			}
		})...)
		cmd.Dir = ts.MkAbs(".")
		cmd.Env = scriptEnv(ts)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		wg.Go(func() {
			<-start
			err := cmd.Run()
			results[i] = result{err, out.String(), errOut.String()}
		})
	}
	close(start)
	wg.Wait()
	for i, r := range results {
		ts.Logf("process %d: %v, stdout %q, stderr %q", i, r.err, r.stdout, r.stderr)
		if r.err != nil {
			ts.Fatalf("parallel: process %d: %v", i, r.err)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// cmdReadme runs the command line a generated file tells its user to run:
// readme FILE PREFIX finds the one line of FILE that starts with PREFIX
// (after indentation and a leading "#") and runs it as written, from the
// current directory, expecting exit 0. The line must hold no shell quoting.
func cmdReadme(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: readme FILE PREFIX")
	}
	var found []string
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		if strings.HasPrefix(line, args[1]) {
			found = append(found, line)
		}
	}
	if len(found) != 1 {
		ts.Fatalf("readme: %d lines of %s start with %q, want 1: %q", len(found), args[0], args[1], found)
	}
	if strings.ContainsAny(found[0], "'\"$`\\|;&<>") {
		ts.Fatalf("readme: the line needs a shell: %q", found[0])
	}
	ts.Logf("running %s", found[0])
	fields := strings.Fields(found[0])
	cmdExits(ts, false, append([]string{"0"}, fields...))
}

// cmdExits runs a command and checks its exit code: exits CODE CMD [ARGS...].
// Its stdout and stderr are kept for the stdout and stderr commands; neither
// may hold the canary value.
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
	for _, stream := range []string{"stdout", "stderr"} {
		if strings.Contains(ts.ReadFile(stream), canary) {
			ts.Fatalf("the canary value shows in %s", stream)
		}
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// cmdNoCanary checks that no file under the given directories (default: the
// botkit config and data directories and the platform's data directory)
// holds the canary value, or the value in FILE (a secret the scenario got,
// e.g. a public key): nocanary [-in FILE] [DIR...].
func cmdNoCanary(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: nocanary [-in FILE] [DIR...]")
	}
	canary := canary
	if len(args) >= 2 && args[0] == "-in" {
		canary = strings.TrimSpace(ts.ReadFile(args[1]))
		if canary == "" {
			ts.Fatalf("nocanary: %s is empty", args[1])
		}
		args = args[2:]
	}
	if len(args) == 0 {
		args = []string{ts.Getenv("XDG_CONFIG_HOME"), ts.Getenv("XDG_DATA_HOME"), ts.Getenv("PLATFORM_DATA")}
	}
	files := 0
	for _, dir := range args {
		err := filepath.WalkDir(ts.MkAbs(dir), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			if bytes.Contains(b, []byte(canary)) {
				ts.Fatalf("the canary value is stored in plain text in %s", path)
			}
			return nil
		})
		ts.Check(err)
	}
	ts.Logf("nocanary: %d files checked", files)
}

// cmdMkfifo makes a named pipe (FIFO) that nobody writes to: opening it
// for reading blocks until a writer comes: mkfifo PATH.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o600))
}

// cmdInterrupt starts a command whose stdin stays open and empty, sends it
// SIGINT after a second and checks that it exits 130 within 3 seconds,
// quietly (nothing on stderr: an interrupt is no error to report) and
// without the canary in its output: interrupt [-TERM] CMD [ARGS...] (-TERM
// sends SIGTERM instead).
func cmdInterrupt(ts *testscript.TestScript, neg bool, args []string) {
	sig := syscall.SIGINT
	if len(args) > 0 && args[0] == "-TERM" {
		sig, args = syscall.SIGTERM, args[1:]
	}
	if neg || len(args) < 1 {
		ts.Fatalf("usage: interrupt [-TERM] command [args...]")
	}
	path := lookPath(ts, args[0])
	cmd := exec.Command(path, args[1:]...)
	cmd.Dir = ts.Getenv("WORK")
	// The command says when it handles the signal (a signal before that
	// kills it): it creates this file.
	ready := filepath.Join(ts.Getenv("WORK"), fmt.Sprintf(".signals-ready-%d", time.Now().UnixNano()))
	cmd.Env = append(scriptEnv(ts), cmdutil.SignalsReadyEnv+"="+ready)
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	defer stdin.Close()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	ts.Check(cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if !testenv.Poll(func() bool {
		_, err := os.Stat(ready)
		return err == nil
	}) {
		_ = cmd.Process.Kill() // error ignored: the test fails either way
		ts.Fatalf("%s never said it handles signals (%s)", args[0], cmdutil.SignalsReadyEnv)
	}
	ts.Check(os.Remove(ready))
	// A pause lets the command reach the wait the scenario is about (a
	// FIFO's open, a followed stream, a busy database); what the scenario
	// asserts (exit 130, quietly, nothing written) holds wherever the
	// signal finds it, now that it handles signals: nothing depends on the
	// pause's length.
	time.Sleep(time.Second)
	ts.Check(cmd.Process.Signal(sig))
	select {
	case err = <-exited:
	case <-time.After(testenv.Patience):
		_ = cmd.Process.Kill() // error ignored: the test fails either way
		ts.Fatalf("still running %s after %v", testenv.Patience, sig)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("interrupt: %v", err)
	}
	ts.Logf("stderr: %s", errOut.String())
	if strings.Contains(out.String()+errOut.String(), canary) {
		ts.Fatalf("the canary value shows in the output")
	}
	if code != 130 {
		ts.Fatalf("exit code %d after %v, want 130", code, sig)
	}
	if errOut.Len() > 0 {
		ts.Fatalf("stderr after %v: %q, want nothing", sig, errOut.String())
	}
}

// scriptEnv returns the script's environment as KEY=value pairs.
func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
		"BOTKIT_API_URL", "BOTKIT_TOKEN", "BOTKIT_ORG", "BOTKIT_CONFIG_DIR", "CI", "ACCESSIBLE", "DOCKER_HOST"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// cmdRegistry starts a real docker-registry (Debian package) on 127.0.0.1
// with htpasswd authentication of USER:PASS and sets REGISTRY to its
// address (http://127.0.0.1:PORT): registry USER PASS. Guard it with
// [!registry] skip.
func cmdRegistry(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: registry USER PASS")
	}
	r, err := registrytest.Start(ts.MkAbs("registry"), args[0], args[1])
	ts.Check(err)
	ts.Defer(r.Stop)
	ts.Setenv("REGISTRY", r.URL)
	ts.Setenv("REGISTRY_HOST", strings.TrimPrefix(r.URL, "http://"))
	ts.Setenv("REGISTRY_USER", args[0])
	ts.Setenv("REGISTRY_PASS", args[1])
}

// cmdPushImage pushes a small image to the registry `registry` started,
// through its HTTP API with its credentials: pushimage REPO:TAG PLATFORM...
// (one platform: an image manifest; several: an OCI index). It sets
// PUSHED_DIGEST.
func cmdPushImage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: pushimage REPO:TAG PLATFORM...")
	}
	d, err := registrytest.Push(ts.Getenv("REGISTRY"), ts.Getenv("REGISTRY_USER"), ts.Getenv("REGISTRY_PASS"), args[0], args[1:]...)
	ts.Check(err)
	ts.Setenv("PUSHED_DIGEST", d)
}

// registryCondition is the [registry] condition: docker-registry and
// htpasswd are installed. Under CI their absence fails the script instead
// (testenv's rule: nothing is skipped in CI).
func registryCondition() (bool, error) {
	if testenv.Short() {
		return false, nil
	}
	if err := registrytest.Available(); err != nil {
		if testenv.InCI() {
			return false, fmt.Errorf("CI: %v", err)
		}
		return false, nil
	}
	return true, nil
}

// lookPath finds name on the script's PATH (where testscript puts botkit).
func lookPath(ts *testscript.TestScript, name string) string {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	ts.Fatalf("%s not found on the script's PATH", name)
	return ""
}

// cmdOtherPlatform starts another real botkit-platform (platform start ORG: sets
// OTHER_API_URL and OTHER_TOKEN) — for scenarios that need a server whatever
// the variant, such as a bad token.
func cmdOtherPlatform(t *testing.T) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 || len(args) > 3 || args[0] != "start" {
			ts.Fatalf("usage: platform start ORG [DATA_DIR]")
		}
		dir := "other-platform"
		if len(args) == 3 {
			dir = args[2]
		}
		p, err := startPlatform(t, ts.Getenv("WORK"), ts.MkAbs(dir), args[1])
		ts.Check(err)
		ts.Defer(p.stop)
		ts.Setenv("OTHER_API_URL", p.url)
		ts.Setenv("OTHER_TOKEN", p.token)
		ts.Setenv("OTHER_DATA", ts.MkAbs(dir))
	}
}

type runningPlatform struct {
	url, token string
	stop       func()
}

// startPlatform creates organization org and a token for it in dataDir,
// then serves the platform on 127.0.0.1 (a free port) until stop; extra
// are more flags of botkit-platform serve.
func startPlatform(t *testing.T, workDir, dataDir, org string, extra ...string) (*runningPlatform, error) {
	bin := platformBinary(t)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	token, err := platformtest.CreateOrgToken(bin, dataDir, org)
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(workDir, "platform-"+org+".log"))
	if err != nil {
		return nil, err
	}
	s, err := platformtest.Serve(bin, dataDir, logf, append([]string{"--allow-private-registries"}, extra...)...)
	if err != nil {
		logf.Close()
		return nil, err
	}
	stop := func() {
		s.Stop()
		logf.Close()
	}
	return &runningPlatform{url: s.URL, token: token, stop: stop}, nil
}

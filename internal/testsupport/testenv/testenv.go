// Package testenv finds what tests need outside the Go toolchain (external
// programs, the repository's root, free ports) and decides what
// happens when it is missing: under CI (CI set) the test fails, elsewhere it
// is skipped with the reason.
package testenv

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Short reports whether this run leaves out the tests that need more than
// Go (Debian packages, npm, a keyring): `go test -short` outside CI. Under
// CI=true it is false whatever the flags: CI runs every test.
func Short() bool { return testing.Short() && !InCI() }

// NeedInstalled skips the test under Short: it needs what, which
// scripts/setup.sh installs. `go test -short ./...` thus runs the tests
// that need nothing installed.
func NeedInstalled(t testing.TB, what string) {
	t.Helper()
	if Short() {
		t.Skipf("-short: needs %s (scripts/setup.sh installs it)", what)
	}
}

// InCI reports whether the tests run in CI, where nothing may be skipped.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Missing fails the test in CI and skips it elsewhere.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI: "+format, args...)
	}
	t.Skipf(format, args...)
}

// RepoRoot returns the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// LookPath returns the path of an external program.
func LookPath(t testing.TB, names ...string) string {
	t.Helper()
	NeedInstalled(t, names[0])
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	Missing(t, "none of %v is installed", names)
	return ""
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := PickPort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// PickPort is FreePort for callers without a testing.TB (testscript
// commands, helpers returning errors).
func PickPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Rounds is a benchmark's number of rounds: the environment's ROUNDS (the
// bench scripts' argument), else def; anything but a positive integer
// fails the benchmark.
func Rounds(b testing.TB, def int) int {
	b.Helper()
	s := os.Getenv("ROUNDS")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("ROUNDS=%q: want a positive integer", s)
	}
	return n
}

// Patience bounds how long Eventually and Within wait. It is generous on
// purpose: they wait for something to happen, never measure how fast it
// did, so a slow or busy machine only makes a passing test take longer.
const Patience = 2 * time.Minute

// Eventually polls cond until it holds and fails the test (Fatal) if it
// still does not after Patience, saying what it waited for.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Poll(cond) {
		t.Fatalf("still waiting after %s: %s", Patience, what)
	}
}

// Poll polls cond until it holds and reports whether it did within
// Patience: Eventually for a goroutine other than the test's, which must
// not call Fatal.
func Poll(cond func() bool) bool {
	for end := time.Now().Add(Patience); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}

// Within waits until done is closed (or receives) and fails the test
// (Fatal) if it was not after Patience, saying what it waited for.
func Within[T any](t testing.TB, what string, done <-chan T) T {
	t.Helper()
	select {
	case v := <-done:
		return v
	case <-time.After(Patience):
		t.Fatalf("still waiting after %s: %s", Patience, what)
		var zero T
		return zero
	}
}

//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// While Lock is held, another open file description cannot take the lock
// (as another process could not); after the release it can.
func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml.lock")
	release, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := unix.Flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB); !errors.Is(err, unix.EWOULDBLOCK) {
		t.Fatalf("flock while Lock is held: %v, want EWOULDBLOCK", err)
	}
	release()
	if err := unix.Flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatalf("flock after the release: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file mode %v, %v", fi.Mode(), err)
	}
}

// TryLock takes a free lock and refuses, without waiting, one that another
// open file holds; the lock is free again after its release.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serve.lock")
	release, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatalf("a free lock: ok %v, %v", ok, err)
	}
	if _, ok, err := TryLock(path); err != nil || ok {
		t.Fatalf("a held lock: ok %v, %v", ok, err)
	}
	release()
	again, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatalf("after the release: ok %v, %v", ok, err)
	}
	again()
}

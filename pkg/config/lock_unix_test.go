//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Update holds the lock beside the file while it reads, changes and writes
// it: another process cannot take it meanwhile.
func TestUpdateHoldsTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	err := Update(path, func(*File) error {
		other, err := os.Open(path + ".lock")
		if err != nil {
			return err
		}
		defer other.Close()
		if err := unix.Flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB); !errors.Is(err, unix.EWOULDBLOCK) {
			t.Errorf("flock of config.yaml.lock during Update: %v, want EWOULDBLOCK", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

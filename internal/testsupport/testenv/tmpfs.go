package testenv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Tmpfs mounts a tmpfs of size (mount's syntax: "8m") on a new temporary
// directory and returns the directory; options are more mount options
// ("uid=…"). It is unmounted when the test ends, after the cleanups
// registered later (a server using it) ran. Mounting needs root and
// mount(8): without them the test is skipped, and fails under CI.
func Tmpfs(t testing.TB, size string, options ...string) string {
	t.Helper()
	dir := t.TempDir()
	opts := "size=" + size
	for _, o := range options {
		opts += "," + o
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		Missing(t, "mounting a tmpfs of %s (needs root): %v: %s", size, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			// Something still holds a file: detach it now, so no mount
			// outlives the test, and say so.
			_ = exec.Command("umount", "-l", dir).Run()
			t.Errorf("unmounting the tmpfs %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// FillDisk writes a file in dir until its file system has no space left
// and returns the file's path: removing it frees the space.
func FillDisk(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for len(buf) > 0 {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			// Fill the last pages too, in smaller writes.
			buf = buf[:len(buf)/2]
		}
	}
	return path
}

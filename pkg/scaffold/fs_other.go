//go:build !unix

package scaffold

import (
	"io/fs"
	"os"
)

// renameNoReplace checks, then renames (no atomic no-replace rename here).
func renameNoReplace(oldpath, newpath string) error {
	if _, err := os.Lstat(newpath); err == nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrExist}
	}
	return os.Rename(oldpath, newpath)
}

// lockDir is a no-op where flock is not available.
func lockDir(string) (func(), error) { return func() {}, nil }

// tryLockDir never reports a staging directory as unlocked here, so none is
// removed as stale.
func tryLockDir(string) (func(), bool) { return nil, false }

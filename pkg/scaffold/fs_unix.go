//go:build unix

package scaffold

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames oldpath to newpath and fails with an error
// matching fs.ErrExist when newpath exists: it never replaces a file nor
// an (empty) directory another process put there.
func renameNoReplace(oldpath, newpath string) error {
	err := renameat2NoReplace(oldpath, newpath)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.ENOTSUP) {
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTEMPTY) {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrExist}
		}
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	// The file system has no RENAME_NOREPLACE: check, then rename. A
	// directory cannot replace a non-empty one, so the window is an empty
	// directory or a file appearing between the two calls.
	if _, err := os.Lstat(newpath); err == nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrExist}
	}
	if err := os.Rename(oldpath, newpath); err != nil {
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTEMPTY) {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrExist}
		}
		return err
	}
	return nil
}

// lockDir takes an exclusive advisory lock on directory dir, waiting for
// it; the lock ends with release or with the process.
func lockDir(dir string) (release func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: dir, Err: err}
	}
	return func() { f.Close() }, nil
}

// tryLockDir takes the lock of lockDir if nobody holds it.
func tryLockDir(dir string) (release func(), ok bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

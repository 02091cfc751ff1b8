//go:build unix && !linux

package scaffold

import "golang.org/x/sys/unix"

// renameat2NoReplace is Linux only; elsewhere renameNoReplace checks first.
func renameat2NoReplace(oldpath, newpath string) error { return unix.ENOSYS }

//go:build windows

package atomicfile

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes LockFileEx(LOCKFILE_EXCLUSIVE_LOCK) on f's first byte,
// waiting for it.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

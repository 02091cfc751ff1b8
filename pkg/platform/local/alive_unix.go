//go:build unix

package local

import (
	"errors"

	"golang.org/x/sys/unix"
)

// processAlive reports whether process pid exists (signal 0; a process of
// another user exists too).
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

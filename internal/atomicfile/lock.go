package atomicfile

import "os"

// Lock takes an exclusive lock on the file lockPath (created, mode 0600,
// when missing), waiting for it, and returns its release. The lock is
// advisory: it serialises the processes that take it (a read-modify-write
// of the file beside it) and ends with the process. The lock file itself
// stays: removing it would let two processes lock two different files.
func Lock(lockPath string) (release func(), err error) {
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: lockPath, Err: err}
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}

// TryLock is Lock without the wait: when another holds the lock, ok is
// false and nothing is held. A lock taken is held until release, or until
// the process ends (a killed holder holds up nobody).
func TryLock(lockPath string) (release func(), ok bool, err error) {
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, err
	}
	held, err := tryLockFile(f)
	if err != nil || !held {
		f.Close()
		if err != nil {
			return nil, false, &os.PathError{Op: "lock", Path: lockPath, Err: err}
		}
		return nil, false, nil
	}
	return func() { f.Close() }, true, nil
}

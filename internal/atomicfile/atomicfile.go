// Package atomicfile writes a file whole or not at all: through a
// temporary file in the same directory, renamed over the target, so a
// reader never sees it half written. A path that is a symbolic link is
// written through: the link's final target is replaced, the link stays.
// Lock serialises the read-modify-write of a file between processes.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds a chain of symbolic links, as the kernel does (ELOOP).
const maxLinks = 40

// Write replaces path with data, mode perm. When path is a symbolic link
// (or a chain of them), the file it finally points to is replaced and the
// links are kept; a link to a missing file creates that file.
func Write(path string, data []byte, perm fs.FileMode) error {
	target, err := Target(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}

// Target returns the file a write of path replaces: path itself, or the
// final target of the symbolic links path is (resolved relative to each
// link's directory), whether that file exists or not.
func Target(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink == 0) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("more than %d symbolic links", maxLinks)}
}

package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ConflictError lists the files of the project that already exist in the
// target directory; nothing was written.
type ConflictError struct {
	Dir   string
	Files []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s already holds %d file(s) the project would write: %s", e.Dir, len(e.Files), strings.Join(e.Files, ", "))
}

// Conflicts returns the files (slash paths relative to dir) that files would
// overwrite, including paths blocked by an existing file where a directory is
// needed.
func Conflicts(dir string, files []File) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		parts := strings.Split(f.Path, "/")
		for i := range parts {
			rel := strings.Join(parts[:i+1], "/")
			fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				break
			}
			last := i == len(parts)-1
			if (last || !fi.IsDir()) && !seen[rel] {
				seen[rel] = true
				out = append(out, rel)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// Write writes files into dir atomically: everything is generated into a
// temporary directory on the same file system and moved into place, so a
// failure leaves nothing behind. dir may not exist yet, may be empty, or may
// hold unrelated files; a file the project would write that already exists is
// a *ConflictError and nothing is written.
func Write(dir string, files []File) (err error) {
	if c := Conflicts(dir, files); len(c) > 0 {
		return &ConflictError{Dir: dir, Files: c}
	}
	fi, statErr := os.Stat(dir)
	exists := statErr == nil
	if exists && !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		return statErr
	}
	stageParent := dir
	if !exists {
		stageParent = filepath.Dir(filepath.Clean(dir))
		// Parent directories this call creates go away again on failure.
		if created := firstMissing(stageParent); created != "" {
			defer func() {
				if err != nil {
					os.RemoveAll(created)
				}
			}()
		}
		if err := os.MkdirAll(stageParent, 0o755); err != nil {
			return err
		}
	}
	stage, err := os.MkdirTemp(stageParent, ".botkit-create-*")
	if err != nil {
		return err
	}
	defer func() {
		if rmErr := os.RemoveAll(stage); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	for _, f := range files {
		p := filepath.Join(stage, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := fs.FileMode(f.Mode)
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(p, f.Data, mode); err != nil {
			return err
		}
	}
	if !exists {
		// The staging directory becomes the project in one rename.
		if err := os.Chmod(stage, 0o755); err != nil {
			return err
		}
		return os.Rename(stage, dir)
	}
	var moved []string
	if err := moveInto(stage, dir, &moved); err != nil {
		for i := len(moved) - 1; i >= 0; i-- {
			os.RemoveAll(moved[i])
		}
		return err
	}
	return nil
}

// moveInto renames every entry of src into dst, descending into directories
// that exist on both sides, and records what it moved for rollback.
func moveInto(src, dst string, moved *[]string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		s, d := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		if fi, err := os.Lstat(d); err == nil {
			if fi.IsDir() && e.IsDir() {
				if err := moveInto(s, d, moved); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("%s appeared while writing the project", d)
		}
		if err := os.Rename(s, d); err != nil {
			return err
		}
		*moved = append(*moved, d)
	}
	return nil
}

// firstMissing returns the outermost ancestor of dir (or dir itself) that
// does not exist, or "" when dir exists.
func firstMissing(dir string) string {
	missing := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			return missing
		}
		missing = d
		if filepath.Dir(d) == d {
			return missing
		}
	}
}

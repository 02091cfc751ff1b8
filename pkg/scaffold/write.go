package scaffold

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// ConflictError lists the files of the project that already exist in the
// target directory; nothing was written.
type ConflictError struct {
	Dir   string
	Files []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s already holds %s the project would write: %s", e.Dir, resources.Plural(len(e.Files), "file"), strings.Join(e.Files, ", "))
}

// TargetError is a target that cannot take the project: a path that is not
// a directory, or a target another process wrote while this one was
// writing. Nothing was written.
type TargetError struct {
	Dir    string
	Reason string
}

func (e *TargetError) Error() string { return e.Dir + ": " + e.Reason }

// stagePrefix starts the name of every staging directory.
const stagePrefix = ".botkit-create-"

// staleAfter is how old an unlocked staging directory must be before a
// later run removes it as left behind by a killed process.
const staleAfter = time.Minute

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

// CheckTarget reports whether dir can take a project at all: it does not
// exist yet, or is a directory (not a file, not a symlink to elsewhere).
// A problem is a *TargetError.
func CheckTarget(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return &TargetError{Dir: dir, Reason: err.(*fs.PathError).Err.Error()}
	case fi.IsDir():
		return nil
	case fi.Mode()&fs.ModeSymlink != 0:
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return nil
		}
		return &TargetError{Dir: dir, Reason: "is a symbolic link that does not lead to a directory; give a directory"}
	}
	return &TargetError{Dir: dir, Reason: "exists and is not a directory; give a new or empty directory"}
}

// Write writes files into dir atomically: everything is generated into a
// staging directory on the same file system and moved into place, so a
// failure leaves nothing behind. dir may not exist yet, may be empty, or may
// hold unrelated files; a file the project would write that already exists
// is a *ConflictError and nothing is written.
//
// Concurrent writes to one target are safe: a new target is created by one
// rename that never replaces an existing directory, a write into an existing
// directory holds a lock on it and checks again under the lock, and a
// failed write removes only what it created itself (the loser of a race
// gets a *TargetError naming dir). Files and directories get 0644/0755
// minus the umask. Staging directories a killed process left behind are
// removed once they are clearly stale (unlocked and older than a minute).
func Write(dir string, files []File) (err error) {
	dir = filepath.Clean(dir)
	if err := CheckTarget(dir); err != nil {
		return err
	}
	if c := Conflicts(dir, files); len(c) > 0 {
		return &ConflictError{Dir: dir, Files: c}
	}
	_, statErr := os.Stat(dir)
	exists := statErr == nil
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		return statErr
	}
	stageParent := dir
	if !exists {
		stageParent = filepath.Dir(dir)
		var created []string
		created, err = mkdirs(stageParent)
		// Parent directories this call created go away again on failure,
		// unless another process put something in them meanwhile.
		defer func() {
			if err != nil {
				for i := len(created) - 1; i >= 0; i-- {
					os.Remove(created[i])
				}
			}
		}()
		if err != nil {
			return err
		}
	}
	removeStaleStages(stageParent)
	stage, unlock, err := makeStage(stageParent)
	if err != nil {
		return err
	}
	defer func() {
		unlock()
		if rmErr := os.RemoveAll(stage); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	if err := writeStage(stage, files); err != nil {
		return err
	}
	if !exists {
		// The staging directory becomes the project in one rename that
		// fails when the target appeared meanwhile.
		if err := renameNoReplace(stage, dir); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return raced(dir)
			}
			return err
		}
		return nil
	}
	// An existing directory: one writer at a time, and the conflicts are
	// checked again by the writer holding the lock.
	release, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer release()
	if c := Conflicts(dir, files); len(c) > 0 {
		return raced(dir)
	}
	var moved []string
	if err := moveInto(stage, dir, &moved); err != nil {
		for i := len(moved) - 1; i >= 0; i-- {
			os.RemoveAll(moved[i])
		}
		if errors.Is(err, fs.ErrExist) {
			return raced(dir)
		}
		return err
	}
	return nil
}

// writeStage writes files into the staging directory: the directories
// first, then the files by as many goroutines as the process has cores.
// Creating a file is mostly the kernel's work (allocating its inode, ~0.4-1
// ms each on a busy ext4), which cores do side by side. It returns when
// every file is written or failed, with the first failure in files' order.
func writeStage(stage string, files []File) error {
	paths := make([]string, len(files))
	made := map[string]bool{}
	for i, f := range files {
		paths[i] = filepath.Join(stage, filepath.FromSlash(f.Path))
		if d := filepath.Dir(paths[i]); !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			made[d] = true
		}
	}
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				mode := fs.FileMode(files[i].Mode)
				if mode == 0 {
					mode = 0o644
				}
				errs[i] = os.WriteFile(paths[i], files[i].Data, mode)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func raced(dir string) error {
	return &TargetError{Dir: dir, Reason: "another process wrote a project there while this one was writing; nothing was written"}
}

// mkdirs creates dir and its missing parents with 0755 minus the umask and
// returns the directories it created itself, outermost first. A directory
// another process creates at the same moment is not counted.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o755)
		switch {
		case err == nil:
			created = append(created, missing[i])
		case errors.Is(err, fs.ErrExist):
			if fi, statErr := os.Stat(missing[i]); statErr != nil || !fi.IsDir() {
				return created, &TargetError{Dir: missing[i], Reason: "exists and is not a directory"}
			}
		default:
			return created, err
		}
	}
	return created, nil
}

// makeStage creates a new staging directory in parent (0755 minus the
// umask, so the project directory it becomes honours the umask) and locks
// it for as long as this process writes; unlock releases the lock.
func makeStage(parent string) (string, func(), error) {
	for range 10 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", nil, err
		}
		name := filepath.Join(parent, stagePrefix+hex.EncodeToString(b[:]))
		err := os.Mkdir(name, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		unlock, err := lockDir(name)
		if err != nil {
			os.Remove(name)
			return "", nil, err
		}
		return name, unlock, nil
	}
	return "", nil, fmt.Errorf("%s: cannot create a staging directory", parent)
}

// removeStaleStages removes staging directories in parent that no process
// holds locked and that have not changed for staleAfter: what a killed
// create left behind. Errors are ignored; the directories are only litter.
func removeStaleStages(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), stagePrefix) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) < staleAfter {
			continue
		}
		release, ok := tryLockDir(p)
		if !ok {
			continue // a live process is writing there
		}
		os.RemoveAll(p)
		release()
	}
}

// moveInto renames every entry of src into dst, descending into directories
// that exist on both sides, never replacing anything, and records what it
// moved for rollback.
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
			return &fs.PathError{Op: "write", Path: d, Err: fs.ErrExist}
		}
		if err := renameNoReplace(s, d); err != nil {
			return err
		}
		*moved = append(*moved, d)
	}
	return nil
}

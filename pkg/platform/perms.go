package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// PermissionError is a data directory others can write to, or a master key
// file others can read: refused, as ssh refuses such a key, saying how to
// fix the mode (invalid input, exit 2). Nothing is changed for the user.
type PermissionError struct {
	Path string
	Mode fs.FileMode
	What string // "data directory", "master key"
	Fix  string // the chmod to run
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s %s is open to others (mode %04o): run `%s`", e.What, e.Path, e.Mode.Perm(), e.Fix)
}

// ErrorCode makes a PermissionError invalid input (see cmdutil.Coded).
func (e *PermissionError) ErrorCode() string { return resources.CodeInvalid }

// checkPermissions refuses a data directory that others can write to (they
// could replace the database or the key) and a master key file that others
// can read. Missing files are for Open to create.
func checkPermissions(dataDir, keyFile string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	if dataDir != "" {
		if fi, err := os.Stat(dataDir); err == nil && fi.Mode().Perm()&0o022 != 0 {
			return &PermissionError{Path: dataDir, Mode: fi.Mode(), What: "data directory", Fix: "chmod go-w " + dataDir}
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if keyFile != "" {
		if fi, err := os.Stat(keyFile); err == nil && fi.Mode().Perm()&0o077 != 0 {
			return &PermissionError{Path: keyFile, Mode: fi.Mode(), What: "master key", Fix: "chmod 600 " + keyFile}
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

package platform_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
)

// A data directory others can write to, or a master key others can read,
// is refused as ssh refuses such a key: Open fails with a
// *platform.PermissionError naming the path, its mode and the chmod that
// repairs it, never the key; after the chmod the platform opens.
func TestPermissionsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix mode bits")
	}
	ctx := context.Background()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, platform.MasterKeyFile)
	open := func() error {
		t.Helper()
		st, err := sqlite.OpenDir(ctx, dir, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := platform.Open(ctx, platform.Options{Store: st, DataDir: dir, NoAuthOrg: "local", DisableProvisioner: true})
		if err == nil {
			srv.Close()
		}
		return err
	}
	if err := open(); err != nil { // creates master.key
		t.Fatal(err)
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	chmod := func(p string, m os.FileMode) {
		t.Helper()
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(path string, mode os.FileMode, fix string) {
		t.Helper()
		err := open()
		var pe *platform.PermissionError
		if !errors.As(err, &pe) || pe.Path != path {
			t.Fatalf("mode %04o of %s: %v", mode, path, err)
		}
		for _, want := range []string{path, fmt.Sprintf("mode %04o", mode), fix + " " + path} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("message lacks %q: %v", want, err)
			}
		}
		if strings.Contains(err.Error(), strings.TrimSpace(string(key))) {
			t.Errorf("the message shows the key: %v", err)
		}
	}
	for _, m := range []os.FileMode{0o777, 0o775, 0o757} {
		chmod(dir, m)
		refused(dir, m, "chmod go-w")
	}
	chmod(dir, 0o755) // readable by others, writable only by its owner: fine
	for _, m := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		chmod(keyFile, m)
		refused(keyFile, m, "chmod 600")
	}
	chmod(keyFile, 0o400)
	if err := open(); err != nil {
		t.Fatalf("0755 directory, 0400 key: %v", err)
	}
	chmod(keyFile, 0o600)
	chmod(dir, 0o700)
	if err := open(); err != nil {
		t.Fatalf("after the chmods: %v", err)
	}
}

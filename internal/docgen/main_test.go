package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The committed reference (docs/reference, docs/man) is what the command
// trees generate now: a command, flag or help text changed without
// `go run ./internal/docgen` fails here.
func TestReferenceIsCurrent(t *testing.T) {
	// Defaults that read the environment must not leak into the reference.
	for _, v := range []string{"BOTKIT_PLATFORM_DATA_DIR", "BOTKIT_PLATFORM_STORE"} {
		t.Setenv(v, "")
	}
	tmp := t.TempDir()
	if err := generate(tmp); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", "..", "docs")
	for _, sub := range []string{"reference", "man"} {
		want := readTree(t, filepath.Join(tmp, sub))
		got := readTree(t, filepath.Join(committed, sub))
		for name, w := range want {
			g, ok := got[name]
			switch {
			case !ok:
				t.Errorf("docs/%s/%s is missing: run `go run ./internal/docgen`", sub, name)
			case !bytes.Equal(g, w):
				t.Errorf("docs/%s/%s is stale: run `go run ./internal/docgen`", sub, name)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("docs/%s/%s documents no command: run `go run ./internal/docgen`", sub, name)
			}
		}
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[filepath.Base(p)] = b
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

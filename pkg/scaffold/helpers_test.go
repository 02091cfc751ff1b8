package scaffold

import (
	"encoding/json"
	"os"
	"testing"
)

// readFile returns path's contents, failing the test when it cannot be read.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readDir returns dir's entries, failing the test when it cannot be read.
func readDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// mustJSON returns v as JSON, failing the test when it cannot be encoded.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

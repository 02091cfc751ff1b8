package main

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/browsertest"
)

// The committed call page is what its source builds: the vanilla client
// with this directory's platform.js, built with npm from the locked
// dependencies. After a change to either, go run ./internal/callpagegen
// rewrites it (with -relock when the client's dependencies changed: npm ci
// refuses a lock that does not match them).
func TestCallPageMatchesSource(t *testing.T) {
	if testing.Short() {
		t.Skip("npm takes minutes; run without -short")
	}
	tools := browsertest.Require(t)
	out := filepath.Join(t.TempDir(), "dist")
	if err := build(context.Background(), t.TempDir(), out, "package-lock.json", false, append(os.Environ(), tools.Env...)); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", "..", "pkg", "platform", "callpage", "dist")
	want, got := files(t, out), files(t, committed)
	if !slices.Equal(slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got))) {
		t.Fatalf("pkg/platform/callpage/dist holds %q, its source builds %q: run go run ./internal/callpagegen", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	size := 0
	for name, data := range want {
		size += len(data)
		if string(got[name]) != string(data) {
			t.Errorf("pkg/platform/callpage/dist/%s differs from what its source builds: run go run ./internal/callpagegen", name)
		}
	}
	t.Logf("the call page: %d files, %d bytes", len(want), size)
}

// files reads every file under dir, by its slash path.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		m[p], err = fs.ReadFile(os.DirFS(dir), p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

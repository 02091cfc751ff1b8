package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.yaml")
	for _, data := range []string{"one\n", "two, longer\n"} {
		if err := Write(path, []byte(data), 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read back %q, %v", got, err)
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v", st.Mode(), err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("left in the directory: %v, %v", entries, err)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Error("a missing directory: no error")
	}
}

// A symbolic link is written through: the target gets the data, the link
// stays a link (a manifest shared by a link, a config file kept in a
// dotfiles repository).
func TestWriteSymlink(t *testing.T) {
	dir := t.TempDir()
	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(shared, "app.yaml")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// secrets/app.yaml -> ../shared/app.yaml (relative), and link2 -> secrets/app.yaml (a chain).
	if err := os.Mkdir(filepath.Join(dir, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "secrets", "app.yaml")
	if err := os.Symlink("../shared/app.yaml", link); err != nil {
		t.Fatal(err)
	}
	link2 := filepath.Join(dir, "link2")
	if err := os.Symlink(link, link2); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, link2} {
		if err := Write(p, []byte("new "+p+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link: %v, %v", p, fi.Mode(), err)
		}
		if got, err := os.ReadFile(target); err != nil || string(got) != "new "+p+"\n" {
			t.Fatalf("target after writing %s: %q, %v", p, got, err)
		}
	}
	if entries, err := os.ReadDir(shared); err != nil || len(entries) != 1 {
		t.Errorf("left beside the target: %v %v", entries, err)
	}
	// A link to a missing file creates the file.
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("shared/created.yaml", dangling); err != nil {
		t.Fatal(err)
	}
	if err := Write(dangling, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(shared, "created.yaml")); err != nil || string(got) != "x" {
		t.Fatalf("created through a dangling link: %q, %v", got, err)
	}
	// A loop is an error, not a hang.
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if err := Write(loop, nil, 0o600); err == nil {
		t.Error("a link loop: no error")
	}
}

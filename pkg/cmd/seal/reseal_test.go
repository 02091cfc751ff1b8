package seal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/atomicfile"
)

// rewrite replaces each sealed value where it is, in every form a manifest
// may hold it (flow mapping, block mapping, plain, quoted, JSON, several
// documents), and changes nothing else in the file.
func TestRewriteOnlyValues(t *testing.T) {
	const a, b, c = "v1.0123456789abcdef.AAAA", "v1.0123456789abcdef.BBBB", "v1.0123456789abcdef.CCCC"
	text := "# a comment naming " + a + "\napiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec:\n  data:\n    A: {sealed: \"" + a + "\"}   # keep\n    B:\n      sealed: " + b + "\n    C: {sealed: '" + c + "'}\n---\n{\"kind\": \"SecretSet\", \"spec\": {\"data\": {\"É\": {\"sealed\": \"" + a + "\"}}}}\n"
	path := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(path, []byte(text), 0o640); err != nil {
		t.Fatal(err)
	}
	mf, err := readManifest(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(mf.occs) != 4 {
		t.Fatalf("found %d sealed values, want 4: %+v", len(mf.occs), mf.occs)
	}
	out, n, err := rewrite(mf, []string{a + "1", b, c + "3", a + "4"})
	if err != nil || n != 3 {
		t.Fatalf("rewrite: %d, %v", n, err)
	}
	want := strings.Replace(text, "{sealed: \""+a+"\"}", "{sealed: \""+a+"1\"}", 1)
	want = strings.Replace(want, "'"+c+"'", "'"+c+"3'", 1)
	want = strings.Replace(want, "\"sealed\": \""+a+"\"", "\"sealed\": \""+a+"4\"", 1)
	if string(out) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", out, want)
	}
	if err := atomicfile.Write(path, out, mf.mode); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode after the rewrite: %v, %v", st.Mode(), err)
	}
	if left, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".m.yaml.*")); err != nil || len(left) != 0 {
		t.Errorf("temporary files left: %v, %v", left, err)
	}
}

// A block scalar (sealed: >- or |) is read as its string and rewritten on
// its text line, the indicator, indentation and every other byte kept; a
// label named sealed is no sealed value; the file reads back with the new
// values.
func TestRewriteBlockScalar(t *testing.T) {
	const a, b, c, d = "v1.0123456789abcdef.AAAA", "v1.0123456789abcdef.BBBB", "v1.0123456789abcdef.CCCC", "v1.0123456789abcdef.DDDD"
	text := "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata:\n  name: x\n  labels:\n    sealed: \"true\"\nspec:\n  data:\n    A:\n      sealed: >-\n        " + a + "\n    B:\n      sealed: |-\n        " + b + "\n    C:\n      sealed: |\n        " + c + "\n    D: {sealed: " + d + "}\n"
	path := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	mf, err := readManifest(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(mf.occs) != 4 || mf.occs[2].value != c+"\n" {
		t.Fatalf("found %+v, want the 4 values of spec.data", mf.occs)
	}
	out, n, err := rewrite(mf, []string{a + "1", b + "2", c + "3", d})
	if err != nil || n != 3 {
		t.Fatalf("rewrite: %d, %v", n, err)
	}
	want := strings.Replace(text, a+"\n", a+"1\n", 1)
	want = strings.Replace(want, b+"\n", b+"2\n", 1)
	want = strings.Replace(want, c+"\n", c+"3\n", 1)
	if string(out) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", out, want)
	}

	// A folded value over two lines is not one word: refused, nothing made.
	text = "kind: SecretSet\nspec:\n  data:\n    A:\n      sealed: >-\n        v1.0123456789abcdef.\n        AAAA\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if mf, err = readManifest(context.Background(), path); err != nil || len(mf.occs) != 1 {
		t.Fatalf("%+v %v", mf, err)
	}
	if _, _, err := rewrite(mf, []string{a}); err == nil || !strings.Contains(err.Error(), "m.yaml:5: the sealed value is a block scalar over several lines") {
		t.Errorf("a folded value over two lines: %v", err)
	}
}

// A write that fails after others succeeded puts the others back: no file
// is rewritten.
func TestWriteAllPutsBack(t *testing.T) {
	dir := t.TempDir()
	var files []*manifestFile
	var changes []change
	for _, name := range []string{"a.yaml", "b.yaml", "c.yaml"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("old "+name), 0o640); err != nil {
			t.Fatal(err)
		}
		files = append(files, &manifestFile{path: path, data: []byte("old " + name), mode: 0o640})
		changes = append(changes, change{data: []byte("new " + name), n: 1})
	}
	real := writeFile
	t.Cleanup(func() { writeFile = real })
	writeFile = func(path string, data []byte, mode os.FileMode) error {
		if filepath.Base(path) == "c.yaml" {
			return errors.New("disk full")
		}
		return real(path, data, mode)
	}
	err := writeAll(files, changes)
	if err == nil || !strings.Contains(err.Error(), "disk full\nnothing was rewritten") {
		t.Fatalf("writeAll: %v", err)
	}
	for _, mf := range files {
		if b, err := os.ReadFile(mf.path); err != nil || string(b) != string(mf.data) {
			t.Errorf("%s: %q, %v; want its old text", mf.path, b, err)
		}
	}
}

package seal

import (
	"context"
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

package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// history matches what makes a document a diary rather than a reference:
// issue numbers, sessions, stops of work, and sections of a design document
// that is not in the repository. (The words are split so that this file
// does not match itself.)
var history = regexp.MustCompile(`issue [0-9]+|DESIGN ` + "\u00a7" + `|this ` + `stop|[Ss]ession [0-9]`)

// The docs, the Go comments, and the scripts, migrations and test scripts
// describe the product as it is: none of them cites an issue, a session, a
// stop or a design document outside the repository.
func TestDocsHaveNoHistory(t *testing.T) {
	root := filepath.Join("..", "..")
	check := func(path, text string, line int) {
		for i, l := range strings.Split(text, "\n") {
			if m := history.FindString(l); m != "" {
				rel, _ := filepath.Rel(root, path) // error ignored: path is under root
				t.Errorf("%s:%d: %q: say the fact, not when or why it was asked for", rel, line+i, m)
			}
		}
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path) // error ignored: path is under root
		top := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
		switch {
		case strings.HasSuffix(name, ".go"):
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					check(path, c.Text, fset.Position(c.Pos()).Line)
				}
			}
		case top == "docs" && strings.HasSuffix(name, ".md"),
			(top == "bench" || top == "scripts" || top == "pkg" || top == "cmd" || top == "internal") &&
				(strings.HasSuffix(name, ".sh") || strings.HasSuffix(name, ".sql") || strings.HasSuffix(name, ".txtar")):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			check(path, string(b), 1)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

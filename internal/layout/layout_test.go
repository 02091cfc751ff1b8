package layout

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/botkit-dev/botkit/"

// rules reads the table of docs/project-layout.md: package → the module
// packages it may import.
func rules(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "project-layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := map[string][]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		cells := strings.Split(sc.Text(), " | ")
		if len(cells) != 3 || !strings.HasPrefix(cells[0], "| `") {
			continue
		}
		pkg := strings.Trim(strings.TrimPrefix(cells[0], "| "), "`")
		if _, dup := r[pkg]; dup {
			t.Errorf("docs/project-layout.md:%d: %s is listed twice", line, pkg)
		}
		if strings.TrimSpace(cells[1]) == "" {
			t.Errorf("docs/project-layout.md:%d: %s has no job", line, pkg)
		}
		allowed := []string{}
		for _, a := range strings.Split(strings.TrimSuffix(cells[2], " |"), ",") {
			if a = strings.Trim(strings.TrimSpace(a), "`"); a != "" && a != "—" {
				allowed = append(allowed, a)
			}
		}
		r[pkg] = allowed
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(r) == 0 {
		t.Fatal("docs/project-layout.md has no package table")
	}
	return r
}

func allows(allowed []string, imp string) bool {
	for _, a := range allowed {
		if a == imp || (strings.HasSuffix(a, "/*") && strings.HasPrefix(imp, strings.TrimSuffix(a, "*"))) {
			return true
		}
	}
	return false
}

func TestImportsFollowTheLayout(t *testing.T) {
	r := rules(t)
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		listed[pkg] = true
		allowed, ok := r[pkg]
		if !ok {
			t.Errorf("package %s is not in docs/project-layout.md: add its row (job, allowed imports)", pkg)
			continue
		}
		var bad []string
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if imp = strings.TrimPrefix(imp, module); !allows(allowed, imp) {
				bad = append(bad, imp)
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			t.Errorf("%s imports %s, which its row in docs/project-layout.md does not allow", pkg, strings.Join(bad, ", "))
		}
	}
	for pkg := range r {
		if !listed[pkg] {
			t.Errorf("docs/project-layout.md lists %s, which is not a package of the module", pkg)
		}
	}
}

// TestCoreHasNoHTTP checks the "No HTTP:" line of docs/project-layout.md:
// none of the packages it names depends on net/http, directly or not.
func TestCoreHasNoHTTP(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "project-layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "No HTTP: "); ok {
			for _, p := range strings.Split(rest, ",") {
				pkgs = append(pkgs, "./"+strings.Trim(strings.TrimSpace(p), "`"))
			}
		}
	}
	if len(pkgs) < 3 {
		t.Fatalf("docs/project-layout.md has no \"No HTTP: \" line naming the core packages (found %v)", pkgs)
	}
	for _, p := range pkgs {
		cmd := exec.Command("go", "list", "-deps", p)
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", p, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "net/http" || strings.HasPrefix(dep, "net/http/") {
				t.Errorf("%s depends on %s; docs/project-layout.md says it has no HTTP", p, dep)
			}
		}
	}
}

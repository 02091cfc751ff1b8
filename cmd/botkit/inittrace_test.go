package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Bounds of the allocations the module's own packages make at init in the
// real binary (GODEBUG=inittrace=1): an error value or a small map is fine;
// a compiled regexp, a table built by a loop or a parsed template is not.
// They are counts, not times: they do not depend on the machine's load.
const (
	maxInitAllocsPerPackage = 20
	maxInitAllocsTotal      = 200
)

// `botkit --version` runs no more of the module's code than it needs:
// package initialisation builds no regexps or tables (they are built at first
// use, sync.OnceValue), so every command pays only for what it uses
// (built at init, pkg/config allocated 3,322 times, pkg/resources 1,946).
func TestVersionInitBuildsNoTables(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "botkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("botkit --version: %v\n%s", err, stderr.Bytes())
	}
	if !strings.HasPrefix(stdout.String(), "botkit ") {
		t.Fatalf("botkit --version printed %q", stdout.String())
	}

	const module = "github.com/botkit-dev/botkit/"
	packages, total := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[10] != "allocs" {
			continue
		}
		allocs, err := strconv.Atoi(f[9])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		if !strings.HasPrefix(f[1], module) {
			continue
		}
		packages++
		total += allocs
		if allocs > maxInitAllocsPerPackage {
			t.Errorf("%s allocates %d times at init (bound %d): build its regexps and tables at first use (sync.OnceValue)", f[1], allocs, maxInitAllocsPerPackage)
		}
	}
	// The trace must have seen the module: a GODEBUG the runtime ignored
	// would otherwise pass.
	if packages < 10 {
		t.Fatalf("inittrace listed %d of the module's packages; stderr:\n%s", packages, stderr.Bytes())
	}
	if total > maxInitAllocsTotal {
		t.Errorf("the module's %d packages allocate %d times at init (bound %d)", packages, total, maxInitAllocsTotal)
	}
}

// The binary links one YAML library, go.yaml.in/yaml/v3, which reads
// (internal/yamlnode) and writes (yamlnode.Marshal) every YAML document:
// each library adds its own init tables and pages to every start
// (yaml v2 under sigs.k8s.io/yaml is 262 allocations at init).
func TestBinaryLinksOneYAMLLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var yamls []string
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(strings.ToLower(dep), "yaml") && !strings.HasPrefix(dep, "github.com/botkit-dev/botkit/") {
			yamls = append(yamls, dep)
		}
	}
	if len(yamls) != 1 || yamls[0] != "go.yaml.in/yaml/v3" {
		t.Errorf("botkit links the YAML packages %v, want only go.yaml.in/yaml/v3", yamls)
	}
}

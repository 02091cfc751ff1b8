package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// config is the part of .goreleaser.yaml the test reads.
type config struct {
	Builds []struct {
		ID      string   `json:"id"`
		Main    string   `json:"main"`
		Binary  string   `json:"binary"`
		Env     []string `json:"env"`
		Flags   []string `json:"flags"`
		LDFlags []string `json:"ldflags"`
		GOOS    []string `json:"goos"`
		GOARCH  []string `json:"goarch"`
	} `json:"builds"`
}

func readConfig(t *testing.T) config {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c config
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	return c
}

// ldflags renders a build's ldflags for version (GoReleaser's {{.Version}}).
func ldflags(flags []string, version string) string {
	return strings.ReplaceAll(strings.Join(flags, " "), "{{.Version}}", version)
}

// The release promises linux, darwin and windows on amd64 and arm64.
func TestReleaseTargets(t *testing.T) {
	c := readConfig(t)
	if len(c.Builds) != 2 {
		t.Fatalf("want the builds of botkit and botkit-platform, got %d", len(c.Builds))
	}
	for _, b := range c.Builds {
		for _, want := range []string{"linux", "darwin", "windows"} {
			if !contains(b.GOOS, want) {
				t.Errorf("build %s lacks goos %s", b.ID, want)
			}
		}
		for _, want := range []string{"amd64", "arm64"} {
			if !contains(b.GOARCH, want) {
				t.Errorf("build %s lacks goarch %s", b.ID, want)
			}
		}
	}
}

// Every binary builds for every target, with the flags and environment of
// the release. (-short leaves this out: a new target compiles every
// dependency, about a minute each on two cores.)
func TestCrossCompileEveryTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiling every release target takes minutes; run without -short")
	}
	c := readConfig(t)
	for _, b := range c.Builds {
		for _, goos := range b.GOOS {
			for _, goarch := range b.GOARCH {
				t.Run(b.ID+"/"+goos+"_"+goarch, func(t *testing.T) {
					out := filepath.Join(t.TempDir(), b.Binary)
					args := append([]string{"build"}, b.Flags...)
					args = append(args, "-ldflags", ldflags(b.LDFlags, "v9.8.7"), "-o", out, b.Main)
					cmd := exec.Command("go", args...)
					cmd.Dir = filepath.Join("..", "..")
					cmd.Env = append(append(os.Environ(), b.Env...), "GOOS="+goos, "GOARCH="+goarch)
					if msg, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("go %s (GOOS=%s GOARCH=%s): %v\n%s", strings.Join(args, " "), goos, goarch, err, msg)
					}
					// The stamped version is what --version prints, on the
					// target this test runs on.
					if goos == runtime.GOOS && goarch == runtime.GOARCH {
						v, err := exec.Command(out, "--version").Output()
						if err != nil {
							t.Fatalf("%s --version: %v", b.Binary, err)
						}
						if want := b.Binary + " version v9.8.7\n"; string(v) != want {
							t.Errorf("%s --version = %q, want %q", b.Binary, v, want)
						}
					}
				})
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

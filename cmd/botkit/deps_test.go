package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The botkit binary links only what the CLI needs: its embedded platform
// runs on SQLite, so no PostgreSQL driver, and it measures nothing, so no
// Prometheus (docs/project-layout.md).
func TestBinaryLinksNoServerDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed %d packages: not the botkit binary's dependencies", len(deps))
	}
	for _, dep := range deps {
		for _, banned := range []string{"github.com/jackc/pgx", "github.com/prometheus/", "/pkg/platform/store/postgres", "/pkg/platform/stores", "/pkg/platform/prommetrics"} {
			if strings.Contains(dep, banned) {
				t.Errorf("botkit links %s", dep)
			}
		}
	}
}

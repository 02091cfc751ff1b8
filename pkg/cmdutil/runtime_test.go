package cmdutil

import (
	"runtime/debug"
	"testing"
)

// The default applies unless the user set GOGC.
func TestDefaultGCPercent(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)

	t.Setenv("GOGC", "")
	DefaultGCPercent(400)
	if got := debug.SetGCPercent(100); got != 400 {
		t.Errorf("without GOGC: GC percent %d, want 400", got)
	}
	t.Setenv("GOGC", "150")
	DefaultGCPercent(400)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC=150: DefaultGCPercent changed the GC percent to %d", got)
	}
}

//go:build unix

package cmdutil

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// SignalContext says it handles signals by creating the file
// BOTKIT_SIGNALS_READY names, and its context ends at a SIGINT.
func TestSignalContextSaysWhenReady(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	t.Setenv(SignalsReadyEnv, ready)
	ctx, stop := SignalContext()
	defer stop()
	if _, err := os.Stat(ready); err != nil {
		t.Fatalf("no ready file: %v", err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	testenv.Within(t, "the context's end after SIGINT", ctx.Done())
}

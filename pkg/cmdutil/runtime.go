package cmdutil

import (
	"os"
	"runtime/debug"
)

// DefaultGCPercent sets the garbage collector's target to percent unless
// the user set GOGC, whose value then stands. Each command's main says why
// its value suits it.
func DefaultGCPercent(percent int) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}

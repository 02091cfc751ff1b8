package cmdutil

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// DefaultGCPercent sets the garbage collector's target to percent unless
// the user set GOGC, whose value then stands. Each command's main says why
// its value suits it.
func DefaultGCPercent(percent int) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}

// SignalsReadyEnv names the environment variable that asks a command to
// say when it handles SIGINT and SIGTERM: SignalContext creates the file
// it names once it does. A test or a supervisor that signals the command
// waits for that file instead of guessing how long the start takes (a
// signal before the handler kills the process).
const SignalsReadyEnv = "BOTKIT_SIGNALS_READY"

// SignalContext returns a context that ends at the first SIGINT or SIGTERM
// (the command then stops what it does and exits 130, or drains and exits
// for a server), and the function that stops listening. Each command's
// main calls it first thing.
func SignalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if p := os.Getenv(SignalsReadyEnv); p != "" {
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
			f.Close()
		}
	}
	return ctx, stop
}

package cmdutil

import (
	"os"

	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// Factory carries the dependencies commands are built with, so tests can
// swap any of them.
type Factory struct {
	IOStreams *iostreams.IOStreams
	// Getenv reads the environment (os.Getenv by default).
	Getenv func(string) string
	// WorkingDir returns the directory relative paths start from.
	WorkingDir func() (string, error)
}

// NewFactory returns a factory over the process's real environment.
func NewFactory(io *iostreams.IOStreams) *Factory {
	return &Factory{IOStreams: io, Getenv: os.Getenv, WorkingDir: os.Getwd}
}

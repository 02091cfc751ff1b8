package cmdutil

import (
	"os"
	"time"

	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
)

// Factory carries the dependencies commands are built with. The real ones
// are wired in one place (pkg/cmd/factory); tests replace any of them.
// Commands call the func fields lazily, in RunE, so that `botkit create`
// never opens a config file, a keyring or a platform.
type Factory struct {
	IOStreams *iostreams.IOStreams
	// Getenv reads the environment (os.Getenv by default).
	Getenv func(string) string
	// WorkingDir returns the directory relative paths start from.
	WorkingDir func() (string, error)
	// Now returns the current time (AGE columns, timeouts).
	Now func() time.Time
	// Prompter returns the prompter for this invocation (accessible line
	// mode when asked for, huh otherwise).
	Prompter func(accessible bool) prompter.Prompter
	// Config returns the CLI configuration, environment overrides applied,
	// for the context ContextName names ("" = BOTKIT_CONTEXT, else the
	// current one).
	Config func() (*config.Config, error)
	// ContextName is --context of the command (cloudutil.AddContextFlag).
	ContextName string
	// Close releases what the seams opened (the embedded platform lets its
	// provisioner finish and closes its database). Nil: nothing to release.
	// The command root calls it once the command returned.
	Close func() error
}

// NewFactory returns a factory over the process's real environment. The
// commands that talk to the platform take a cloudutil.Factory, which adds
// the platform's seams (pkg/cmd/factory.New wires them).
func NewFactory(io *iostreams.IOStreams) *Factory {
	return &Factory{
		IOStreams:  io,
		Getenv:     os.Getenv,
		WorkingDir: os.Getwd,
		Now:        time.Now,
		Prompter:   func(accessible bool) prompter.Prompter { return prompter.New(io, accessible) },
	}
}

package cmdutil

import (
	"context"
	"os"
	"time"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
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
	// Config returns the CLI configuration, environment overrides applied.
	Config func() (*config.Config, error)
	// APIClient returns the platform client of the configured context: the
	// embedded local platform when no API URL is configured, else the remote
	// one with the token from BOTKIT_TOKEN, the keyring or the config file.
	// Calls after the first return the same client.
	APIClient func(ctx context.Context) (*client.Client, error)
	// NewClient returns a client of the remote platform at baseURL with
	// token, made like APIClient's (auth login checks a token with it).
	NewClient func(baseURL, token string) (*client.Client, error)
	// Credentials is the token store (the OS keyring).
	Credentials credentials.Store
	// Close releases what the seams opened (the embedded platform lets its
	// provisioner finish and closes its database). Nil: nothing to release.
	// The command root calls it once the command returned.
	Close func() error
}

// NewFactory returns a factory over the process's real environment with no
// cloud seams; pkg/cmd/factory.New fills those.
func NewFactory(io *iostreams.IOStreams) *Factory {
	return &Factory{
		IOStreams:  io,
		Getenv:     os.Getenv,
		WorkingDir: os.Getwd,
		Now:        time.Now,
		Prompter:   func(accessible bool) prompter.Prompter { return prompter.New(io, accessible) },
	}
}

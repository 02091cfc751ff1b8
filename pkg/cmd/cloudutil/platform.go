package cloudutil

import (
	"context"
	"time"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
)

// Platform is what the Options of a command that acts on the platform
// embed (deploy, cloud agents): the streams, the client, the organization
// flag, the prompter, the clock and the context it acts in. Tests fill it
// with a real platform's client; NewPlatform wires the Factory's.
type Platform struct {
	IO *iostreams.IOStreams
	// APIClient returns the client of the configured platform.
	APIClient func(ctx context.Context) (*client.Client, error)
	// ServingPlatform returns the client of a platform that outlives the
	// command (Factory.ServingPlatform): what sessions need.
	ServingPlatform func(ctx context.Context) (*client.Client, error)
	// Organization is --organization ("" = the configured one).
	Organization string
	// ResolveOrg turns --organization into the organization to act in
	// (Factory.Organization).
	ResolveOrg func(ctx context.Context, flag string) (string, error)
	// Prompter returns the prompter; only called when IO.CanPrompt().
	Prompter func() prompter.Prompter
	// Now is the clock of AGE columns (nil: time.Now).
	Now func() time.Time
	// Target returns the context the command acts in (nil: an
	// unprotected one), which confirmations name.
	Target func() (Target, error)
}

// NewPlatform returns the Platform of the Factory's seams.
func NewPlatform(f *Factory) Platform {
	return Platform{
		IO:              f.IOStreams,
		APIClient:       f.APIClient,
		ServingPlatform: f.ServingPlatform,
		ResolveOrg:      f.Organization,
		Prompter: func() prompter.Prompter {
			return f.Prompter(f.Getenv != nil && f.Getenv("ACCESSIBLE") != "")
		},
		Now:    f.Now,
		Target: f.Target,
	}
}

// Connect returns the client and the organization to act in.
func (p *Platform) Connect(ctx context.Context) (*client.Client, string, error) {
	return Connect(ctx, p.APIClient, p.ResolveOrg, p.Organization)
}

// ConnectServing returns the client of a platform that outlives the
// command (ServingPlatform) and the organization to act in.
func (p *Platform) ConnectServing(ctx context.Context) (*client.Client, string, error) {
	return Connect(ctx, p.ServingPlatform, p.ResolveOrg, p.Organization)
}

// Clock returns the current time of AGE columns.
func (p *Platform) Clock() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// CurrentTarget returns the context the command acts in.
func (p *Platform) CurrentTarget() (Target, error) {
	if p.Target == nil {
		return DefaultTarget, nil
	}
	return p.Target()
}

// CheckSkip refuses --skip in a protected context that --context did not
// name (exit 2), before any request is made.
func (p *Platform) CheckSkip(skip bool) error {
	t, err := p.CurrentTarget()
	if err != nil {
		return err
	}
	return t.CheckSkip(skip)
}

// Confirm asks question about org through the protection check (Protect:
// yes/no, or the protected context's name typed) unless skip (--skip).
// Without a terminal it fails with exit 2 naming problem and --skip; a
// "no" is exit 1.
func (p *Platform) Confirm(ctx context.Context, org, question, problem string, skip bool) error {
	t, err := p.CurrentTarget()
	if err != nil {
		return err
	}
	return Protect(ctx, p.IO, p.Prompter, t, Guarded{Org: org, Asks: true, Question: question, Problem: problem, Skip: skip})
}

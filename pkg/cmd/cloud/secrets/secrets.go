// Package secrets implements `botkit cloud secrets`: list, set, unset,
// delete and image-pull-secret over the platform API (remote or embedded).
//
// Every subcommand has an Options struct filled by its flags and a run
// function that does the work; the tests call run directly against a real
// platform. Values travel from the user's input to one request body and
// nowhere else: no output, error or prompt of this package holds a value or
// part of one.
package secrets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// NewCmdSecrets returns `botkit cloud secrets`.
func NewCmdSecrets(f *cloudutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secrets <command>",
		Short: "Manage secret sets and image pull secrets",
		Long: `Manage the secret sets (environment variables for your bots) and image pull
secrets (registry credentials) of an organization.

Values are write-only: botkit sends them to the platform and never shows them
again, nor any part of them. Output lists key names, hosts and usernames.

The organization is --organization (alias --org); -o/--output picks the
output format (table, wide, json, yaml, name).`,
	}
	cmd.AddCommand(
		NewCmdList(f, nil),
		NewCmdSet(f, nil),
		NewCmdUnset(f, nil),
		NewCmdDelete(f, nil),
		NewCmdImagePullSecret(f, nil),
		NewCmdHistory(f, nil),
		NewCmdRollback(f, nil),
	)
	return cmd
}

// PlatformOptions is what every subcommand needs to reach the platform: the streams,
// the client, the organization flag and the prompter.
type PlatformOptions struct {
	IO *iostreams.IOStreams
	// APIClient returns the client of the configured platform.
	APIClient func(ctx context.Context) (*client.Client, error)
	// Organization is --organization ("" = the configured one).
	Organization string
	// ResolveOrg turns --organization into the organization to act in
	// (cmdutil.Factory.Organization).
	ResolveOrg func(ctx context.Context, flag string) (string, error)
	// DefaultRegion returns the region for new objects given --region
	// (cmdutil.Factory.Region); nil: the flag alone.
	DefaultRegion func(flag string) (string, error)
	// Prompter returns the prompter; only called when IO.CanPrompt() (or, for
	// a secret, IO.CanAskSecret()).
	Prompter func() prompter.Prompter
	// Now is the clock of AGE columns (nil: time.Now).
	Now func() time.Time
	// Target returns the context the command acts in (nil: an unprotected
	// one), which confirmations name.
	Target func() (cloudutil.Target, error)
}

func newPlatformOptions(f *cloudutil.Factory) PlatformOptions {
	return PlatformOptions{
		IO:        f.IOStreams,
		APIClient: f.APIClient,
		ResolveOrg: func(ctx context.Context, flag string) (string, error) {
			return f.Organization(ctx, flag)
		},
		DefaultRegion: f.Region,
		Prompter: func() prompter.Prompter {
			return f.Prompter(f.Getenv != nil && f.Getenv("ACCESSIBLE") != "")
		},
		Now:    f.Now,
		Target: f.Target,
	}
}

// addOrganizationFlag registers --organization and its alias --org.
func addOrganizationFlag(cmd *cobra.Command, s *PlatformOptions) {
	cloudutil.AddOrganizationFlag(cmd, &s.Organization)
}

// connect returns the client and the organization to act in.
// now is the clock of AGE columns.
func (s *PlatformOptions) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *PlatformOptions) connect(ctx context.Context) (*client.Client, string, error) {
	return cloudutil.Connect(ctx, s.APIClient, s.ResolveOrg, s.Organization)
}

// newRegion is the region a new object goes to: flag, else the configured
// default region, else "" (the organization's default, chosen by the
// platform).
func (s *PlatformOptions) newRegion(flag string) (string, error) {
	if s.DefaultRegion == nil || flag != "" {
		return flag, nil
	}
	return s.DefaultRegion(flag)
}

// target is the context the command acts in.
func (s *PlatformOptions) target() (cloudutil.Target, error) {
	if s.Target == nil {
		return cloudutil.DefaultTarget, nil
	}
	return s.Target()
}

// checkSkip refuses --skip in a protected context not named by --context.
func (s *PlatformOptions) checkSkip(skip bool) error {
	t, err := s.target()
	if err != nil {
		return err
	}
	return t.CheckSkip(skip)
}

// confirm asks question about org through the protection check
// (cloudutil.Protect: yes/no, or the protected context's name typed). Without a terminal it asks nothing and
// fails with exit 2: problem (what needed confirming, names only) and the
// flag that answers it, --skip. A "no" is exit 1.
func (s *PlatformOptions) confirm(ctx context.Context, org, question, problem string) error {
	t, err := s.target()
	if err != nil {
		return err
	}
	return cloudutil.Protect(ctx, s.IO, s.Prompter, t, cloudutil.Guarded{Org: org, Asks: true, Question: question, Problem: problem})
}

// ref is how objects are named in messages: secretset/NAME.
// ref is "kind/name" as lines print it; the name may come from the
// platform's answer: printed through iostreams.Printable.
func ref(kind, name string) string { return iostreams.Printable(strings.ToLower(kind) + "/" + name) }

func objRef(o resources.Object) string {
	if m := o.Meta(); m != nil {
		return ref(o.Kind(), m.Name)
	}
	return ""
}

// hasCode reports whether err is a platform error with the given code.
func hasCode(err error, code string) bool {
	var c cmdutil.Coded
	return errors.As(err, &c) && c.ErrorCode() == code
}

// validateName checks an object name given as an argument (exit 2).
func validateName(name string) error {
	if err := resources.ValidateName(name); err != nil {
		return &cmdutil.ArgsError{Err: err}
	}
	return nil
}

// validateNameRegion checks NAME and --region (when given) of a command that
// writes one object, before any request.
func validateNameRegion(name, region string) error {
	if err := validateName(name); err != nil {
		return err
	}
	if region != "" {
		if err := resources.ValidateRegion(region); err != nil {
			return cmdutil.FlagErrorf("--region: %v", err)
		}
	}
	return nil
}

// written finishes the write of one object: with wait (--wait) it waits for
// the platform's verdict; with output (-o given) it prints the object with
// p, and done is true. Otherwise the caller prints its summary line.
func (s *PlatformOptions) written(ctx context.Context, c *client.Client, org string, obj resources.Object, wait bool, p printers.Printer, output bool) (_ resources.Object, done bool, err error) {
	var failed error // the object ended failed: printed with -o, then exit 1
	if output && !wait && c.Embedded() {
		// The embedded platform provisions before the command exits:
		// print the state the object has then, not the pending of the
		// moment it was written.
		if err := c.Settle(ctx); err != nil && ctx.Err() != nil {
			return obj, true, ctx.Err() // interrupted; a drain that ran out of time leaves it pending
		}
		if obj, err = c.Get(ctx, org, obj.Meta().Name); err != nil {
			return obj, true, err
		}
	}
	if wait {
		objs, lines, err := cloudutil.Wait(ctx, s.IO, c, org, []string{obj.Meta().Name})
		if err != nil {
			return obj, true, err
		}
		obj, failed = objs[0], cloudutil.FailedErr(lines)
		if failed != nil && !output {
			return obj, true, failed
		}
	}
	if output {
		if err := p.PrintObject(s.IO, obj); err != nil {
			return obj, true, err
		}
		return obj, true, failed
	}
	return obj, false, nil
}

// readInput reads r to its end (at most limit bytes, more is a usage error
// naming what) and gives up when ctx ends (Ctrl-C while waiting on stdin is
// exit 130).
func readInput(ctx context.Context, r io.Reader, limit int64, what string) ([]byte, error) {
	b, err := ctxio.ReadAll(ctx, r, limit)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err // interrupted
	case err != nil:
		return nil, fmt.Errorf("%s: read: %w", what, err)
	}
	if int64(len(b)) > limit {
		return nil, cmdutil.UsageErrorf("%s: more than %d bytes", what, limit)
	}
	return b, nil
}

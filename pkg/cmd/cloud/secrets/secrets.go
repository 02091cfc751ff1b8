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

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
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

// PlatformOptions is what every subcommand needs to reach the platform
// (cloudutil.Platform: the streams, the client, the organization flag, the
// prompter, the clock, the context) and the default region of new objects.
type PlatformOptions struct {
	cloudutil.Platform
	// DefaultRegion returns the region for new objects given --region
	// (cmdutil.Factory.Region); nil: the flag alone.
	DefaultRegion func(flag string) (string, error)
}

func newPlatformOptions(f *cloudutil.Factory) PlatformOptions {
	return PlatformOptions{Platform: cloudutil.NewPlatform(f), DefaultRegion: f.Region}
}

// addOrganizationFlag registers --organization and its alias --org.
func addOrganizationFlag(cmd *cobra.Command, s *PlatformOptions) {
	cloudutil.AddOrganizationFlag(cmd, &s.Organization)
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

package secrets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// UnsetOptions are the inputs of `botkit cloud secrets unset`.
type UnsetOptions struct {
	PlatformOptions
	Name string
	Keys []string // removed together, in one request
	Skip bool
}

// NewCmdUnset returns `botkit cloud secrets unset`.
func NewCmdUnset(f *cloudutil.Factory, runF func(context.Context, *UnsetOptions) error) *cobra.Command {
	opts := &UnsetOptions{PlatformOptions: newPlatformOptions(f)}
	cmd := &cobra.Command{
		Use:   "unset NAME KEY...",
		Short: "Remove keys from a secret set",
		Long: `Remove the KEYs from the secret set NAME in one request: all of them or none.
One confirmation lists the key names (--skip: without); without a terminal,
--skip is required. A missing set exits 3, and so does a missing key, naming
it: then nothing is removed.`,
		Example: `  botkit cloud secrets unset support-bot LOG_LEVEL
  botkit cloud secrets unset support-bot LOG_LEVEL DEBUG_AUDIO --skip`,
		Args:              cmdutil.RangeArgs(2, -1, "NAME KEY..."),
		ValidArgsFunction: completeUnset(&opts.PlatformOptions),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Keys = args[0], args[1:]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runUnset(cmd.Context(), opts)
		},
	}
	cmdutil.SkipFlag(cmd.Flags(), &opts.Skip, "Remove without confirmation")
	addOrganizationFlag(cmd, &opts.PlatformOptions)
	registerFlagCompletions(cmd, &opts.PlatformOptions)
	return cmd
}

// runUnset removes the keys in one merge (its `remove` list), conditional
// on the version it read: every key is checked there first, so a missing
// one removes nothing, and a set that changed meanwhile is read and checked
// again (a key removed by someone else meanwhile is then missing).
func runUnset(ctx context.Context, opts *UnsetOptions) error {
	if err := validateName(opts.Name); err != nil {
		return err
	}
	var keys []string
	for _, k := range opts.Keys {
		if err := resources.ValidateKey(k); err != nil {
			return &cmdutil.ArgsError{Err: err}
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return &cmdutil.ArgsError{Err: errors.New("no KEY to remove")}
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	if err := opts.CheckSkip(opts.Skip); err != nil {
		return err
	}
	setRef := ref(resources.KindSecretSet, opts.Name)
	what := keyNoun(len(keys)) + " " + strings.Join(keys, ", ")
	confirmed := opts.Skip
	var obj resources.Object
	for attempt := 1; ; attempt++ {
		cur, err := c.Get(ctx, org, opts.Name)
		if err != nil {
			return err
		}
		if cur.SecretSet == nil {
			return &resources.Error{Code: resources.CodeInvalid, Message: objRef(cur) + " has no keys (only a secret set does)"}
		}
		var missing []string
		for _, k := range keys {
			if !slices.Contains(cur.SecretSet.Spec.Keys, k) {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			msg := fmt.Sprintf("%s %s not found in %s", keyNoun(len(missing)), strings.Join(missing, ", "), setRef)
			if len(keys) > 1 {
				msg += "; nothing was removed"
			}
			return &resources.Error{Code: resources.CodeNotFound, Message: msg}
		}
		if !confirmed {
			if err := opts.Confirm(ctx, org, fmt.Sprintf("Remove %s from %s?", what, setRef), "removing "+what+" from "+setRef+" needs confirmation", false); err != nil {
				return err
			}
			confirmed = true
		}
		obj, _, err = c.Merge(ctx, org, opts.Name, resources.Patch{Remove: keys}, cur.Meta().ResourceVersion)
		if err == nil {
			break
		}
		if !hasCode(err, resources.CodeConflict) {
			return err
		}
		// A 409: the set changed since it was read (or the conflict is of
		// another kind, which the same read shows again: report it).
		again, gerr := c.Get(ctx, org, opts.Name)
		if gerr != nil {
			return gerr
		}
		if again.Meta().ResourceVersion == cur.Meta().ResourceVersion {
			return err
		}
		if attempt >= maxConditionalAttempts {
			return cmdutil.WithCode(cmdutil.ExitConflict, fmt.Errorf(
				"%s keeps changing while removing %s (%s); run the command again", setRef, strings.Join(keys, ", "), resources.Plural(attempt, "attempt")))
		}
		backoff(ctx, attempt)
	}
	return printers.PrintOperations(opts.IO.Out, printers.Operation{Ref: setRef, Action: resources.ActionConfigured, Detail: "removed " + strings.Join(keys, ", "), Version: obj.Meta().Generation})
}

// keyNoun is "key" or "keys", for n keys named after it.
func keyNoun(n int) string {
	if n == 1 {
		return "key"
	}
	return "keys"
}

// DeleteOptions are the inputs of `botkit cloud secrets delete`.
type DeleteOptions struct {
	PlatformOptions
	Name string
	Skip bool
}

// NewCmdDelete returns `botkit cloud secrets delete`.
func NewCmdDelete(f *cloudutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{PlatformOptions: newPlatformOptions(f)}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a secret set or an image pull secret",
		Long: `Delete the secret set or image pull secret NAME, after confirmation (--skip:
without). Without a terminal, --skip is required. A missing object exits 3.`,
		Example: `  botkit cloud secrets delete support-bot
  botkit cloud secrets delete ghcr-creds --skip`,
		Args:              cmdutil.ExactArgs(1, "NAME"),
		ValidArgsFunction: completeNames(&opts.PlatformOptions, func() string { return "" }, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDelete(cmd.Context(), opts)
		},
	}
	cmdutil.SkipFlag(cmd.Flags(), &opts.Skip, "Delete without confirmation")
	addOrganizationFlag(cmd, &opts.PlatformOptions)
	registerFlagCompletions(cmd, &opts.PlatformOptions)
	return cmd
}

func runDelete(ctx context.Context, opts *DeleteOptions) error {
	if err := validateName(opts.Name); err != nil {
		return err
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	if err := opts.CheckSkip(opts.Skip); err != nil {
		return err
	}
	if !opts.Skip {
		cur, err := c.Get(ctx, org, opts.Name)
		if err != nil {
			return err
		}
		versions, err := c.Versions(ctx, org, opts.Name)
		if err != nil {
			return err
		}
		// A delete cannot be undone: the history goes with the object.
		history := resources.Plural(len(versions), "version") + " of history"
		what := objRef(cur)
		if cur.SecretSet != nil {
			what = fmt.Sprintf("%s (%s, region %s, %s)", what, resources.Plural(len(cur.SecretSet.Spec.Keys), "key"), cur.Meta().Region, history)
		} else {
			what = fmt.Sprintf("%s (region %s, %s)", what, cur.Meta().Region, history)
		}
		if err := opts.Confirm(ctx, org, "Delete "+what+"?", "deleting "+what+" needs confirmation", false); err != nil {
			return err
		}
	}
	obj, err := c.Delete(ctx, org, opts.Name)
	if err != nil {
		return err
	}
	err = printers.PrintOperations(opts.IO.Out, printers.Operation{Ref: objRef(obj), Action: resources.ActionDeleted})
	return err
}

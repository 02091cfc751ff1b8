package secrets

import (
	"context"
	"fmt"
	"slices"

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
	Key  string
	Skip bool
}

// NewCmdUnset returns `botkit cloud secrets unset`.
func NewCmdUnset(f *cloudutil.Factory, runF func(context.Context, *UnsetOptions) error) *cobra.Command {
	opts := &UnsetOptions{PlatformOptions: newPlatformOptions(f)}
	cmd := &cobra.Command{
		Use:   "unset NAME KEY",
		Short: "Remove one key from a secret set",
		Long: `Remove KEY from the secret set NAME, after confirmation (--skip: without).
Without a terminal, --skip is required. A missing set or key exits 3.`,
		Example: `  botkit cloud secrets unset support-bot LOG_LEVEL
  botkit cloud secrets unset support-bot LOG_LEVEL --skip`,
		Args:              cmdutil.ExactArgs(2, "NAME KEY"),
		ValidArgsFunction: completeUnset(&opts.PlatformOptions),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Key = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runUnset(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Skip, "skip", "s", false, "Remove without confirmation")
	addOrganizationFlag(cmd, &opts.PlatformOptions)
	registerFlagCompletions(cmd, &opts.PlatformOptions)
	return cmd
}

func runUnset(ctx context.Context, opts *UnsetOptions) error {
	if err := validateName(opts.Name); err != nil {
		return err
	}
	if err := resources.ValidateKey(opts.Key); err != nil {
		return &cmdutil.ArgsError{Err: err}
	}
	c, org, err := opts.connect(ctx)
	if err != nil {
		return err
	}
	if err := opts.checkSkip(opts.Skip); err != nil {
		return err
	}
	setRef := ref(resources.KindSecretSet, opts.Name)
	if !opts.Skip {
		cur, err := c.Get(ctx, org, opts.Name)
		if err != nil {
			return err
		}
		if cur.SecretSet == nil {
			return &resources.Error{Code: resources.CodeInvalid, Message: objRef(cur) + " has no keys (only a secret set does)"}
		}
		if !slices.Contains(cur.SecretSet.Spec.Keys, opts.Key) {
			return &resources.Error{Code: resources.CodeNotFound, Message: fmt.Sprintf("key %s not found in %s", opts.Key, setRef)}
		}
		if err := opts.confirm(ctx, org, fmt.Sprintf("Remove key %s from %s?", opts.Key, setRef), "removing key "+opts.Key+" from "+setRef+" needs confirmation"); err != nil {
			return err
		}
	}
	obj, err := c.DeleteKey(ctx, org, opts.Name, opts.Key)
	if err != nil {
		return err
	}
	err = printers.PrintOperations(opts.IO.Out, printers.Operation{Ref: setRef, Action: resources.ActionConfigured, Detail: "removed " + opts.Key, Version: obj.Meta().Generation})
	return err
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
	cmd.Flags().BoolVarP(&opts.Skip, "skip", "s", false, "Delete without confirmation")
	addOrganizationFlag(cmd, &opts.PlatformOptions)
	registerFlagCompletions(cmd, &opts.PlatformOptions)
	return cmd
}

func runDelete(ctx context.Context, opts *DeleteOptions) error {
	if err := validateName(opts.Name); err != nil {
		return err
	}
	c, org, err := opts.connect(ctx)
	if err != nil {
		return err
	}
	if err := opts.checkSkip(opts.Skip); err != nil {
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
		if err := opts.confirm(ctx, org, "Delete "+what+"?", "deleting "+what+" needs confirmation"); err != nil {
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

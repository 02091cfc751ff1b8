package secrets

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// completionTimeout bounds every platform call made for shell completion:
// a slow or unreachable platform gives no suggestions rather than a stuck
// prompt.
const completionTimeout = 1500 * time.Millisecond

// Completion never prints anything but the suggestions: a failure gives no
// suggestions (and no file names).
const noFiles = cobra.ShellCompDirectiveNoFileComp

func completionContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithTimeout(ctx, completionTimeout)
}

// completeNames completes the object name at argument position pos with
// the names of objects of kind ("" = every kind).
func completeNames(s *Scope, kind func() string, pos int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) != pos {
			return nil, noFiles
		}
		ctx, cancel := completionContext(cmd)
		defer cancel()
		c, org, err := s.connect(ctx)
		if err != nil {
			return nil, noFiles
		}
		objs, err := c.List(ctx, org, client.ListOptions{Kind: kind()})
		if err != nil {
			return nil, noFiles
		}
		var out []cobra.Completion
		for _, o := range objs {
			if name := o.Meta().Name; strings.HasPrefix(name, toComplete) {
				out = append(out, name)
			}
		}
		return out, noFiles
	}
}

// completeUnset completes `unset NAME KEY`: set names, then that set's keys.
func completeUnset(s *Scope) cobra.CompletionFunc {
	names := completeNames(s, func() string { return resources.KindSecretSet }, 0)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			return names(cmd, args, toComplete)
		case 1:
		default:
			return nil, noFiles
		}
		ctx, cancel := completionContext(cmd)
		defer cancel()
		c, org, err := s.connect(ctx)
		if err != nil {
			return nil, noFiles
		}
		o, err := c.Get(ctx, org, args[0])
		if err != nil || o.SecretSet == nil {
			return nil, noFiles
		}
		var out []cobra.Completion
		for _, k := range o.SecretSet.Spec.Keys {
			if strings.HasPrefix(k, toComplete) {
				out = append(out, k)
			}
		}
		return out, noFiles
	}
}

// registerFlagCompletions completes --region (the platform's regions, a
// fixed list) and --organization (the organizations of the token).
func registerFlagCompletions(cmd *cobra.Command, s *Scope) {
	if cmd.Flags().Lookup("region") != nil {
		_ = cmd.RegisterFlagCompletionFunc("region", func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var out []cobra.Completion
			for _, r := range resources.Regions() {
				if strings.HasPrefix(r, toComplete) {
					out = append(out, r)
				}
			}
			return out, noFiles
		})
	}
	_ = cmd.RegisterFlagCompletionFunc("organization", func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ctx, cancel := completionContext(cmd)
		defer cancel()
		if s.APIClient == nil {
			return nil, noFiles
		}
		c, err := s.APIClient(ctx)
		if err != nil {
			return nil, noFiles
		}
		me, err := c.Me(ctx)
		if err != nil {
			return nil, noFiles
		}
		var out []cobra.Completion
		for _, o := range me.Organizations {
			if strings.HasPrefix(o.Name, toComplete) {
				out = append(out, o.Name)
			}
		}
		slices.Sort(out)
		return out, noFiles
	})
}

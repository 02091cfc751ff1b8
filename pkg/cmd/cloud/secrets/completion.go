package secrets

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloud/organizations"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// completionTimeout bounds every platform call made for shell completion:
// a slow or unreachable platform gives no suggestions rather than a stuck
// prompt.
const completionTimeout = organizations.CompletionTimeout

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

// withPrefix returns the candidates that start with prefix.
func withPrefix(prefix string, candidates []string) []cobra.Completion {
	var out []cobra.Completion
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// completeFrom offers what list returns (asked of the platform with s's
// client and organization, under completionTimeout) that starts with
// toComplete; any failure offers nothing.
func completeFrom(cmd *cobra.Command, s *PlatformOptions, toComplete string, list func(context.Context, *client.Client, string) ([]string, error)) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx, cancel := completionContext(cmd)
	defer cancel()
	c, org, err := s.Connect(ctx)
	if err != nil {
		return nil, noFiles
	}
	names, err := list(ctx, c, org)
	if err != nil {
		return nil, noFiles
	}
	return withPrefix(toComplete, names), noFiles
}

// completeNames completes the object name at argument position pos with
// the names of objects of kind ("" = every kind).
func completeNames(s *PlatformOptions, kind func() string, pos int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) != pos {
			return nil, noFiles
		}
		return completeFrom(cmd, s, toComplete, func(ctx context.Context, c *client.Client, org string) ([]string, error) {
			objs, err := c.List(ctx, org, client.ListOptions{Kind: kind()})
			names := make([]string, 0, len(objs))
			for _, o := range objs {
				names = append(names, o.Meta().Name)
			}
			return names, err
		})
	}
}

// completeUnset completes `unset NAME KEY...`: set names, then that set's
// keys not given yet.
func completeUnset(s *PlatformOptions) cobra.CompletionFunc {
	names := completeNames(s, func() string { return resources.KindSecretSet }, 0)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return names(cmd, args, toComplete)
		}
		return completeFrom(cmd, s, toComplete, func(ctx context.Context, c *client.Client, org string) ([]string, error) {
			o, err := c.Get(ctx, org, args[0])
			if err != nil || o.SecretSet == nil {
				return nil, err
			}
			return slices.DeleteFunc(slices.Clone(o.SecretSet.Spec.Keys), func(k string) bool { return slices.Contains(args[1:], k) }), nil
		})
	}
}

// registerFlagCompletions completes --region (the platform's regions, a
// fixed list) and --organization (the organizations of the token).
func registerFlagCompletions(cmd *cobra.Command, s *PlatformOptions) {
	if cmd.Flags().Lookup("region") != nil {
		_ = cmd.RegisterFlagCompletionFunc("region", func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return withPrefix(toComplete, resources.Regions()), noFiles
		})
	}
	_ = cmd.RegisterFlagCompletionFunc("organization", func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return organizations.Complete(s.APIClient)(cmd, args, toComplete)
	})
}

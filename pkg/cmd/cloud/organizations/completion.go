package organizations

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
)

// CompletionTimeout bounds the platform call made for a shell completion: a
// slow or unreachable platform gives no suggestions rather than a stuck
// prompt.
const CompletionTimeout = 1500 * time.Millisecond

// Complete completes an organization name (an argument or a flag's value)
// with the organizations of the token, sorted; any failure offers nothing,
// and never file names.
func Complete(apiClient func(context.Context) (*client.Client, error)) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		const noFiles = cobra.ShellCompDirectiveNoFileComp
		if apiClient == nil {
			return nil, noFiles
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, CompletionTimeout)
		defer cancel()
		c, err := apiClient(ctx)
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
	}
}

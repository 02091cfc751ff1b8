package cmdutil

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestSkipFlagHasYesAlias(t *testing.T) {
	for _, args := range [][]string{{"--skip"}, {"-s"}, {"--yes"}, {"-y"}} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		var skip bool
		SkipFlag(fs, &skip, "Delete without confirmation")
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !skip {
			t.Errorf("%v did not skip the confirmation", args)
		}
	}
}

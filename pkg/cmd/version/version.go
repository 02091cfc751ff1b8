// Package version is `botkit version`: what --version prints, or the same
// facts as JSON or YAML for scripts.
package version

import (
	"context"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// CmdSummary is what the root lists of `botkit version`.
var CmdSummary = cmdutil.Summary{Use: "version", Short: "Print botkit's version (as --version does)"}

// Info is what `botkit version -o json|yaml` prints.
type Info struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"` // GOOS/GOARCH
}

// Options are the inputs of `botkit version`.
type Options struct {
	IO      *iostreams.IOStreams
	Print   *printers.Flags
	Version string       // the version botkit reports
	Text    func() error // prints what --version prints
}

// NewCmd returns `botkit version`. text prints what --version prints (the
// root's version template, so the two never differ).
func NewCmd(io *iostreams.IOStreams, text func(c *cobra.Command) error, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: io, Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML), Version: cmdutil.BuildVersion()}
	cmd := &cobra.Command{
		Use:   CmdSummary.Use,
		Short: CmdSummary.Short,
		Long: `Print botkit's version, as --version does. -o json or -o yaml prints the
version, the Go version it was built with and its platform (GOOS/GOARCH).`,
		Example: `  botkit version
  botkit version -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Text = func() error { return text(c) }
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return run(c.Context(), opts)
		},
	}
	opts.Print.AddFlags(cmd)
	return cmd
}

func run(_ context.Context, opts *Options) error {
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	if opts.Print.Lines() {
		return opts.Text()
	}
	return opts.Print.PrintValue(opts.IO, Info{
		Version:   opts.Version,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	})
}

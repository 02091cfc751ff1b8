// Package configcmd is `botkit config`: the contexts of the config file,
// with kubectl's command names (get-contexts, current-context, use-context,
// set-context, delete-context, rename-context).
package configcmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Options are the inputs of the config commands.
type Options struct {
	IO *iostreams.IOStreams
	// Path returns the config file's path.
	Path func() (string, error)

	Name, NewName string
	APIURL        string          // set-context --api-url
	Embedded      bool            // set-context --embedded
	Organization  string          // set-context --organization
	Region        string          // set-context --region
	Protected     bool            // set-context --protected / --no-protected
	CAFile        string          // set-context --certificate-authority ("" removes it)
	set           map[string]bool // the flags given
	Print         *printers.Flags
}

// CmdSummary is what `botkit --help` lists of `botkit config`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var CmdSummary = cmdutil.Summary{
	Use:   "config <command>",
	Short: "Contexts: staging, production, the local platform, without logging in and out",
}

// NewCmdConfig returns `botkit config`.
func NewCmdConfig(f *cmdutil.Factory) *cobra.Command {
	path := func() (string, error) { return config.FilePath(f.Getenv) }
	newOpts := func() *Options { return &Options{IO: f.IOStreams, Path: path, set: map[string]bool{}} }
	cmd := &cobra.Command{
		Use:   CmdSummary.Use,
		Short: CmdSummary.Short,
		Long: `A context is a name, a platform (a URL, or the embedded local platform), an
organization and a default region. Commands use the current context unless
--context NAME or BOTKIT_CONTEXT names another (BOTKIT_API_URL and BOTKIT_ORG
still override on top). Tokens stay in the OS keyring per platform host:
a context names no token. A protected context makes destructive commands ask
for its name to be typed (or --skip together with --context NAME).

The embedded local platform is the context "local": the current one on a new
machine, kept when other contexts are added (botkit config use-context local
goes back to it). With no current context, commands that need a platform exit
2 until one is chosen.`,
	}
	complete := completeNames(f.Getenv)

	gopts := newOpts()
	gopts.Print = printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatJSON, printers.FormatYAML, printers.FormatName)
	get := &cobra.Command{
		Use:   "get-contexts",
		Short: "List the contexts (* marks the current one)",
		Args:  cmdutil.ExactArgs(0, "no arguments"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return RunGetContexts(cmd.Context(), gopts) },
	}
	gopts.Print.AddFlags(get)

	copts := newOpts()
	current := &cobra.Command{
		Use:   "current-context",
		Short: "Print the current context's name",
		Args:  cmdutil.ExactArgs(0, "no arguments"),
		RunE:  func(cmd *cobra.Command, _ []string) error { return RunCurrentContext(cmd.Context(), copts) },
	}

	uopts := newOpts()
	use := &cobra.Command{
		Use:               "use-context NAME",
		Short:             "Make NAME the current context",
		Args:              cmdutil.ExactArgs(1, "the context's name"),
		ValidArgsFunction: complete,
		RunE: func(cmd *cobra.Command, args []string) error {
			uopts.Name = args[0]
			return RunUseContext(cmd.Context(), uopts)
		},
	}

	sopts := newOpts()
	set := &cobra.Command{
		Use:   "set-context NAME [--api-url URL | --embedded] [--organization ORG] [--region R] [--protected]",
		Short: "Create a context, or change some of its fields",
		Long: `Create the context NAME, or change the fields the flags give. A new context
without --api-url is the embedded local platform.`,
		Example: `  botkit config set-context staging --api-url https://staging.example.com --organization acme
  botkit config set-context prod --api-url https://api.example.com --organization acme --protected
  botkit config set-context local --embedded`,
		Args:              cmdutil.ExactArgs(1, "the context's name"),
		ValidArgsFunction: complete,
		RunE: func(cmd *cobra.Command, args []string) error {
			sopts.Name = args[0]
			for _, fl := range []string{"api-url", "embedded", "organization", "region", "protected", "no-protected", "certificate-authority"} {
				sopts.set[fl] = cmd.Flags().Changed(fl)
			}
			return RunSetContext(cmd.Context(), sopts)
		},
	}
	set.Flags().StringVar(&sopts.APIURL, "api-url", "", "the platform's URL")
	set.Flags().BoolVar(&sopts.Embedded, "embedded", false, "the embedded local platform (--embedded=false: a remote one, which needs --api-url)")
	set.Flags().StringVar(&sopts.Organization, "organization", "", "the organization")
	set.Flags().StringVar(&sopts.Region, "region", "", "the default region of new objects")
	cmdutil.BoolPair(set.Flags(), &sopts.Protected, "protected", "", false, "destructive commands need the context's name typed, or --skip with --context NAME")
	set.Flags().StringVar(&sopts.CAFile, "certificate-authority", "", "PEM file of the CA that signs the platform's certificate, trusted besides the system's CAs (stored as an absolute path; \"\" removes it)")

	dopts := newOpts()
	del := &cobra.Command{
		Use:               "delete-context NAME",
		Short:             "Delete a context (its platform's token stays in the keyring)",
		Args:              cmdutil.ExactArgs(1, "the context's name"),
		ValidArgsFunction: complete,
		RunE: func(cmd *cobra.Command, args []string) error {
			dopts.Name = args[0]
			return RunDeleteContext(cmd.Context(), dopts)
		},
	}

	ropts := newOpts()
	rename := &cobra.Command{
		Use:               "rename-context OLD NEW",
		Short:             "Rename a context",
		Args:              cmdutil.ExactArgs(2, "the old and the new name"),
		ValidArgsFunction: complete,
		RunE: func(cmd *cobra.Command, args []string) error {
			ropts.Name, ropts.NewName = args[0], args[1]
			return RunRenameContext(cmd.Context(), ropts)
		},
	}
	cmd.AddCommand(get, current, use, set, del, rename)
	return cmd
}

// completeNames completes context names.
func completeNames(getenv func(string) string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		_, f, err := config.LoadFile(getenv)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return f.Names(), cobra.ShellCompDirectiveNoFileComp
	}
}

// ContextItem is one context as get-contexts -o json|yaml prints it.
type ContextItem struct {
	Name         string `json:"name"`
	APIURL       string `json:"apiUrl,omitempty"`
	Embedded     bool   `json:"embedded"`
	Organization string `json:"organization,omitempty"`
	Region       string `json:"region,omitempty"`
	Protected    bool   `json:"protected"`
	Current      bool   `json:"current"`

	// CertificateAuthority is the context's CA file (certificateAuthority).
	CertificateAuthority string `json:"certificateAuthority,omitempty"`
}

// ContextList is get-contexts -o json|yaml.
type ContextList struct {
	resources.TypeMeta `json:",inline"`
	CurrentContext     string        `json:"currentContext"`
	Items              []ContextItem `json:"items"`
}

// RunGetContexts lists the contexts. An entry of the file that only the
// config commands can use (a context whose name is invalid, a
// currentContext naming none) is listed too, with a warning saying how to
// repair it.
func RunGetContexts(ctx context.Context, opts *Options) error {
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	f, err := opts.read()
	if err != nil {
		return err
	}
	for _, p := range f.Problems {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %v\n", p)
	}
	current := f.CurrentContext
	out := ContextList{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: "ContextList"}, CurrentContext: current, Items: []ContextItem{}}
	rows := make([][]string, 0, len(f.Contexts))
	for _, c := range f.Contexts {
		out.Items = append(out.Items, ContextItem{Name: c.Name, APIURL: c.APIURL, Embedded: c.Embedded(), Organization: c.Organization, Region: c.Region, CertificateAuthority: c.CertificateAuthority, Protected: c.Protected, Current: c.Name == current})
		mark, platform, protected := "", c.APIURL, ""
		if c.Name == current {
			mark = "*"
		}
		if c.Embedded() {
			platform = "embedded"
		}
		if c.Protected {
			protected = "yes"
		}
		rows = append(rows, []string{mark, iostreams.Printable(c.Name), platform, c.Organization, c.Region, protected})
	}
	if opts.Print.Output == printers.FormatName {
		for _, it := range out.Items {
			fmt.Fprintln(opts.IO.Out, iostreams.Printable(it.Name))
		}
		return nil
	}
	return opts.Print.PrintRows(opts.IO, []string{"CURRENT", "NAME", "PLATFORM", "ORGANIZATION", "REGION", "PROTECTED"}, rows, out)
}

// RunCurrentContext prints the current context's name.
func RunCurrentContext(ctx context.Context, opts *Options) error {
	f, err := opts.read()
	if err != nil {
		return err
	}
	if f.CurrentContext == "" {
		return cmdutil.WithCode(cmdutil.ExitNotFound, fmt.Errorf("no current context (contexts: %s): choose one with botkit config use-context NAME", strings.Join(f.Names(), ", ")))
	}
	if f.Find(f.CurrentContext) == nil {
		return f.Check() // the file's currentContext names none: that problem
	}
	_, err = fmt.Fprintln(opts.IO.Out, iostreams.Printable(f.CurrentContext))
	return err
}

// read reads the config file, problems and all.
func (opts *Options) read() (config.File, error) {
	path, err := opts.Path()
	if err != nil {
		return config.File{}, err
	}
	return config.ReadFile(path)
}

// update changes the config file under its lock (config.Update).
func (opts *Options) update(change func(f *config.File) error) error {
	path, err := opts.Path()
	if err != nil {
		return err
	}
	return config.Update(path, change)
}

// find returns the context NAME of f, or a not-found error naming the
// contexts there are.
func find(f *config.File, name string) (*config.Context, error) {
	if c := f.Find(name); c != nil {
		return c, nil
	}
	return nil, cmdutil.WithCode(cmdutil.ExitNotFound, &config.ContextError{Name: name, Source: "botkit config", Known: f.Names()})
}

// RunUseContext makes a context current.
func RunUseContext(ctx context.Context, opts *Options) error {
	err := opts.update(func(f *config.File) error {
		if _, err := find(f, opts.Name); err != nil {
			return err
		}
		if err := config.ValidateContextName(opts.Name); err != nil {
			return cmdutil.UsageErrorf("NAME: %v: rename the context first (botkit config rename-context)", err)
		}
		f.CurrentContext = opts.Name
		return nil
	})
	if err != nil {
		return err
	}
	return line(opts.IO.Out, "Switched to context %q.", opts.Name)
}

// RunSetContext creates or changes a context.
func RunSetContext(ctx context.Context, opts *Options) error {
	if err := config.ValidateContextName(opts.Name); err != nil {
		return cmdutil.FlagErrorf("NAME: %v", err)
	}
	if opts.set["api-url"] && opts.set["embedded"] && opts.Embedded {
		return cmdutil.FlagErrorf("--api-url and --embedded: give one")
	}
	apiURL := ""
	if opts.set["api-url"] {
		u, err := client.ParseURL(opts.APIURL)
		if err != nil {
			return cmdutil.FlagErrorf("--api-url: %v", err)
		}
		apiURL = u.String()
	}
	if opts.set["organization"] && opts.Organization != "" {
		if err := resources.ValidateName(opts.Organization); err != nil {
			return cmdutil.FlagErrorf("--organization: %v", err)
		}
	}
	if opts.set["region"] && opts.Region != "" {
		if err := resources.ValidateRegion(opts.Region); err != nil {
			return cmdutil.FlagErrorf("--region: %v", err)
		}
	}
	caFile := ""
	if opts.set["certificate-authority"] && opts.CAFile != "" {
		abs, err := filepath.Abs(opts.CAFile)
		if err != nil {
			return cmdutil.FlagErrorf("--certificate-authority %s: %v", opts.CAFile, err)
		}
		if err := client.CheckCAFile(client.CAFile{Path: abs, From: "--certificate-authority"}); err != nil {
			return err
		}
		caFile = abs
	}
	action := "created"
	err := opts.update(func(f *config.File) error {
		c := config.Context{Name: opts.Name}
		if old := f.Find(opts.Name); old != nil {
			c, action = *old, "configured"
		}
		switch {
		case opts.set["api-url"]:
			c.APIURL = apiURL
		case opts.set["embedded"] && opts.Embedded:
			c.APIURL = ""
		case opts.set["embedded"] && c.Embedded():
			// --embedded=false says the context is a remote platform's:
			// which one only --api-url can say.
			return cmdutil.FlagErrorf("--embedded=false: give the platform with --api-url URL (context %s would be the embedded local platform)", iostreams.Printable(opts.Name))
		}
		if opts.set["organization"] {
			c.Organization = opts.Organization
		}
		if opts.set["region"] {
			c.Region = opts.Region
		}
		if opts.set["certificate-authority"] {
			c.CertificateAuthority = caFile
		}
		if opts.set["protected"] || opts.set["no-protected"] {
			c.Protected = opts.Protected
		}
		f.Upsert(c)
		return nil
	})
	if err != nil {
		return err
	}
	return line(opts.IO.Out, "context/%s %s", opts.Name, action)
}

// RunDeleteContext deletes a context.
func RunDeleteContext(ctx context.Context, opts *Options) error {
	wasCurrent, none := false, false
	err := opts.update(func(f *config.File) error {
		if _, err := find(f, opts.Name); err != nil {
			return err
		}
		wasCurrent = f.CurrentContext == opts.Name
		f.Remove(opts.Name)
		none = len(f.Contexts) == 0
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case none:
		fmt.Fprintf(opts.IO.ErrOut, "No context is left: commands use the embedded local platform (context %s) again.\n", config.LocalContext)
	case wasCurrent:
		fmt.Fprintf(opts.IO.ErrOut, "There is no current context now: choose one with botkit config use-context NAME.\n")
	}
	return line(opts.IO.Out, "context/%s deleted", opts.Name)
}

// RunRenameContext renames a context (also one whose name the file holds
// but botkit no longer accepts: the way to repair it).
func RunRenameContext(ctx context.Context, opts *Options) error {
	if err := config.ValidateContextName(opts.NewName); err != nil {
		return cmdutil.FlagErrorf("NEW: %v", err)
	}
	err := opts.update(func(f *config.File) error {
		c, err := find(f, opts.Name)
		if err != nil {
			return err
		}
		if opts.NewName != opts.Name && f.Find(opts.NewName) != nil {
			return cmdutil.WithCode(cmdutil.ExitConflict, fmt.Errorf("context %q exists already", opts.NewName))
		}
		c.Name = opts.NewName
		if f.CurrentContext == opts.Name {
			f.CurrentContext = opts.NewName
		}
		return nil
	})
	if err != nil {
		return err
	}
	return line(opts.IO.Out, "context/%s renamed to %s", opts.Name, opts.NewName)
}

func line(w io.Writer, format string, args ...any) error {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = iostreams.Printable(s)
		}
	}
	_, err := fmt.Fprintf(w, format+"\n", args...)
	return err
}

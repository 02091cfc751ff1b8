package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// StatusOptions are the inputs of `botkit auth status`.
type StatusOptions struct {
	IO          *iostreams.IOStreams
	Config      func() (*config.Config, error)
	Credentials credentials.Store
	NewClient   func(baseURL, token string, ca client.CAFile) (*client.Client, error)
	Print       *printers.Flags
	// Timeout bounds each context's check (0: 3 s).
	Timeout time.Duration
}

// NewCmdStatus returns `botkit auth status`.
func NewCmdStatus(f *cloudutil.Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IOStreams, Print: printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatJSON, printers.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the platform, organization, user and where the token comes from",
		Long: `Show which platform cloud commands use (a remote one, or the embedded local
platform), the current organization, the token's user, and where the token
comes from: the environment (BOTKIT_TOKEN), the keyring, or the config file.

Then every context of the config file, each checked against its platform at
the same time (3 s at most): its platform, organization, where its token comes
from and whether the platform accepts it. -o json|yaml prints the contexts
only, for scripts.

Exits 4 when the selected context is a remote platform without a usable token.`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Config, opts.Credentials, opts.NewClient = f.Config, f.Credentials, f.NewClient
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runStatus(cmd.Context(), opts)
		},
	}
	opts.Print.AddFlags(cmd)
	return cmd
}

// describeSource says where a token comes from, for people.
func describeSource(src credentials.Source, host, configPath string) string {
	switch src {
	case credentials.SourceEnvironment:
		return "environment (" + config.EnvToken + ")"
	case credentials.SourceKeyring:
		return "keyring (service " + credentials.Service(host) + ")"
	case credentials.SourceFile:
		return "file (" + configPath + ", stored in clear: --insecure-storage, or no keyring at login)"
	}
	return "none"
}

func runStatus(ctx context.Context, opts *StatusOptions) error {
	if opts.Print == nil {
		opts.Print = printers.NewFlags()
	}
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	if !opts.Print.IsTable() {
		return opts.Print.PrintRows(opts.IO, nil, nil, contextStatuses(ctx, opts, cfg))
	}
	err = selectedStatus(ctx, opts, cfg)
	if len(cfg.File.Contexts) > 0 {
		list := contextStatuses(ctx, opts, cfg)
		rows := make([][]string, 0, len(list.Items))
		for _, it := range list.Items {
			mark := ""
			if it.Current {
				mark = "*"
			}
			rows = append(rows, []string{mark, it.Name, it.Platform, it.Organization, it.TokenSource, it.Status})
		}
		fmt.Fprintln(opts.IO.Out, "\nContexts:")
		if perr := printers.PrintRows(opts.IO, printers.FormatTable, []string{"CURRENT", "NAME", "PLATFORM", "ORGANIZATION", "TOKEN", "STATUS"}, rows, nil); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}

// ContextStatus is one context as auth status reports it.
type ContextStatus struct {
	Name         string `json:"name"`
	Platform     string `json:"platform"` // the API URL, or "embedded"
	Organization string `json:"organization,omitempty"`
	TokenSource  string `json:"tokenSource"` // environment, keyring, file, none, not needed
	Status       string `json:"status"`      // ok, accepted as USER, not logged in, refused, unreachable: ...
	OK           bool   `json:"ok"`
	Current      bool   `json:"current"`
}

// ContextStatusList is auth status -o json|yaml.
type ContextStatusList struct {
	resources.TypeMeta `json:",inline"`
	Context            string          `json:"context"` // the selected one
	Items              []ContextStatus `json:"items"`
}

// contextStatuses checks every context of the file (the selected one when
// the file has none) in parallel, each bounded by opts.Timeout.
func contextStatuses(ctx context.Context, opts *StatusOptions, cfg *config.Config) ContextStatusList {
	list := cfg.File.Contexts
	if len(list) == 0 {
		list = []config.Context{cfg.SelectedContext()}
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 3 * time.Second
	}
	out := ContextStatusList{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: "ContextStatusList"}, Context: cfg.Context,
		Items: make([]ContextStatus, len(list))}
	var wg sync.WaitGroup
	for i, c := range list {
		wg.Go(func() {
			out.Items[i] = checkContext(ctx, opts, cfg, c, timeout)
		})
	}
	wg.Wait()
	return out
}

func checkContext(ctx context.Context, opts *StatusOptions, cfg *config.Config, c config.Context, timeout time.Duration) ContextStatus {
	st := ContextStatus{Name: c.Name, Platform: c.APIURL, Organization: c.Organization, Current: c.Name == cfg.Context}
	if c.Embedded() {
		st.Platform, st.TokenSource, st.Status, st.OK = "embedded", "not needed", "ok", true
		return st
	}
	u, err := client.ParseURL(c.APIURL)
	if err != nil {
		st.TokenSource, st.Status = "none", "bad URL in the config file"
		return st
	}
	envToken := ""
	if st.Current && !cfg.APIURLFromEnv {
		envToken = cfg.EnvToken // BOTKIT_TOKEN is for the selected context
	}
	tok, src, err := credentials.Resolve(opts.Credentials, u.Host, envToken, cfg.File.Tokens[u.Host])
	st.TokenSource = map[credentials.Source]string{credentials.SourceEnvironment: "environment", credentials.SourceKeyring: "keyring", credentials.SourceFile: "file"}[src]
	switch {
	case err != nil:
		st.TokenSource, st.Status = "unknown", "keyring unreachable"
		return st
	case tok == "":
		st.TokenSource, st.Status = "none", "not logged in"
		return st
	}
	cl, err := opts.NewClient(u.String(), tok, cloudutil.CAFile(cfg, c))
	if err != nil {
		st.Status = err.Error()
		return st
	}
	defer cl.Close()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	me, err := cl.Me(cctx)
	var ae *resources.Error
	var ce *client.CertificateError
	switch {
	case errors.As(err, &ae) && ae.Code == resources.CodeUnauthenticated:
		st.Status = "refused (unknown or revoked token)"
	case errors.As(err, &ce):
		st.Status = "TLS certificate not accepted"
	case cctx.Err() != nil:
		st.Status = fmt.Sprintf("no answer within %s", timeout)
	case err != nil:
		st.Status = "unreachable"
	default:
		st.Status, st.OK = "accepted as "+iostreams.Printable(me.User), true
	}
	return st
}

// selectedStatus prints the selected context's platform, token, user and
// organization; exit 4 when it is remote without a usable token.
func selectedStatus(ctx context.Context, opts *StatusOptions, cfg *config.Config) error {
	out := opts.IO.Out
	if err := cfg.CheckSelected(); err != nil {
		fmt.Fprintf(out, "Context:      none\n")
		return err
	}
	fmt.Fprintf(out, "Context:      %s\n", iostreams.Printable(cfg.Context))
	if cfg.Embedded() {
		org := cfg.Organization
		if org == "" {
			org = client.EmbeddedOrg
		}
		fmt.Fprintf(out, "Platform:     embedded local platform (%s)\n", cfg.DataDir)
		fmt.Fprintf(out, "Organization: %s\n", org)
		fmt.Fprintf(out, "Token:        none needed\n")
		return nil
	}
	u, err := client.ParseURL(cfg.APIURL)
	if err != nil {
		return err
	}
	from := ""
	if cfg.APIURLFromEnv {
		from = " (from " + config.EnvAPIURL + ")"
	}
	fmt.Fprintf(out, "Platform:     %s%s\n", u, from)
	tok, src, err := credentials.Resolve(opts.Credentials, u.Host, cfg.EnvToken, cfg.FileToken)
	if err != nil {
		return err
	}
	if tok == "" {
		fmt.Fprintf(out, "Token:        none\n")
		return cmdutil.WithCode(cmdutil.ExitAuth, fmt.Errorf("%w to %s: run `botkit auth login --api-url %s` or set %s", cloudutil.ErrNotLoggedIn, u.Host, u, config.EnvToken))
	}
	fmt.Fprintf(out, "Token:        %s\n", describeSource(src, u.Host, cfg.Path))
	c, err := opts.NewClient(u.String(), tok, cloudutil.CAFile(cfg, cfg.SelectedContext()))
	if err != nil {
		return err
	}
	defer c.Close()
	me, err := c.Me(ctx)
	var ae *resources.Error
	if errors.As(err, &ae) && ae.Code == resources.CodeUnauthenticated {
		return cmdutil.WithCode(cmdutil.ExitAuth, fmt.Errorf("%s refuses the token from the %s (unknown or revoked): run `botkit auth login --api-url %s` again", u.Host, describeSource(src, u.Host, cfg.Path), u))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "User:         %s\n", iostreams.Printable(me.User))
	names := make([]string, len(me.Organizations))
	for i, o := range me.Organizations {
		names[i] = o.Name
	}
	org := cfg.Organization
	switch {
	case org != "":
	case len(names) == 1:
		org = names[0]
	default:
		org = "none chosen (botkit cloud organizations select NAME)"
	}
	fmt.Fprintf(out, "Organization: %s\n", iostreams.Printable(org))
	if len(names) > 1 {
		fmt.Fprintf(out, "Organizations: %s\n", iostreams.Printable(strings.Join(names, ", ")))
	}
	return nil
}

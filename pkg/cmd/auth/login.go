package auth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// LoginOptions are the inputs of `botkit auth login`.
type LoginOptions struct {
	IO          *iostreams.IOStreams
	Config      func() (*config.Config, error)
	Credentials credentials.Store
	NewClient   func(baseURL, token string, ca client.CAFile) (*client.Client, error)
	// Prompter asks for the token on a terminal (nil: never prompts).
	Prompter func(accessible bool) prompter.Prompter

	Context         string // --context: the context to create or update (default: the host)
	APIURL          string // --api-url
	WithToken       bool   // --with-token: the token comes from stdin
	InsecureStorage bool   // --insecure-storage: the token goes to the config file
	// SecureStorage (--secure-storage) refuses the fallback to the config
	// file when the OS keyring is not available.
	SecureStorage bool
	// CertificateAuthority (--certificate-authority) is a PEM file of CA
	// certificates to trust for the platform, stored in the context.
	CertificateAuthority string
}

// maxTokenBytes bounds what --with-token reads from stdin.
const maxTokenBytes = 4096

// NewCmdLogin returns `botkit auth login`. runF replaces the run function
// (tests).
func NewCmdLogin(f *cloudutil.Factory, runF func(context.Context, *LoginOptions) error) *cobra.Command {
	opts := &LoginOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "login --api-url URL [--with-token] [--insecure-storage|--secure-storage]",
		Short: "Log in to a remote platform",
		Long: `Log in to a remote platform with an API token (botkit-platform tokens create).

The token is read from stdin with --with-token, else asked for without echo on
a terminal. It is checked against the platform (GET /v1/me), then stored in the
OS keyring under the service "botkit:<host>"; the config file gets the API URL
and the organization (the token's only one), never the token.

A platform whose certificate is signed by a private CA (botkit-platform serve
--tls-cert-file) needs that CA: --certificate-authority FILE checks the login
with it and stores its absolute path in the context (certificateAuthority),
trusted besides the system's CAs for that context's requests. Without the
flag, BOTKIT_CA_FILE or the context's stored file is used.

Without a keyring (a headless Linux machine, an SSH session: no D-Bus session
bus or no Secret Service on it), the token goes to the config file (mode 0600)
instead, with a warning naming the file — readable by anyone who can read your
files. --secure-storage refuses that fallback (exit 4, nothing stored);
--insecure-storage uses the config file even when a keyring is there. In CI,
set BOTKIT_TOKEN (and BOTKIT_API_URL) instead of logging in: it wins over any
stored token.`,
		Example: `  botkit auth login --api-url https://botkit.example.com
  echo "$TOKEN" | botkit auth login --api-url https://botkit.example.com --with-token
  botkit auth login --api-url https://botkit.internal:8787 --certificate-authority ca.pem`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Config, opts.Credentials, opts.NewClient, opts.Prompter = f.Config, f.Credentials, f.NewClient, f.Prompter
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runLogin(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.APIURL, "api-url", "", "URL of the platform (default: BOTKIT_API_URL or the configured one)")
	cmd.Flags().BoolVar(&opts.WithToken, "with-token", false, "Read the token from standard input")
	cmd.Flags().BoolVar(&opts.InsecureStorage, "insecure-storage", false, "Keep the token in the config file (mode 0600) instead of the OS keyring")
	cmd.Flags().BoolVar(&opts.SecureStorage, "secure-storage", false, "Store the token in the OS keyring or fail: never fall back to the config file")
	cmd.Flags().StringVar(&opts.Context, "context", "", "The context to create or update (default: the platform's host[:port]); it becomes the current one")
	cmd.Flags().StringVar(&opts.CertificateAuthority, "certificate-authority", "", "PEM file of the CA that signs the platform's certificate, trusted besides the system's CAs; stored in the context (default: "+config.EnvCAFile+", else the context's)")
	return cmd
}

func runLogin(ctx context.Context, opts *LoginOptions) error {
	if opts.SecureStorage && opts.InsecureStorage {
		return cmdutil.FlagErrorf("--secure-storage and --insecure-storage: give one (the keyring only, or the config file)")
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	raw := opts.APIURL
	if raw == "" {
		raw = cfg.APIURL
	}
	if raw == "" {
		return cmdutil.FlagErrorf("--api-url is required: the URL of the platform to log in to")
	}
	u, err := client.ParseURL(raw)
	if err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--api-url: %w", err)}
	}
	apiURL := u.String()
	// The context's name is checked before anything is asked or stored:
	// the file never gets a name its reader refuses.
	name := opts.Context
	if name == "" {
		name = config.ContextNameFor(u.Host)
	}
	if err := config.ValidateContextName(name); err != nil {
		return cmdutil.FlagErrorf("--context: %v", err)
	}
	target := config.Context{Name: name}
	if old := cfg.File.Find(name); old != nil {
		target = *old
	}
	ca := cloudutil.CAFile(cfg, target)
	caPath := "" // what --certificate-authority stores in the context
	if opts.CertificateAuthority != "" {
		abs, err := filepath.Abs(opts.CertificateAuthority)
		if err != nil {
			return cmdutil.FlagErrorf("--certificate-authority %s: %v", opts.CertificateAuthority, err)
		}
		ca = client.CAFile{Path: abs, From: "--certificate-authority"}
		caPath = abs
	}
	if ca.Path != "" {
		if err := client.CheckCAFile(ca); err != nil {
			return err // before the token is asked for
		}
	}

	token, err := readToken(ctx, opts)
	if err != nil {
		return err
	}
	c, err := opts.NewClient(apiURL, token, ca)
	if err != nil {
		return err
	}
	defer c.Close()
	me, err := c.Me(ctx)
	var ae *resources.Error
	if errors.As(err, &ae) && ae.Code == resources.CodeUnauthenticated {
		return cmdutil.WithCode(cmdutil.ExitAuth, fmt.Errorf("the platform at %s refused the token (unknown or revoked): nothing was stored", u.Host))
	}
	if err != nil {
		return err
	}

	path := cfg.Path
	storedIn := "the OS keyring (service " + credentials.Service(u.Host) + ")"
	inFile := opts.InsecureStorage // the token goes to the config file
	var noKeyring *credentials.UnavailableError
	if !inFile {
		err := opts.Credentials.Set(u.Host, token)
		switch {
		case errors.As(err, &noKeyring) && opts.SecureStorage:
			return cmdutil.WithCode(cmdutil.ExitAuth, fmt.Errorf("--secure-storage: the OS keyring is not available (%w): nothing was stored; log in without --secure-storage to keep the token in the config file (mode 0600), or set BOTKIT_TOKEN in the environment", noKeyring.Err))
		case errors.As(err, &noKeyring):
			inFile = true // the fallback: the one file storage of --insecure-storage
		case err != nil:
			return err
		}
	}
	if inFile {
		storedIn = "the config file " + path
	}
	var ctx2 config.Context
	err = config.Update(path, func(file *config.File) error {
		if inFile {
			if file.Tokens == nil {
				file.Tokens = map[string]string{}
			}
			file.Tokens[u.Host] = token
		} else {
			delete(file.Tokens, u.Host) // a token from an earlier --insecure-storage login goes away
		}
		ctx2 = config.Context{Name: name}
		if old := file.Find(name); old != nil {
			ctx2 = *old
		}
		ctx2.APIURL = apiURL
		if caPath != "" {
			ctx2.CertificateAuthority = caPath
		}
		ctx2.Organization = chooseOrg(ctx2.Organization, me.Organizations)
		file.Upsert(ctx2)
		file.CurrentContext = name
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case opts.InsecureStorage:
		fmt.Fprintf(opts.IO.ErrOut, "warning: the token is stored in clear in %s (mode 0600); anyone who can read that file can use it\n", path)
	case inFile:
		fmt.Fprintf(opts.IO.ErrOut, "warning: no OS keyring here (%v), so the token is stored in clear in %s (mode 0600); anyone who can read that file can use it (--secure-storage refuses this fallback)\n", noKeyring.Err, path)
	}
	fmt.Fprintf(opts.IO.Out, "Logged in to %s as %s; token stored in %s.\n", apiURL, iostreams.Printable(me.User), storedIn)
	fmt.Fprintf(opts.IO.Out, "Context: %s (current)\n", iostreams.Printable(name))
	switch {
	case ctx2.Organization != "":
		fmt.Fprintf(opts.IO.Out, "Organization: %s\n", iostreams.Printable(ctx2.Organization))
	case len(me.Organizations) > 1:
		fmt.Fprintf(opts.IO.Out, "The token has several organizations: choose one with `botkit cloud organizations select NAME` or --organization.\n")
	}
	return nil
}

// chooseOrg keeps the current organization when the token has it, else
// takes the token's only organization, else none.
func chooseOrg(current string, orgs []resources.Organization) string {
	names := make([]string, len(orgs))
	for i, o := range orgs {
		names[i] = o.Name
	}
	if current != "" && slices.Contains(names, current) {
		return current
	}
	if len(names) == 1 {
		return names[0]
	}
	return ""
}

// readToken takes the token from stdin (--with-token) or a hidden prompt on
// a terminal; without either it is a usage error naming --with-token.
func readToken(ctx context.Context, opts *LoginOptions) (string, error) {
	if opts.WithToken {
		// Interruptible: Ctrl-C ends a wait on a stdin nothing writes to.
		b, err := ctxio.ReadAll(ctx, opts.IO.In, maxTokenBytes)
		if err != nil {
			return "", fmt.Errorf("reading the token from standard input: %w", err)
		}
		if len(b) > maxTokenBytes {
			return "", cmdutil.FlagErrorf("--with-token: standard input holds more than %d bytes; give the token alone", maxTokenBytes)
		}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		tok := ""
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				if tok != "" {
					return "", cmdutil.FlagErrorf("--with-token: standard input holds more than one line; give the token alone")
				}
				tok = line
			}
		}
		if tok == "" {
			return "", cmdutil.FlagErrorf("--with-token: no token on standard input")
		}
		return tok, nil
	}
	if !opts.IO.CanPrompt() || opts.Prompter == nil {
		return "", cmdutil.FlagErrorf("no terminal to ask for the token on: pipe it in with --with-token")
	}
	tok, err := opts.Prompter(false).Password("API token", "--with-token")
	if err != nil {
		return "", err
	}
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", cmdutil.FlagErrorf("no token given (paste it at the prompt, or pipe it in with --with-token)")
	}
	return tok, nil
}

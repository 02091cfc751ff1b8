// Package factory wires botkit's real dependencies into a cmdutil.Factory:
// the config file, the OS keyring, the platform client (the embedded local
// platform, or a remote one with its token) and the prompter. It is the one
// place where they are chosen; commands only see the Factory's seams.
package factory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/credentials"
	"github.com/botkit-dev/botkit/pkg/embedded"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform/local"
)

// New returns the factory of one botkit invocation over the process's
// environment. Nothing is opened until a command asks for it.
func New(ios *iostreams.IOStreams) *cloudutil.Factory {
	f := &cloudutil.Factory{Factory: cmdutil.NewFactory(ios)}
	f.Credentials = credentials.Keyring{}
	w := &wiring{f: f}
	f.Config = w.config
	f.APIClient = w.apiClient
	f.ServingPlatform = w.servingPlatform
	f.Close = w.close
	f.NewClient = func(baseURL, token string, ca client.CAFile) (*client.Client, error) {
		cfg, err := w.config()
		if err != nil {
			return nil, err
		}
		opts := ClientOptions()
		opts.BaseURL, opts.Token, opts.AllowInsecureHTTP, opts.CA = baseURL, token, cfg.InsecureHTTP, ca
		return client.New(opts)
	}
	return f
}

// wiring holds what the seams opened during one invocation.
type wiring struct {
	f *cloudutil.Factory

	mu     sync.Mutex
	cfg    *config.Config
	cfgErr error
	loaded bool
	client *client.Client
	// serving is ServingPlatform's client of the local server.
	serving *client.Client
}

func (w *wiring) config() (*config.Config, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.loaded {
		w.cfg, w.cfgErr = config.Load(w.f.Getenv, w.f.ContextName)
		w.loaded = true
	}
	return w.cfg, w.cfgErr
}

func (w *wiring) apiClient(ctx context.Context) (*client.Client, error) {
	cfg, err := w.config()
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.client != nil {
		return w.client, nil
	}
	c, err := Client(ctx, cfg, w.f.Credentials)
	if err != nil {
		return nil, err
	}
	w.client = c
	if c.Embedded() {
		announceEmbedded(w.f.IOStreams, cfg.DataDir)
	}
	return c, nil
}

// NoticeFile is the marker, in the embedded platform's data directory,
// that its first-use notice was shown: the notice is said once per data
// directory (a new one, after the old was removed, is a new platform).
const NoticeFile = "first-use-notice-shown"

// announceEmbedded says, once and only to a person (stderr a terminal, CI
// unset), that the command used the embedded local platform: where its data
// lives and how to use a remote one. "Once" is the marker file NoticeFile,
// created exclusively: of two commands started together only one says it,
// and a run without a terminal neither says it nor creates the marker, so
// the first command run by hand still does. A marker that cannot be
// created (whatever the reason) means no notice: it never repeats.
func announceEmbedded(ios *iostreams.IOStreams, dataDir string) {
	if !ios.ShowNotices() {
		return
	}
	f, err := os.OpenFile(filepath.Join(dataDir, NoticeFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return
	}
	_, werr := f.WriteString("botkit showed its first-use notice of the embedded local platform; remove this file to see it again\n")
	if err := errors.Join(werr, f.Close()); err != nil {
		return
	}
	fmt.Fprintf(ios.ErrOut, "Using the embedded local platform: its data is in %s (organization %s).\nTo use a remote platform instead, run `botkit auth login --api-url URL`. (Shown once.)\n", iostreams.Printable(dataDir), embedded.Org)
}

func (w *wiring) close() error {
	w.mu.Lock()
	c, sc := w.client, w.serving
	w.client, w.serving = nil, nil
	w.mu.Unlock()
	var err error
	if sc != nil {
		err = sc.Close()
	}
	if c != nil {
		err = errors.Join(c.Close(), err)
	}
	return err
}

// servingPlatform is Factory.ServingPlatform: the remote context's own
// client, or the local server's (ServingClient).
func (w *wiring) servingPlatform(ctx context.Context) (*client.Client, error) {
	cfg, err := w.config()
	if err != nil {
		return nil, err
	}
	if !cfg.Embedded() {
		return w.apiClient(ctx)
	}
	if err := cfg.CheckEmbedded(); err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.serving != nil {
		return w.serving, nil
	}
	c, err := ServingClient(ctx, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	w.serving = c
	return c, nil
}

// ServingClient returns the client of the local server of dataDir
// (`botkit-platform serve --local`, found by its serving record) over HTTP
// on the loopback, without a token: requests act as organization local.
// With no server, or only a stale record (a server killed before it could
// remove it), the error wraps cloudutil.ErrNoServingPlatform and says the
// command to run (exit 1).
func ServingClient(ctx context.Context, dataDir string) (*client.Client, error) {
	r, err := local.Serving(ctx, dataDir)
	if err != nil {
		return nil, fmt.Errorf("looking for botkit-platform serve --local in %s: %w", dataDir, err)
	}
	if r == nil {
		return nil, cmdutil.WithCode(cmdutil.ExitError, fmt.Errorf("%w: run `botkit-platform serve --local` (in another terminal)", cloudutil.ErrNoServingPlatform))
	}
	opts := ClientOptions()
	opts.BaseURL = r.URL
	return client.New(opts)
}

// ClientOptions are the options every botkit client is made with.
func ClientOptions() client.Options {
	// The version's first word: a product token has no spaces.
	v, _, _ := strings.Cut(cmdutil.BuildVersion(), " ")
	return client.Options{UserAgent: client.UserAgent(v), CAHint: caHint}
}

// caHint is how to trust a private CA, said when a platform's certificate
// is signed by an unknown authority and no CA file was given.
const caHint = "give the platform's CA certificate with `botkit auth login --certificate-authority FILE`, `botkit config set-context NAME --certificate-authority FILE` or " + config.EnvCAFile + "=FILE"

// Client opens the platform client of cfg: the embedded local platform in
// cfg.DataDir when no API URL is configured, else the remote platform with
// the token from BOTKIT_TOKEN, the keyring or the config file. A remote
// platform without a token is an authentication error (exit 4) saying how to
// log in.
func Client(ctx context.Context, cfg *config.Config, store credentials.Store) (*client.Client, error) {
	opts := ClientOptions()
	if cfg.Embedded() {
		if err := cfg.CheckEmbedded(); err != nil {
			return nil, err
		}
		return embedded.Open(ctx, cfg.DataDir, opts)
	}
	u, err := client.ParseURL(cfg.APIURL)
	if err != nil {
		return nil, err
	}
	tok, src, err := credentials.Resolve(store, u.Host, cfg.EnvToken, cfg.FileToken)
	if err != nil && !cfg.EnvTokenWithheld {
		return nil, err
	}
	if tok == "" && cfg.EnvTokenWithheld {
		// BOTKIT_TOKEN is for another platform: never sent here unless the
		// user names this one for it.
		return nil, cmdutil.WithCode(cmdutil.ExitAuth, fmt.Errorf("%w to %s (context %s): %s is not sent there, since it is for %s; run `botkit auth login --api-url %s --context %s`, or set %s=%s to send %s to that platform",
			cloudutil.ErrNotLoggedIn, u.Host, iostreams.Printable(cfg.Context), config.EnvToken, iostreams.Printable(cfg.EnvTokenFor), u, iostreams.Printable(cfg.Context), config.EnvAPIURL, u, config.EnvToken))
	}
	if tok == "" {
		return nil, cmdutil.WithCode(cmdutil.ExitAuth, fmt.Errorf("%w to %s: run `botkit auth login --api-url %s` or set %s", cloudutil.ErrNotLoggedIn, u.Host, u, config.EnvToken))
	}
	opts.BaseURL = cfg.APIURL
	opts.Token = tok
	opts.AllowInsecureHTTP = cfg.InsecureHTTP
	opts.AuthHint = authHint(src, u.String())
	opts.CA = cloudutil.CAFile(cfg, cfg.SelectedContext())
	return client.New(opts)
}

// authHint is added to a 401's message: where the refused token came from
// and what to do.
func authHint(src credentials.Source, url string) string {
	switch src {
	case credentials.SourceEnvironment:
		return fmt.Sprintf("the token in %s was refused", config.EnvToken)
	case credentials.SourceFile:
		return fmt.Sprintf("the token in the config file was refused: run `botkit auth login --api-url %s` again", url)
	}
	return fmt.Sprintf("the token in the keyring was refused: run `botkit auth login --api-url %s` again", url)
}

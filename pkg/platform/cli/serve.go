package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/prommetrics"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The values of the enumerated flags (checked when parsed, listed in help
// and completion; Run* check them again for callers without cobra).
var (
	logFormats = []string{"text", "json"}
)

// ServeOptions are the options of `serve`.
type ServeOptions struct {
	Listen string
	storeFlags
	MasterKeyFile          string
	ProvisionLease         time.Duration
	CommitDelay            time.Duration
	CommitDelaySet         bool // --commit-delay was given (SQLite refuses it; otherwise a PostgreSQL default)
	CommitBatch            int
	AllowPrivateRegistries bool
	LogFormat              string
	// TLSCertFile and TLSKeyFile (both or neither) serve HTTPS with the
	// certificate and key in these PEM files, re-read when they change.
	TLSCertFile string
	TLSKeyFile  string
	// Runtimes are --runtime's REGION=unix:///path/to/docker.sock or
	// REGION=tcp://HOST:PORT, as given (repeatable); RuntimeTLS
	// --runtime-tls's REGION=DIR (the TLS files of a tcp:// engine);
	// AgentNetwork the network agents join;
	// AgentSettle how long a rollout's agents must run before they serve;
	// AgentUser the user every agent runs as ("": the image's USER).
	Runtimes     []string
	RuntimeTLS   []string
	AgentNetwork string
	AgentSettle  time.Duration
	AgentUser    string
	// DailyAPIKeyFile holds the operator's Daily API key (the sessions'
	// Daily rooms); DailyAPIURL is Daily's REST API.
	DailyAPIKeyFile string
	DailyAPIURL     string
	// ICEServersFile holds the STUN and TURN servers of WebRTC sessions
	// ("": none); AgentURL is this platform's URL as agents reach it.
	ICEServersFile string
	AgentURL       string
	// Local serves the CLI's own platform (openLocal): its data directory,
	// the local engine, requests without a token as organization local,
	// on the loopback only.
	Local bool
	IO    *iostreams.IOStreams
}

// NewCmdServe returns `botkit-platform serve`; runF (tests) replaces
// runServe.
func NewCmdServe(st *iostreams.IOStreams, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	o := &ServeOptions{IO: st}
	c := command(&cobra.Command{
		Use:   "serve --listen ADDR (--data-dir DIR | --store postgres://… --master-key-file FILE | --local) [--tls-cert-file FILE --tls-key-file FILE]",
		Short: "Serve the platform API",
		Long: `Serve the platform API over HTTP, or HTTPS with --tls-cert-file and
--tls-key-file.

Once listening, it prints "listening on http://ADDR" (https:// with TLS) to
stderr (with the actual port when --listen ends in :0). Request logs go to
stderr; they never contain request bodies or values.

With TLS (1.2 and later), the certificate file holds the server's
certificate first, then any intermediate certificates; the key file its
private key (PEM). Both files are read again at the first connection after
either changed, so a rotated certificate is served without a restart; a pair
that does not load (a rotation half-done) is logged and the previous
certificate stays in service until the files change again.

With --store postgres://…, several serve processes (replicas, e.g. behind a
load balancer) share one PostgreSQL database and behave as one platform;
each needs the same --master-key-file.

--runtime REGION=unix:///path/to/docker.sock runs a region's agents on that
Docker Engine; --runtime REGION=tcp://HOST:PORT on an engine over TCP, which
needs --runtime-tls REGION=DIR: DIR/ca.pem verifies the engine, DIR/cert.pem
and DIR/key.pem are the client certificate it asks for (the files of the
docker CLI's DOCKER_CERT_PATH). Plain TCP, npipe:// and ssh:// are refused.

--daily-api-key-file FILE gives the platform the operator's Daily API key:
a session's start may then ask for a Daily room (createDailyRoom), which the
platform makes through Daily's REST API (--daily-api-url) with a meeting
token for the bot and one for the caller, and deletes when the session
ends. The key is never printed nor logged. Without it, such starts are
refused (422).

--local serves the platform of botkit's local context, for what needs a
platform that outlives a command: the CLI's data directory
($XDG_DATA_HOME/botkit, default ~/.local/share/botkit) with its master key,
every region's agents on the local Docker Engine (found as the docker CLI
finds it), requests without a token as organization local, image pull
secret checks allowed to private addresses. It listens on the loopback only
(--listen 127.0.0.1:PORT) and writes serve.json in the data directory while
it runs, where botkit finds it; botkit's commands on the local context keep
working beside it, and this server drives the agents. One server per data
directory: a second one says where the first serves and exits 1.`,
		Args: noArgs,
	}, o, &o.storeFlags, func(c *cobra.Command, _ []string) error {
		o.CommitDelaySet = c.Flags().Changed("commit-delay")
		return nil
	}, runF, runServe)
	c.Flags().StringVar(&o.Listen, "listen", "127.0.0.1:8787", "address to listen on")
	c.Flags().StringVar(&o.MasterKeyFile, "master-key-file", "", "file holding the 256-bit value encryption key (default: DATA_DIR/master.key, generated 0600; required with --store)")
	c.Flags().DurationVar(&o.ProvisionLease, "provision-lease", 10*time.Second, "how long other replicas wait before taking over a registry check whose replica stopped renewing it")
	c.Flags().DurationVar(&o.CommitDelay, "commit-delay", stores.DefaultCommitDelay, "with --store: how long at most a replica waits, after a shared commit, for its writers to write again (larger batches; 0: never waits)")
	c.Flags().IntVar(&o.CommitBatch, "commit-batch", stores.MaxCommitBatch, fmt.Sprintf("with --commit-delay: the most writes a replica waits for (1 to %d)", stores.MaxCommitBatch))
	c.Flags().BoolVar(&o.AllowPrivateRegistries, "allow-private-registries", false, "let image pull secret checks reach loopback and private addresses")
	cmdutil.EnumFlag(c, &o.LogFormat, "log-format", "", "text", logFormats, "Request log format")
	c.Flags().StringVar(&o.TLSCertFile, "tls-cert-file", "", "serve HTTPS with the certificate (then its chain) in this PEM file; needs --tls-key-file")
	c.Flags().StringVar(&o.TLSKeyFile, "tls-key-file", "", "the private key of --tls-cert-file (PEM)")
	c.Flags().StringArrayVar(&o.Runtimes, "runtime", nil, "REGION=unix:///path/to/docker.sock or REGION=tcp://HOST:PORT: the Docker Engine the region's agents run on (repeatable; a region without one refuses deploys; docker:///path is unix:///path)")
	c.Flags().StringArrayVar(&o.RuntimeTLS, "runtime-tls", nil, "REGION=DIR: the TLS files of the region's tcp:// engine: DIR/ca.pem verifies the engine, DIR/cert.pem and DIR/key.pem are botkit's client certificate (required with tcp://)")
	c.Flags().StringVar(&o.AgentNetwork, "agent-network", "", "the engine network agents join (default: botkit-agents, a bridge network the platform makes; never the host's)")
	c.Flags().DurationVar(&o.AgentSettle, "agent-settle", runtime.DefaultSettle, "how long a new deployment's agents must run, ready, before it serves and the previous one stops")
	c.Flags().StringVar(&o.AgentUser, "agent-user", "", "the user every agent runs as, UID or UID:GID, never 0 (default: each image's USER)")
	c.Flags().StringVar(&o.DailyAPIKeyFile, "daily-api-key-file", "", "file holding the Daily API key with which sessions get Daily rooms (createDailyRoom); without it such starts are refused")
	c.Flags().StringVar(&o.DailyAPIURL, "daily-api-url", platform.DailyAPIURL, "Daily's REST API (with --daily-api-key-file)")
	c.Flags().StringVar(&o.ICEServersFile, "ice-servers-file", "", `JSON file of the STUN and TURN servers of WebRTC sessions, {"iceServers": [{"urls": …, "username": …, "credential": …}]}: in a webrtc session's start answer and read by every agent at its ICE_CONFIG_URL (default: none; needs --agent-url)`)
	c.Flags().StringVar(&o.AgentURL, "agent-url", "", "this platform's URL as agents reach it on their network (http://HOST:PORT): where an agent's ICE_CONFIG_URL points (default: agents get no ICE_CONFIG_URL)")
	c.Flags().BoolVar(&o.Local, "local", false, "serve botkit's local context: the CLI's data directory and the local Docker Engine, on the loopback (implies --data-dir, --runtime, --allow-private-registries)")
	return c
}

// runtimes opens the engines of --runtime (parseRuntimes) and checks the
// agents' flags.
func (o *ServeOptions) runtimes() (map[string]runtime.Runtime, func(), error) {
	out, closeAll, err := parseRuntimes(o.Runtimes, o.RuntimeTLS)
	if err != nil {
		return nil, nil, err
	}
	if o.AgentNetwork == "host" || strings.Contains(o.AgentNetwork, ":") {
		closeAll()
		return nil, nil, cmdutil.FlagErrorf("--agent-network %q: agents never join the host's network nor another container's", o.AgentNetwork)
	}
	if o.AgentSettle < 0 {
		closeAll()
		return nil, nil, cmdutil.FlagErrorf("--agent-settle %s: want 0 or more", o.AgentSettle)
	}
	if _, err := runtime.ParseUser(o.AgentUser); o.AgentUser != "" && err != nil {
		closeAll()
		return nil, nil, cmdutil.FlagErrorf("--agent-user %v", err)
	}
	return out, closeAll, nil
}

// parseRuntimes opens the engines of --runtime's values (REGION=unix:///path,
// REGION=docker:///path, REGION=tcp://HOST:PORT), one per region, a tcp://
// one with --runtime-tls's files; closeAll closes them. A bad value is a
// usage error naming the flag, and nothing stays open.
func parseRuntimes(values, tlsValues []string) (map[string]runtime.Runtime, func(), error) {
	out := map[string]runtime.Runtime{}
	var opened []*docker.Runtime
	closeAll := func() {
		for _, rt := range opened {
			rt.Close()
		}
	}
	fail := func(format string, args ...any) (map[string]runtime.Runtime, func(), error) {
		closeAll()
		return nil, nil, cmdutil.FlagErrorf(format, args...)
	}
	tlsDirs := map[string]string{}
	for _, v := range tlsValues {
		region, dir, ok := strings.Cut(v, "=")
		if !ok || dir == "" {
			return fail("--runtime-tls %q: want REGION=DIR (DIR holding ca.pem, cert.pem, key.pem)", v)
		}
		if _, dup := tlsDirs[region]; dup {
			return fail("--runtime-tls %q: region %s has TLS files already", v, region)
		}
		tlsDirs[region] = dir
	}
	for _, v := range values {
		region, addr, ok := strings.Cut(v, "=")
		if !ok {
			return fail("--runtime %q: want REGION=unix:///path/to/docker.sock or REGION=tcp://HOST:PORT", v)
		}
		if err := resources.ValidateRegion(region); err != nil {
			return fail("--runtime %q: %v", v, err)
		}
		if out[region] != nil {
			return fail("--runtime %q: region %s has a runtime already (one engine per region)", v, region)
		}
		if path, ok := strings.CutPrefix(addr, "docker://"); ok {
			addr = "unix://" + path
		}
		ep := docker.Endpoint{Host: addr, Source: "--runtime " + region}
		dir, hasTLS := tlsDirs[region]
		switch {
		case strings.HasPrefix(addr, "tcp://") && !hasTLS:
			return fail("--runtime %q: a tcp:// engine needs --runtime-tls %s=DIR (ca.pem, cert.pem, key.pem): unencrypted, whoever reaches the port runs anything on the engine's machine", v, region)
		case strings.HasPrefix(addr, "tcp://"):
			ep.TLS = docker.TLSDir(dir, false)
			for name, f := range map[string]string{"ca.pem": ep.TLS.CAFile, "cert.pem": ep.TLS.CertFile, "key.pem": ep.TLS.KeyFile} {
				if f == "" {
					return fail("--runtime-tls %s=%s: no %s in %s", region, dir, name, dir)
				}
			}
		case hasTLS:
			return fail("--runtime-tls %s=%s: region %s's engine is not a tcp:// one", region, dir, region)
		}
		rt, err := docker.OpenRuntime(ep)
		if err != nil {
			return fail("--runtime %q: %v", v, err)
		}
		opened = append(opened, rt)
		out[region] = rt
	}
	for region := range tlsDirs {
		if out[region] == nil {
			return fail("--runtime-tls %s=…: no --runtime for region %s", region, region)
		}
	}
	return out, closeAll, nil
}

// iceServers reads --ice-servers-file (none without it) and checks
// --agent-url. Its errors never hold the file's text (a TURN credential).
func (o *ServeOptions) iceServers() ([]resources.ICEServer, error) {
	if o.AgentURL != "" {
		u, err := url.Parse(o.AgentURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return nil, cmdutil.FlagErrorf("--agent-url %q: want http://HOST:PORT or https://HOST:PORT (this platform as agents reach it)", o.AgentURL)
		}
	}
	if o.ICEServersFile == "" {
		return nil, nil
	}
	if o.AgentURL == "" {
		return nil, cmdutil.FlagErrorf("--ice-servers-file needs --agent-url: where agents reach this platform to read the ICE servers")
	}
	b, err := os.ReadFile(o.ICEServersFile)
	if err != nil {
		return nil, cmdutil.FlagErrorf("--ice-servers-file: %v", err)
	}
	ice, err := resources.ParseICEServers(b)
	if err != nil {
		return nil, cmdutil.FlagErrorf("--ice-servers-file %s: %v", o.ICEServersFile, err)
	}
	return ice, nil
}

// tlsConfig checks --tls-cert-file and --tls-key-file (both or neither) and
// loads the pair: nil without TLS; a pair that does not load is invalid
// input naming the file.
func (o *ServeOptions) tlsConfig(logger *slog.Logger) (*tls.Config, error) {
	switch {
	case o.TLSCertFile == "" && o.TLSKeyFile == "":
		return nil, nil
	case o.TLSKeyFile == "":
		return nil, cmdutil.FlagErrorf("--tls-cert-file needs --tls-key-file (the certificate's private key)")
	case o.TLSCertFile == "":
		return nil, cmdutil.FlagErrorf("--tls-key-file needs --tls-cert-file (the certificate of the key)")
	}
	cfg, err := platform.TLSConfig(o.TLSCertFile, o.TLSKeyFile, logger)
	if err != nil {
		return nil, cmdutil.FlagErrorf("--tls-cert-file/--tls-key-file: %v", err)
	}
	return cfg, nil
}

// runServe serves until ctx ends, then drains (platform.Serve).
func runServe(ctx context.Context, o *ServeOptions) error {
	var lo *localServe
	if o.Local {
		var err error
		if lo, err = o.openLocal(os.Getenv); err != nil {
			return err
		}
		defer func() { _ = lo.close() }() // error ignored: a record left behind is stale, and botkit ignores it
	}
	if err := o.require(); err != nil {
		return err
	}
	if o.CommitDelay < 0 || o.CommitDelay > time.Second {
		return cmdutil.FlagErrorf("--commit-delay %s: want 0 to 1s", o.CommitDelay)
	}
	if o.CommitBatch < 1 || o.CommitBatch > stores.MaxCommitBatch {
		return cmdutil.FlagErrorf("--commit-batch %d: want 1 to %d", o.CommitBatch, stores.MaxCommitBatch)
	}
	if o.CommitDelay > 0 && o.Store == "" {
		if o.CommitDelaySet {
			return cmdutil.FlagErrorf("--commit-delay applies to a PostgreSQL store (--store); SQLite commits one writer's batch at a time")
		}
		o.CommitDelay = 0 // the default is PostgreSQL's
	}
	if err := cmdutil.CheckEnum("log-format", o.LogFormat, logFormats); err != nil {
		return err
	}
	var h slog.Handler = slog.NewTextHandler(o.IO.ErrOut, nil)
	if o.LogFormat == "json" {
		h = slog.NewJSONHandler(o.IO.ErrOut, nil)
	}
	logger := slog.New(h)
	tlsCfg, err := o.tlsConfig(logger)
	if err != nil {
		return err
	}
	dailyKey, err := o.dailyKey()
	if err != nil {
		return err
	}
	ice, err := o.iceServers()
	if err != nil {
		return err
	}
	rts, closeRuntimes, err := o.runtimes()
	if err != nil {
		return err
	}
	defer closeRuntimes()
	loc := o.location()
	if loc.Shared() && o.MasterKeyFile == "" {
		return platform.ErrMasterKeyRequired // before connecting: nothing to wait for
	}
	metrics := prommetrics.New()
	st, err := stores.Open(ctx, loc, stores.Options{OnCommit: metrics.Commit, CommitDelay: o.CommitDelay, CommitBatch: o.CommitBatch})
	if err != nil {
		return err
	}
	popts := platform.Options{ICEServers: ice, AgentURL: o.AgentURL,
		Store: st, DataDir: loc.DataDir, MasterKeyFile: o.MasterKeyFile, ProvisionLease: o.ProvisionLease,
		AllowPrivateRegistries: o.AllowPrivateRegistries, RecheckFailedPullSecrets: true, Logger: logger, Metrics: metrics,
		Runtimes: rts, AgentNetwork: o.AgentNetwork, AgentUser: o.AgentUser, AgentSettle: o.AgentSettle, ReconcileInterval: time.Second,
		DailyAPIKey: dailyKey, DailyAPIURL: o.DailyAPIURL,
	}
	if lo != nil {
		lo.apply(&popts)
	}
	srv, err := platform.Open(ctx, popts)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", o.Listen, err)
	}
	scheme := "http"
	if tlsCfg != nil {
		ln, scheme = tls.NewListener(ln, tlsCfg), "https"
	}
	if lo != nil {
		if err := lo.announce(o.IO, ln.Addr()); err != nil {
			ln.Close()
			return err
		}
	}
	hs := platform.HTTPServer(srv.Handler(), slog.NewLogLogger(h, slog.LevelWarn))
	fmt.Fprintf(o.IO.ErrOut, "listening on %s://%s\n", scheme, ln.Addr())
	// Until ctx ends (SIGTERM, Ctrl-C); then a drain that leaves no request
	// sent on a kept-alive connection without its answer.
	if err := platform.Serve(ctx, hs, ln, func() { logger.Info("shutting down"); srv.StopStreams() }); err != nil {
		return err
	}
	return srv.Close()
}

// dailyKey reads --daily-api-key-file ("" without it). The key is never
// printed: a file that does not hold one is named, not quoted.
func (o *ServeOptions) dailyKey() (string, error) {
	if o.DailyAPIKeyFile == "" {
		return "", nil
	}
	u, err := url.Parse(o.DailyAPIURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", cmdutil.FlagErrorf("--daily-api-url %q: want an http(s) URL", o.DailyAPIURL)
	}
	b, err := os.ReadFile(o.DailyAPIKeyFile)
	if err != nil {
		return "", fmt.Errorf("--daily-api-key-file: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if key == "" || strings.ContainsAny(key, " \t\r\n") {
		return "", cmdutil.FlagErrorf("--daily-api-key-file %s: want one Daily API key, alone on its line", o.DailyAPIKeyFile)
	}
	return key, nil
}

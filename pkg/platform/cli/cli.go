// Package cli implements the botkit-platform command line: `serve`, the
// administration commands `orgs` and `tokens`, and `migrate`. Each command fills an Options
// struct from its flags and calls a plain run function.
package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/prommetrics"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/store/postgres"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/spf13/cobra"
)

// Run runs the command line args and returns the exit code (`botkit help exit-codes`),
// through the same plumbing as botkit's own commands.
func Run(ctx context.Context, args []string, io *iostreams.IOStreams) int {
	return cmdutil.Execute(ctx, NewRootCmd(io), io, args)
}

const (
	dataDirEnv = "BOTKIT_PLATFORM_DATA_DIR"
	storeEnv   = "BOTKIT_PLATFORM_STORE"
)

// NewRootCmd builds the botkit-platform command tree.
func NewRootCmd(st *iostreams.IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:           "botkit-platform",
		Short:         "Run and administer the botkit platform service",
		Version:       cmdutil.BuildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServeCmd(st), newOrgsCmd(st), newTokensCmd(st), newMigrateCmd(st))
	root.AddCommand(cmdutil.NewHelpTopic("exit-codes", "What botkit-platform's exit codes mean", cmdutil.ExitCodesHelp("botkit-platform")))
	cmdutil.TypeUsageErrors(root)
	return root
}

// storeFlags locate the platform's store: a SQLite data directory or a
// PostgreSQL URL (which wins when both are set).
type storeFlags struct {
	DataDir string
	Store   string
}

func addStoreFlags(c *cobra.Command, f *storeFlags) {
	c.Flags().StringVar(&f.DataDir, "data-dir", os.Getenv(dataDirEnv), "directory of the platform's SQLite database and master key (env "+dataDirEnv+")")
	c.Flags().StringVar(&f.Store, "store", os.Getenv(storeEnv), "postgres://… URL of a PostgreSQL database to use instead of --data-dir (env "+storeEnv+")")
}

// location is where the flags say the store is: a PostgreSQL URL wins over
// a data directory.
func (f storeFlags) location() stores.Location {
	if f.Store != "" {
		return stores.Location{URL: f.Store}
	}
	return stores.Location{DataDir: f.DataDir}
}

func (f storeFlags) require() error {
	if f.DataDir == "" && f.Store == "" {
		return cmdutil.FlagErrorf("%s", "--data-dir or --store is required (or set "+dataDirEnv+" or "+storeEnv+")")
	}
	return nil
}

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
	IO           *iostreams.IOStreams
}

func newServeCmd(st *iostreams.IOStreams) *cobra.Command {
	o := &ServeOptions{IO: st}
	c := &cobra.Command{
		Use:   "serve --listen ADDR (--data-dir DIR | --store postgres://… --master-key-file FILE) [--tls-cert-file FILE --tls-key-file FILE]",
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
docker CLI's DOCKER_CERT_PATH). Plain TCP, npipe:// and ssh:// are refused.`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			o.CommitDelaySet = c.Flags().Changed("commit-delay")
			return RunServe(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Listen, "listen", "127.0.0.1:8787", "address to listen on")
	addStoreFlags(c, &o.storeFlags)
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
	c.Flags().StringVar(&o.AgentNetwork, "agent-network", "", "the engine network agents join (default: the engine's own; never the host's)")
	c.Flags().StringVar(&o.AgentUser, "agent-user", "", "the user every agent runs as, UID or UID:GID, never 0 (default: each image's USER)")
	c.Flags().DurationVar(&o.AgentSettle, "agent-settle", runtime.DefaultSettle, "how long a new deployment's agents must run, ready, before it serves and the previous one stops")
	return c
}

// runtimes opens the engines of --runtime (REGION=unix:///path,
// REGION=docker:///path, REGION=tcp://HOST:PORT), one per region, a tcp://
// one with --runtime-tls's files.
func (o *ServeOptions) runtimes() (map[string]runtime.Runtime, func(), error) {
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
	for _, v := range o.RuntimeTLS {
		region, dir, ok := strings.Cut(v, "=")
		if !ok || dir == "" {
			return fail("--runtime-tls %q: want REGION=DIR (DIR holding ca.pem, cert.pem, key.pem)", v)
		}
		if _, dup := tlsDirs[region]; dup {
			return fail("--runtime-tls %q: region %s has TLS files already", v, region)
		}
		tlsDirs[region] = dir
	}
	for _, v := range o.Runtimes {
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

// RunServe serves until ctx ends, then drains (platform.Serve).
func RunServe(ctx context.Context, o *ServeOptions) error {
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
	srv, err := platform.Open(ctx, platform.Options{
		Store: st, DataDir: loc.DataDir, MasterKeyFile: o.MasterKeyFile, ProvisionLease: o.ProvisionLease,
		AllowPrivateRegistries: o.AllowPrivateRegistries, RecheckFailedPullSecrets: true, Logger: logger, Metrics: metrics,
		Runtimes: rts, AgentNetwork: o.AgentNetwork, AgentUser: o.AgentUser, AgentSettle: o.AgentSettle, ReconcileInterval: time.Second,
	})
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
	hs := platform.HTTPServer(srv.Handler(), slog.NewLogLogger(h, slog.LevelWarn))
	fmt.Fprintf(o.IO.ErrOut, "listening on %s://%s\n", scheme, ln.Addr())
	// Until ctx ends (SIGTERM, Ctrl-C); then a drain that leaves no request
	// sent on a kept-alive connection without its answer.
	if err := platform.Serve(ctx, hs, ln, func() { logger.Info("shutting down"); srv.StopStreams() }); err != nil {
		return err
	}
	return srv.Close()
}

// OrgsOptions are the options of `orgs create|list`.
type OrgsOptions struct {
	storeFlags
	Name          string
	DefaultRegion string
	HistoryLimit  int             // orgs set --history-limit (0: not given)
	Print         *printers.Flags // -o of list
	IO            *iostreams.IOStreams
}

func newOrgsCmd(st *iostreams.IOStreams) *cobra.Command {
	c := &cobra.Command{Use: "orgs", Aliases: []string{"organizations"}, Short: "Manage organizations"}
	co := &OrgsOptions{IO: st}
	create := &cobra.Command{
		Use:   "create NAME [--default-region R] (--data-dir DIR | --store URL)",
		Short: "Create an organization",
		Args:  cmdutil.ExactArgs(1, "the organization name"),
		RunE: func(c *cobra.Command, args []string) error {
			co.Name = args[0]
			return RunOrgsCreate(c.Context(), co)
		},
	}
	addStoreFlags(create, &co.storeFlags)
	create.Flags().StringVar(&co.DefaultRegion, "default-region", "us-west", "region of objects created without one")
	lo := &OrgsOptions{IO: st, Print: printers.NewFlags()}
	list := &cobra.Command{
		Use:   "list (--data-dir DIR | --store URL)",
		Short: "List organizations",
		Args:  cmdutil.ExactArgs(0, "no arguments"),
		RunE:  func(c *cobra.Command, _ []string) error { return RunOrgsList(c.Context(), lo) },
	}
	addStoreFlags(list, &lo.storeFlags)
	lo.Print.AddFlags(list)
	so := &OrgsOptions{IO: st}
	set := &cobra.Command{
		Use:   "set NAME --history-limit N (--data-dir DIR | --store URL)",
		Short: "Change an organization's settings",
		Long: `Change an organization's settings. --history-limit is how many versions each of
its secret sets and image pull secrets keeps (1 to 100, default 10); older
versions go at each object's next write.`,
		Args: cmdutil.ExactArgs(1, "the organization name"),
		RunE: func(c *cobra.Command, args []string) error {
			so.Name = args[0]
			if !c.Flags().Changed("history-limit") {
				return cmdutil.FlagErrorf("nothing to set: give --history-limit")
			}
			return RunOrgsSet(c.Context(), so)
		},
	}
	addStoreFlags(set, &so.storeFlags)
	set.Flags().IntVar(&so.HistoryLimit, "history-limit", 0, "versions each object keeps (1 to 100)")
	c.AddCommand(create, list, set)
	c.AddCommand(newSealingKeyCmds(st)...)
	return c
}

// RunOrgsSet changes an organization's settings.
func RunOrgsSet(ctx context.Context, o *OrgsOptions) error {
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.SetHistoryLimit(ctx, o.Name, o.HistoryLimit); err != nil {
		return err
	}
	return printers.PrintOperations(o.IO.Out, printers.Operation{Ref: "organization/" + o.Name, Action: "configured",
		Detail: fmt.Sprintf("history limit %d", o.HistoryLimit)})
}

func openAdmin(ctx context.Context, f storeFlags) (*service.Admin, error) {
	if err := f.require(); err != nil {
		return nil, err
	}
	loc := f.location()
	st, err := stores.Open(ctx, loc, stores.Options{})
	if err != nil {
		return nil, err
	}
	return service.NewAdmin(st, loc.DataDir), nil
}

// RunOrgsCreate creates an organization.
func RunOrgsCreate(ctx context.Context, o *OrgsOptions) error {
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	org, err := a.CreateOrg(ctx, o.Name, o.DefaultRegion)
	if err != nil {
		return err
	}
	return printers.PrintOperations(o.IO.Out, printers.Operation{Ref: "organization/" + org.Name, Action: "created", Detail: "default region " + org.DefaultRegion})
}

// RunOrgsList lists organizations.
func RunOrgsList(ctx context.Context, o *OrgsOptions) error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	orgs, err := a.ListOrgs(ctx)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(orgs))
	for _, org := range orgs {
		rows = append(rows, []string{org.Name, org.DefaultRegion, org.CreatedAt.Format(time.RFC3339)})
	}
	return o.Print.PrintRows(o.IO, []string{"NAME", "DEFAULT REGION", "CREATED"}, rows, map[string]any{"items": orgs})
}

// TokensOptions are the options of `tokens create|revoke|list`.
type TokensOptions struct {
	storeFlags
	Org   string
	User  string
	ID    string
	Print *printers.Flags // -o of list
	IO    *iostreams.IOStreams
}

func newTokensCmd(st *iostreams.IOStreams) *cobra.Command {
	c := &cobra.Command{Use: "tokens", Short: "Manage API tokens"}
	co := &TokensOptions{IO: st}
	create := &cobra.Command{
		Use:   "create --org NAME (--data-dir DIR | --store URL)",
		Short: "Create an API token; it is printed once, as the last line of stdout",
		Args:  cmdutil.ExactArgs(0, "no arguments"),
		RunE:  func(c *cobra.Command, _ []string) error { return RunTokensCreate(c.Context(), co) },
	}
	addStoreFlags(create, &co.storeFlags)
	create.Flags().StringVar(&co.Org, "org", "", "organization the token acts for (required)")
	create.Flags().StringVar(&co.User, "user", "admin", "user name recorded in the audit log")
	ro := &TokensOptions{IO: st}
	revoke := &cobra.Command{
		Use:   "revoke TOKEN_ID|TOKEN (--data-dir DIR | --store URL)",
		Short: "Revoke an API token by its ID (tok_...) or the token itself",
		Args:  cmdutil.ExactArgs(1, "a token ID or token"),
		RunE: func(c *cobra.Command, args []string) error {
			ro.ID = args[0]
			return RunTokensRevoke(c.Context(), ro)
		},
	}
	addStoreFlags(revoke, &ro.storeFlags)
	lo := &TokensOptions{IO: st, Print: printers.NewFlags()}
	list := &cobra.Command{
		Use:   "list --org NAME (--data-dir DIR | --store URL)",
		Short: "List the tokens of an organization (IDs only)",
		Args:  cmdutil.ExactArgs(0, "no arguments"),
		RunE:  func(c *cobra.Command, _ []string) error { return RunTokensList(c.Context(), lo) },
	}
	addStoreFlags(list, &lo.storeFlags)
	list.Flags().StringVar(&lo.Org, "org", "", "organization (required)")
	lo.Print.AddFlags(list)
	c.AddCommand(create, revoke, list)
	return c
}

// RunTokensCreate creates a token and prints it as the last line of stdout.
func RunTokensCreate(ctx context.Context, o *TokensOptions) error {
	if o.Org == "" {
		return cmdutil.FlagErrorf("%s", "--org is required")
	}
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	tok, info, err := a.CreateToken(ctx, o.Org, o.User)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Created token %s for organization %s (user %s). It is shown only once; store it now.\n", info.ID, info.Organization, info.User)
	fmt.Fprintln(o.IO.Out, tok)
	return nil
}

// RunTokensRevoke revokes a token.
func RunTokensRevoke(ctx context.Context, o *TokensOptions) error {
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.RevokeToken(ctx, o.ID); err != nil {
		return err
	}
	fmt.Fprintln(o.IO.Out, "token revoked")
	return nil
}

// RunTokensList lists an organization's tokens.
func RunTokensList(ctx context.Context, o *TokensOptions) error {
	if o.Org == "" {
		return cmdutil.FlagErrorf("%s", "--org is required")
	}
	if err := o.Print.Validate(); err != nil {
		return err
	}
	a, err := openAdmin(ctx, o.storeFlags)
	if err != nil {
		return err
	}
	defer a.Close()
	toks, err := a.ListTokens(ctx, o.Org)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(toks))
	for _, t := range toks {
		rev := "-"
		if t.RevokedAt != nil {
			rev = t.RevokedAt.Format(time.RFC3339)
		}
		rows = append(rows, []string{t.ID, t.User, t.CreatedAt.Format(time.RFC3339), rev})
	}
	return o.Print.PrintRows(o.IO, []string{"ID", "USER", "CREATED", "REVOKED"}, rows, map[string]any{"items": toks})
}

// MigrateOptions are the options of `migrate`.
type MigrateOptions struct {
	From string
	To   string
	IO   *iostreams.IOStreams
}

func newMigrateCmd(st *iostreams.IOStreams) *cobra.Command {
	o := &MigrateOptions{IO: st}
	c := &cobra.Command{
		Use:   "migrate --from DIR --to postgres://…",
		Short: "Copy a SQLite data directory into an empty PostgreSQL database",
		Long: `Copy the platform in a SQLite data directory (organizations, tokens,
objects, values, audit log) into an empty PostgreSQL database, in one
transaction. Values are copied encrypted: start the replicas with
--master-key-file DIR/master.key (or the key file the old server used).
Stop the old server first: writes it accepts during the copy are not copied.`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error { return RunMigrate(c.Context(), o) },
	}
	c.Flags().StringVar(&o.From, "from", "", "SQLite data directory to copy (required)")
	c.Flags().StringVar(&o.To, "to", "", "postgres://… URL of the empty destination database (required)")
	return c
}

// RunMigrate copies a SQLite data directory into PostgreSQL.
func RunMigrate(ctx context.Context, o *MigrateOptions) error {
	if o.From == "" {
		return cmdutil.FlagErrorf("%s", "--from is required (the SQLite data directory)")
	}
	if o.To == "" {
		return cmdutil.FlagErrorf("%s", "--to is required (a postgres:// URL)")
	}
	if !postgres.IsURL(o.To) {
		return cmdutil.FlagErrorf("--to %s: want a postgres:// URL", postgres.Redact(o.To))
	}
	if _, err := os.Stat(filepath.Join(o.From, sqlite.DatabaseFile)); err != nil {
		return fmt.Errorf("--from %s: no platform database (%s): %w", o.From, sqlite.DatabaseFile, service.ErrNotFound)
	}
	src, err := stores.Open(ctx, stores.Location{DataDir: o.From}, stores.Options{})
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := stores.Open(ctx, stores.Location{URL: o.To}, stores.Options{})
	if err != nil {
		return err
	}
	defer dst.Close()
	st, err := service.Migrate(ctx, src, dst)
	if err != nil {
		return fmt.Errorf("--to %s: %w", postgres.Redact(o.To), err)
	}
	fmt.Fprintf(o.IO.Out, "migrated %d organizations, %d tokens, %d sealing keys, %d public keys, %d objects (%d values), %d agents (%d deployments), %d audit records\n", st.Orgs, st.Tokens, st.SealingKeys, st.PublicKeys, st.Objects, st.Values, st.Agents, st.Deployments, st.Audit)
	fmt.Fprintf(o.IO.ErrOut, "Start the replicas with --store and --master-key-file %s (unless the old server used another key file).\n", filepath.Join(o.From, platform.MasterKeyFile))
	return nil
}

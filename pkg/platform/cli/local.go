package cli

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/local"
)

// localServe is what --local makes of serve: the CLI's own data directory,
// held for the server's life (one server per directory, and the regions'
// reconcile locks, so this server drives them while CLI commands beside it
// keep working), the local Docker Engine for every region, and the serving
// record through which the CLI finds the server.
type localServe struct {
	dataDir     string
	claim       *local.Server
	closeEngine func()
	apply       func(*platform.Options)
}

// openLocal checks what --local allows (its store, engine and key are
// implied; it listens on the loopback only), points the options at the
// CLI's data directory (getenv: the environment) and claims it.
func (o *ServeOptions) openLocal(getenv func(string) string) (*localServe, error) {
	var implied []string
	for flag, set := range map[string]bool{
		"--data-dir (or " + dataDirEnv + ")": o.DataDir != "",
		"--store (or " + storeEnv + ")":      o.Store != "",
		"--runtime":                          len(o.Runtimes) > 0,
		"--runtime-tls":                      len(o.RuntimeTLS) > 0,
		"--master-key-file":                  o.MasterKeyFile != "",
		"--tls-cert-file/--tls-key-file":     o.TLSCertFile != "" || o.TLSKeyFile != "",
	} {
		if set {
			implied = append(implied, flag)
		}
	}
	if len(implied) > 0 {
		slices.Sort(implied)
		return nil, cmdutil.FlagErrorf("--local serves the CLI's own data directory, master key and local Docker Engine over plain HTTP on the loopback: %s do not go with it", strings.Join(implied, ", "))
	}
	host, port, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return nil, cmdutil.FlagErrorf("--listen %s: %v", o.Listen, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, cmdutil.FlagErrorf("--listen %s: with --local the server listens on the loopback only (127.0.0.1:PORT): the platform answers requests without a token as organization %s", o.Listen, local.Org)
	}
	o.Listen = net.JoinHostPort(host, port)
	dir, err := local.DataDir(getenv)
	if err != nil {
		return nil, err
	}
	claim, err := local.Claim(dir)
	if err != nil {
		return nil, err
	}
	o.DataDir, o.AllowPrivateRegistries = dir, true
	rts, noRuntime, closeEngine := local.Engine()
	return &localServe{dataDir: dir, claim: claim, closeEngine: closeEngine, apply: func(p *platform.Options) {
		p.NoAuthOrg = local.Org
		p.Runtimes, p.NoRuntime, p.EngineDown = rts, noRuntime, noRuntime
		p.ReconcileLock = local.PassLock(dir)
	}}, nil
}

// announce writes the serving record once the server listens at addr, and
// says what it serves.
func (l *localServe) announce(io *iostreams.IOStreams, addr net.Addr) error {
	if err := l.claim.Announce(addr, cmdutil.BuildVersion()); err != nil {
		return err
	}
	fmt.Fprintf(io.ErrOut, "serving the local platform of %s (organization %s, agents on the local Docker Engine); botkit's local context finds it\n", iostreams.Printable(l.dataDir), local.Org)
	return nil
}

// close removes the serving record and lets go of the data directory and
// the engine.
func (l *localServe) close() error {
	l.closeEngine()
	return l.claim.Release()
}

// Package embedded is the CLI's embedded local platform: the platform's own
// HTTP handler over a SQLite database in the user's data directory, served
// in-process to a pkg/client Client. It links SQLite only — no PostgreSQL
// driver, no metrics — so the botkit binary carries no server dependency.
package embedded

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/local"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
)

// Org is the organization of the embedded local platform.
const Org = client.EmbeddedOrg

// DrainTimeout bounds how long closing the embedded platform waits for the
// provisioning of what is pending (image pull secrets are checked against
// their registry: at most 2 attempts of 5s, see Open).
const DrainTimeout = 15 * time.Second

// Open opens the embedded local platform over the SQLite database in
// dataDir (created 0700 if missing) and returns a client that serves its
// HTTP handler in-process: organization "local", no token, registries on
// private addresses allowed (they are the user's own). Close the client to
// let in-flight provisioning finish and close the database.
//
// opts.BaseURL and opts.Token are ignored; the other options apply.
func Open(ctx context.Context, dataDir string, opts client.Options) (*client.Client, error) {
	st, err := sqlite.OpenDir(ctx, dataDir, sqlite.Options{})
	if err != nil {
		return nil, fmt.Errorf("opening the embedded local platform in %s: %w", dataDir, err)
	}
	rts, noRuntime, closeEngine := local.Engine()
	srv, err := platform.Open(ctx, platform.Options{
		Store:                  st,
		DataDir:                dataDir,
		NoAuthOrg:              Org,
		AllowPrivateRegistries: true,
		// No provisioning pass at open: close drains everything pending.
		LazyProvisioner: true,
		// A command waits for the check of what it wrote when it closes:
		// an unreachable registry fails it within about 11s.
		RegistryTimeout:    5 * time.Second,
		RegistryAttempts:   2,
		RegistryRetryDelay: 500 * time.Millisecond,
		// Agents run on the local engine, whatever their region.
		Runtimes: rts, NoRuntime: noRuntime, EngineDown: noRuntime,
		ReconcileLock: local.PassLock(dataDir),
	})
	if err != nil {
		closeEngine()
		return nil, fmt.Errorf("opening the embedded local platform in %s: %w", dataDir, err)
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 50 * time.Millisecond
	}
	return client.NewInProcess(client.InProcess{
		Handler: srv.Handler(),
		Host:    client.EmbeddedHost,
		Settle:  func(sctx context.Context) error { return drain(sctx, srv) },
		// Once: a second Close (a deferred one after an explicit one)
		// must not drain a closed database.
		Close: sync.OnceValue(func() error {
			_ = drain(ctx, srv) // unfinished work stays pending for the next command
			quiesce(ctx, srv)
			defer closeEngine()
			return srv.Close()
		}),
	}, opts), nil
}

// QuiesceTimeout bounds how long closing the embedded platform waits for
// the agents' controller to do what the command's writes asked of the
// engine (start a rollout's agents, remove a deleted agent's).
const QuiesceTimeout = 30 * time.Second

// quiesce lets the agents' controller act on this command's writes before
// the process ends: the controller of the embedded platform runs only
// while a command runs (what is due later — a rollout's settle time — is
// the next command's).
func quiesce(ctx context.Context, srv *platform.Server) {
	qctx, cancel := context.WithTimeout(ctx, QuiesceTimeout)
	defer cancel()
	srv.Quiesce(qctx)
}

// drain provisions what is pending (this command's writes, and anything an
// earlier process left pending), bounded by DrainTimeout and ctx — an
// interrupt cuts it short.
func drain(ctx context.Context, srv *platform.Server) error {
	dctx, cancel := context.WithTimeout(ctx, DrainTimeout)
	defer cancel()
	return srv.Drain(dctx)
}

// Package embedded is the CLI's embedded local platform: the platform's own
// HTTP handler over a SQLite database in the user's data directory, served
// in-process to a pkg/client Client. It links SQLite only — no PostgreSQL
// driver, no metrics — so the botkit binary carries no server dependency.
package embedded

import (
	"path/filepath"

	"context"
	"fmt"
	"github.com/botkit-dev/botkit/internal/atomicfile"
	"os"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
	"github.com/botkit-dev/botkit/pkg/resources"
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
	rts, noRuntime, closeEngine := localEngine()
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
		ReconcileLock: passLock(dataDir),
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

// passLock is the lock every reconcile pass over a region takes: a file
// lock (reconcile-REGION.lock in dataDir) that the processes sharing the
// data directory take in turn — two commands never start an agent twice —
// and that ends with the process, so a command killed in the middle of a
// pass holds up no other (a lease in the database would, until it ran
// out). A pass that waits for it gives up when ctx ends.
func passLock(dataDir string) func(ctx context.Context, region string) (func(), error) {
	return func(ctx context.Context, region string) (func(), error) {
		type locked struct {
			release func()
			err     error
		}
		got := make(chan locked, 1)
		go func() {
			release, err := atomicfile.Lock(filepath.Join(dataDir, "reconcile-"+region+".lock"))
			got <- locked{release, err}
		}()
		select {
		case l := <-got:
			return l.release, l.err
		case <-ctx.Done():
			go func() {
				if l := <-got; l.err == nil {
					l.release() // taken after the wait was given up
				}
			}()
			return nil, ctx.Err()
		}
	}
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

// localEngine is the runtime of every region of the embedded platform: the
// local Docker Engine, found as the docker CLI finds it (DOCKER_HOST, the
// current context, Docker Desktop's socket, /var/run/docker.sock). Without
// a socket there, no region has a runtime and deploys say how to get one.
func localEngine() (map[string]runtime.Runtime, func(string) string, func()) {
	ep, err := docker.Resolve(nil)
	if err != nil {
		return nil, func(string) string { return fmt.Sprintf("the Docker Engine: %v", err) }, func() {}
	}
	noRuntime := func(string) string {
		return fmt.Sprintf("no Docker Engine at %s: start Docker or set DOCKER_HOST", ep)
	}
	rt, err := docker.OpenRuntime(ep)
	if err != nil {
		return nil, func(string) string { return fmt.Sprintf("the Docker Engine: %v", err) }, func() {}
	}
	if sock := rt.Socket(); sock != "" {
		if _, err := os.Stat(sock); err != nil {
			rt.Close()
			return nil, noRuntime, func() {}
		}
	}
	// An engine that nobody answers at (Docker stopped) is the same news,
	// told when a deploy needs the engine (EngineDown).
	rts := map[string]runtime.Runtime{}
	for _, region := range resources.Regions() {
		rts[region] = rt
	}
	return rts, noRuntime, rt.Close
}

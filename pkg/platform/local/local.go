// Package local is the local platform that botkit and botkit-platform
// share: the CLI's data directory (the embedded platform's SQLite database
// and master key), the local Docker Engine that runs every region's agents,
// the per-region file lock that makes one process the controller of a
// region, and the serving record of `botkit-platform serve --local` (the
// server that outlives a command, which the CLI finds through it).
package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/botkit-dev/botkit/internal/atomicfile"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Org is the organization of the local platform: requests without a token
// act as it.
const Org = resources.EmbeddedOrg

// DataDir returns the local platform's data directory: $XDG_DATA_HOME/botkit,
// else ~/.local/share/botkit. A relative XDG_DATA_HOME is ignored, as the
// XDG specification says.
func DataDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "botkit"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("HOME is not set: set HOME or XDG_DATA_HOME")
	}
	return filepath.Join(home, ".local", "share", "botkit"), nil
}

// Engine is the runtime of every region of the local platform: the local
// Docker Engine, found as the docker CLI finds it (DOCKER_HOST, the current
// context, Docker Desktop's socket, /var/run/docker.sock). Without a socket
// there, no region has a runtime and deploys say how to get one (noRuntime,
// which is also what a deploy says when the engine does not answer).
// closeEngine releases it.
func Engine() (rts map[string]runtime.Runtime, noRuntime func(region string) string, closeEngine func()) {
	ep, err := docker.Resolve(nil)
	if err != nil {
		return nil, func(string) string { return fmt.Sprintf("the Docker Engine: %v", err) }, func() {}
	}
	noRuntime = func(string) string {
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
	rts = map[string]runtime.Runtime{}
	for _, region := range resources.Regions() {
		rts[region] = rt
	}
	return rts, noRuntime, rt.Close
}

// PassLock is the lock that makes a process the controller of a region of
// the local platform (platform.Options.ReconcileLock): a file lock
// (reconcile-REGION.lock in dataDir) that the processes sharing the data
// directory take in turn — two never start an agent twice — and that ends
// with the process, so a process killed in the middle of a pass holds up no
// other (a lease in the database would, until it ran out). The controller
// holds it until its process closes the platform: a CLI command while it
// runs, `botkit-platform serve --local` for its life. A wait for it gives
// up when ctx ends.
func PassLock(dataDir string) func(ctx context.Context, region string) (func(), error) {
	return func(ctx context.Context, region string) (func(), error) {
		if err := ctx.Err(); err != nil {
			return nil, err // given up already: nothing is left to take the lock later
		}
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

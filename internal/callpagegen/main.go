// Command callpagegen builds the call page the platform serves
// (pkg/platform/callpage/dist) from the vanilla web client botkit create
// writes: that client with SmallWebRTC only, its src/platform.js replaced by
// this directory's (same origin, the agent from the page's path, the key from
// its fragment), built with npm from the locked dependencies of this
// directory's package-lock.json (npm ci), so that a build is the same build
// later. Run it from the module's root after a change to the vanilla client
// or to platform.js:
//
//	go run ./internal/callpagegen            # with the locked dependencies
//	go run ./internal/callpagegen -relock    # the client's package.json changed: npm install, a new lock
//
// BOTKIT_NPM_CACHE names npm's cache (default: npm's own).
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/botkit-dev/botkit/pkg/scaffold"
)

//go:embed platform.js
var platformJS []byte

func main() {
	out := flag.String("out", filepath.Join("pkg", "platform", "callpage", "dist"), "the directory to write the built page into (replaced)")
	relock := flag.Bool("relock", false, "resolve the dependencies anew (npm install) and rewrite the lock")
	flag.Parse()
	lock := filepath.Join("internal", "callpagegen", "package-lock.json")
	env := os.Environ()
	if c := os.Getenv("BOTKIT_NPM_CACHE"); c != "" {
		env = append(env, "npm_config_cache="+c)
	}
	work, err := os.MkdirTemp("", "callpage-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "callpagegen:", err)
		os.Exit(1)
	}
	err = build(context.Background(), work, *out, lock, *relock, env)
	if rerr := os.RemoveAll(work); err == nil {
		err = rerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "callpagegen:", err)
		os.Exit(1)
	}
}

// build writes the client into work, installs its dependencies as lock
// says (npm ci; with relock, npm install and lock rewritten), builds it
// with npm (env is its environment) and replaces out with the build.
func build(ctx context.Context, work, out, lock string, relock bool, env []string) error {
	files, err := scaffold.ClientFiles(scaffold.Config{ProjectName: "call", BotType: "web", Transports: []string{"smallwebrtc"}, Mode: "cascade", ClientFramework: "vanilla"})
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(work, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	client := filepath.Join(work, "client")
	if err := os.WriteFile(filepath.Join(client, "src", "platform.js"), platformJS, 0o644); err != nil {
		return err
	}
	npm := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "npm", args...)
		cmd.Dir, cmd.Env = client, env
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("npm %v: %w\n%s", args, err, b)
		}
		return nil
	}
	if relock {
		if err := npm("install", "--no-audit", "--no-fund", "--prefer-offline"); err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(client, "package-lock.json"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(lock, b, 0o644); err != nil {
			return err
		}
	} else {
		b, err := os.ReadFile(lock)
		if err != nil {
			return fmt.Errorf("%w (no lock yet: run with -relock)", err)
		}
		if err := os.WriteFile(filepath.Join(client, "package-lock.json"), b, 0o644); err != nil {
			return err
		}
		if err := npm("ci", "--no-audit", "--no-fund", "--prefer-offline"); err != nil {
			return err
		}
	}
	// Relative asset paths: the page at /call/NAME loads /call/assets/….
	if err := npm("run", "build", "--", "--base", "./"); err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.CopyFS(out, os.DirFS(filepath.Join(client, "dist")))
}

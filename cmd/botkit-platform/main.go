// Command botkit-platform runs the botkit platform service: the HTTP API
// that stores secret sets and image pull secrets (see api/openapi.yaml), and
// its administration commands (organizations, API tokens).
package main

import (
	"os"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/cli"
)

func main() {
	cmdutil.DefaultGCPercent(platform.ServingGCPercent)
	ctx, stop := cmdutil.SignalContext()
	code := cli.Run(ctx, os.Args[1:], iostreams.System())
	stop()
	os.Exit(code)
}

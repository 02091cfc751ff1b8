// Command botkit scaffolds Pipecat voice bots and manages platform secrets.
package main

import (
	"os"

	"github.com/botkit-dev/botkit/pkg/cmd/factory"
	"github.com/botkit-dev/botkit/pkg/cmd/root"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

func main() { os.Exit(run()) }

// run runs botkit with the process's arguments and returns its exit code
// (the end-to-end tests call it as the botkit command).
func run() int {
	// botkit lives for one command: collecting garbage at every doubling of
	// the heap costs a list of 10,000 sets a third of its time on a busy
	// machine; at 5x it costs little and adds a few MB.
	cmdutil.DefaultGCPercent(400)
	ctx, stop := cmdutil.SignalContext()
	defer stop()
	return root.Run(ctx, factory.New(iostreams.System()), os.Args[1:])
}

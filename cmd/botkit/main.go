// Command botkit scaffolds Pipecat voice bots and manages platform secrets.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/botkit-dev/botkit/pkg/cmd/factory"
	"github.com/botkit-dev/botkit/pkg/cmd/root"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := root.Run(ctx, factory.New(iostreams.System()), os.Args[1:])
	stop()
	os.Exit(code)
}

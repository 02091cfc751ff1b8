package agents

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// LogsOptions are the inputs of `botkit cloud agents logs`.
type LogsOptions struct {
	cloudutil.Platform
	Name   string
	Follow bool
	Since  time.Duration
	Tail   int
	// Session is --session: only that session's agent's lines.
	Session string
	Print   *printers.Flags
}

// NewCmdLogs returns `botkit cloud agents logs`.
func NewCmdLogs(f *cloudutil.Factory, runF func(context.Context, *LogsOptions) error) *cobra.Command {
	opts := &LogsOptions{Platform: cloudutil.NewPlatform(f), Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)}
	cmd := &cobra.Command{
		Use:   "logs [NAME]",
		Short: "Print the logs of an agent's running agents",
		Long: `Print the log lines of the agent NAME's agents (containers), each prefixed with
the agent that wrote it: "AGENT | text". The platform masks (****) before a
line leaves it every value of 4 bytes or more of the secret set versions the
agents run and the image pull secret's password (a multi-line value line by
line too); values of 1 to 3 bytes ("1", "yes") are shown as they are.

-f/--follow keeps printing new lines until interrupted (with no agent running,
it says so on stderr and waits for one); --since DURATION only
lines written that long ago or later (10m, 1h30m); --tail N only the last N
lines of each agent; --session ID only the lines of the agent (container)
that runs or ran that session (see botkit cloud agents sessions): exit 3
when the agent has no such session, 1 when its agent is gone (removed with
its lines) or not yet there. -o json prints one JSON object per line (agent,
stream, time, text) for scripts; --jq filters each. A missing agent exits 3.`,
		Example: `  botkit cloud agents logs support-bot
  botkit cloud agents logs support-bot -f --tail 20
  botkit cloud agents logs support-bot --since 10m -o json
  botkit cloud agents logs support-bot --session ses_0123456789abcdefghijklmnop`,
	}
	cmd.Flags().BoolVarP(&opts.Follow, "follow", "f", false, "Keep printing new lines until interrupted")
	cmd.Flags().DurationVar(&opts.Since, "since", 0, "Only lines written this `DURATION` ago or later (e.g. 10m)")
	cmd.Flags().IntVar(&opts.Tail, "tail", 0, "Only the last `N` lines of each agent (default: all)")
	cmd.Flags().StringVar(&opts.Session, "session", "", "Only the lines of the agent of this session `ID`")
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runLogs)
	_ = cmd.RegisterFlagCompletionFunc("session", completeSessions(&opts.Platform, false)) // error ignored: the flag was just added
	return cmd
}

func runLogs(ctx context.Context, opts *LogsOptions) error {
	if opts.Since < 0 {
		return cmdutil.FlagErrorf("--since %s: want a duration of 0 or more (10m, 1h)", opts.Since)
	}
	if opts.Tail < 0 {
		return cmdutil.FlagErrorf("--tail %d: want 0 (every line) or more", opts.Tail)
	}
	if opts.Session != "" {
		if err := checkSessionFlag(opts.Session); err != nil {
			return err
		}
	}
	c, org, err := begin(ctx, &opts.Platform, opts.Name, opts.Print, nil)
	if err != nil {
		return err
	}
	// No agent running: said on stderr; -f waits for one. A session's
	// agent is the platform's to find.
	running := true
	if rep, err := c.AgentStatus(ctx, org, opts.Name); err == nil && opts.Session == "" {
		running = slices.ContainsFunc(rep.Running, func(r resources.RunningAgent) bool { return r.State == "running" })
	}
	if !running && opts.Follow {
		fmt.Fprintf(opts.IO.ErrOut, "no agent of %s is running: waiting for one to start (Ctrl-C to stop)\n", cloudutil.AgentRef(opts.Name))
	}
	w := bufio.NewWriter(opts.IO.Out)
	defer w.Flush()
	jsonLines := opts.Print.Output == printers.FormatJSON && opts.Print.JQ == "" && opts.Print.Template == ""
	lines := opts.Print.Lines()
	filtered := &iostreams.IOStreams{In: opts.IO.In, Out: w, ErrOut: opts.IO.ErrOut}
	err = c.AgentLogs(ctx, org, opts.Name, client.LogOptions{Follow: opts.Follow, Since: opts.Since, Tail: opts.Tail, Session: opts.Session}, func(l resources.AgentLogLine) error {
		var err error
		switch {
		case lines:
			_, err = w.WriteString(iostreams.Printable(l.Agent) + " | " + iostreams.Printable(l.Text) + "\n")
		case jsonLines:
			var b []byte
			if b, err = json.Marshal(l); err == nil {
				_, err = w.Write(append(b, '\n'))
			}
		default: // --jq or a template: each line through it
			err = opts.Print.PrintValue(filtered, l)
		}
		if err == nil && opts.Follow {
			err = w.Flush() // a followed line shows as it arrives
		}
		return err
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err == nil && !running && !opts.Follow {
		fmt.Fprintf(opts.IO.ErrOut, "no agent of %s is running (botkit cloud agents status %s says why)\n", cloudutil.AgentRef(opts.Name), iostreams.Printable(opts.Name))
	}
	if err == nil {
		// The stream ends quietly when ctx does: an interrupted -f is
		// still an interrupt (exit 130).
		err = ctx.Err()
	}
	return err
}

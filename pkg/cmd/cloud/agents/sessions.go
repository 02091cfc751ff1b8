package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// maxDataBytes bounds --data and --data-file: the platform takes a start's
// body up to 1 MiB.
const maxDataBytes = 1 << 20

// sessionID is the form of a session's id.
// (Built at first use: nothing of a command is built when botkit starts.)
var sessionID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ses_[a-z0-9]{26}$`) })

// checkSessionFlag checks --session (exit 2) before any request.
func checkSessionFlag(id string) error {
	if id == "" {
		return cmdutil.FlagErrorf("--session is required: the session's id (see botkit cloud agents sessions)")
	}
	if !sessionID().MatchString(id) {
		return cmdutil.FlagErrorf("--session %q: want a session id, ses_ and 26 lowercase letters or digits (see botkit cloud agents sessions)", iostreams.Printable(id))
	}
	return nil
}

// StartOptions are the inputs of `botkit cloud agents start`.
type StartOptions struct {
	cloudutil.Platform
	Name      string
	Data      string // --data: the agent's POST /bot body, a JSON object
	DataFile  string // --data-file: the same from a file ("-": stdin)
	Transport string // --transport
	DailyRoom bool   // --daily-room
	Open      bool   // --open: the agent's call page instead of a session
	Print     *printers.Flags
	// Getenv reads BOTKIT_PUBLIC_KEY and BROWSER.
	Getenv func(string) string
	// Browser opens a URL in the user's browser (cmdutil.OpenBrowser);
	// called only when cmdutil.CanOpenBrowser.
	Browser func(url string) error
}

// PublicKeyEnv names the public key --open gives the call page.
const PublicKeyEnv = "BOTKIT_PUBLIC_KEY"

// NewCmdStart returns `botkit cloud agents start`.
func NewCmdStart(f *cloudutil.Factory, runF func(context.Context, *StartOptions) error) *cobra.Command {
	opts := &StartOptions{Platform: cloudutil.NewPlatform(f), Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML, printers.FormatName), Getenv: f.Getenv}
	opts.Browser = func(url string) error { return cmdutil.OpenBrowser(opts.Getenv, url) }
	cmd := &cobra.Command{
		Use:   "start [NAME] [--data JSON | --data-file FILE] [--transport webrtc|websocket|daily] [--daily-room] [--open]",
		Short: "Start a session (a call) on one of an agent's agents",
		Long: `Start a session on the agent NAME, as a caller's start does, with the
context's token: the platform hands it to an idle agent (or starts one, up to
its maximum), which receives --data as the body of its POST /bot. Prints the
session's id, then how to reach it:

  webrtc (the default)  the offer URL, PLATFORM/v1/public/NAME/sessions/ID/api/offer,
                        which a client reaches with a public key of the
                        organization (botkit cloud organizations keys create)
  websocket             the wsUrl: a one-time URL, good for one connection
  daily                 the Daily room the bot is in and the caller's meeting
                        token for it (the platform needs a Daily API key)

Sessions need a platform that outlives this command: on a remote context,
its platform; on the local context, botkit-platform serve --local (without
it, the command says so and exits 1).

--data must be a JSON object (exit 2 otherwise). With every agent in a
session (maxAgents), the platform answers at capacity: exit 1, with when to
try again (Retry-After). --daily-room (or --transport daily) asks for a
Daily room, which the platform makes when its operator gave it a Daily API
key: the room's URL and the caller's meeting token are printed (without a
key, the platform's refusal is shown, exit 1).
-o json|yaml prints the start's answer, -o name session/ID. A missing agent
exits 3.

--open starts no session here: it prints the URL of the agent's call page,
PLATFORM/call/NAME#key=…, a page the platform serves that starts a session
and calls the bot (microphone, the bot's voice, a transcript, typed text)
when you press Connect; on a terminal (and CI not set) it opens it in your
browser too (the command in BROWSER, else the system's). The page reads the
public key from the URL's fragment, after #, which the browser never sends
to a server. The key is $BOTKIT_PUBLIC_KEY when set (the URL is then printed
without it: the browser gets it); otherwise the command creates a public key
named call-page for the page (botkit cloud organizations keys list|delete)
and prints the URL with it, once.`,
		Example: `  botkit cloud agents start support-bot
  botkit cloud agents start support-bot --transport websocket --data '{"customer":"c-17"}'
  botkit cloud agents start support-bot --data-file body.json -o json
  botkit cloud agents start support-bot --open`,
	}
	cmd.Flags().StringVar(&opts.Data, "data", "", "The agent's POST /bot body: a `JSON` object (default: {})")
	cmd.Flags().StringVar(&opts.DataFile, "data-file", "", "Read the body from `FILE` (-: stdin)")
	cmdutil.EnumFlag(cmd, &opts.Transport, "transport", "", resources.TransportWebRTC,
		[]string{resources.TransportWebRTC, resources.TransportWebsocket, resources.TransportDaily}, "How the caller reaches the session")
	cmd.Flags().BoolVar(&opts.DailyRoom, "daily-room", false, "Ask the platform for a Daily room for the session")
	cmd.Flags().BoolVar(&opts.Open, "open", false, "Print (and on a terminal open) the agent's call page instead: a web page that calls the bot")
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runStart)
	return cmd
}

// startBody is the body --data or --data-file give: a JSON object (nil:
// none given). Its contents are never in a message.
func startBody(ctx context.Context, opts *StartOptions) (json.RawMessage, error) {
	flag, data := "--data", []byte(opts.Data)
	switch {
	case opts.Data != "" && opts.DataFile != "":
		return nil, cmdutil.FlagErrorf("--data and --data-file: give one of them")
	case opts.DataFile == "-":
		flag = "--data-file -"
		b, err := ctxio.ReadAll(ctx, opts.IO.In, maxDataBytes)
		if err != nil {
			return nil, fmt.Errorf("--data-file -: reading stdin: %w", err)
		}
		data = b
	case opts.DataFile != "":
		flag = "--data-file " + opts.DataFile
		b, err := ctxio.ReadFile(ctx, opts.DataFile, maxDataBytes)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, cmdutil.FlagErrorf("%s: %v", flag, err)
		}
		data = b
	case opts.Data == "":
		return nil, nil
	}
	if len(data) > maxDataBytes {
		return nil, cmdutil.FlagErrorf("%s: over %d bytes (the platform takes a start's body up to 1 MiB)", flag, maxDataBytes)
	}
	data = bytes.TrimSpace(data)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, cmdutil.FlagErrorf("%s: not JSON (at byte %d): want a JSON object, the agent's POST /bot body", flag, se.Offset)
		}
		return nil, cmdutil.FlagErrorf("%s: want a JSON object ({...}), the agent's POST /bot body", flag)
	}
	return data, nil
}

func runStart(ctx context.Context, opts *StartOptions) error {
	if opts.Open {
		return runOpen(ctx, opts)
	}
	switch opts.Transport {
	case "":
		opts.Transport = resources.TransportWebRTC
	case resources.TransportWebRTC, resources.TransportWebsocket, resources.TransportDaily:
	default:
		return cmdutil.CheckEnum("transport", opts.Transport, []string{resources.TransportWebRTC, resources.TransportWebsocket, resources.TransportDaily})
	}
	if opts.DailyRoom && opts.Transport == resources.TransportWebsocket {
		return cmdutil.FlagErrorf("--daily-room: a Daily room is a session over transport daily, not websocket")
	}
	body, err := startBody(ctx, opts)
	if err != nil {
		return err
	}
	c, org, err := beginOn(ctx, &opts.Platform, opts.Name, opts.Print, nil, opts.ConnectServing)
	if err != nil {
		return err
	}
	req := resources.SessionStartRequest{Transport: opts.Transport, Body: body}
	if opts.DailyRoom || opts.Transport == resources.TransportDaily {
		req.Transport, req.CreateDailyRoom = resources.TransportDaily, true
	}
	started, err := c.StartSession(ctx, org, opts.Name, req)
	var re *resources.Error
	if errors.As(err, &re) && re.Code == resources.CodeAtCapacity && re.RetryAfter > 0 {
		out := *re
		out.Message += fmt.Sprintf(" (Retry-After: %s)", re.RetryAfter)
		return &out
	}
	if err != nil {
		return err
	}
	if !opts.Print.Lines() {
		return opts.Print.PrintRows(opts.IO, nil, [][]string{{printers.SessionName(started.SessionID)}}, started)
	}
	ref := printers.SessionName(started.SessionID)
	lines := []string{fmt.Sprintf("%s started on %s (transport %s)", ref, cloudutil.AgentRef(opts.Name), req.Transport)}
	switch {
	case started.WSURL != "":
		lines = append(lines, "websocket: "+started.WSURL, "  (a one-time URL: it connects once)")
	case started.DailyRoom != "":
		lines = append(lines, "daily room: "+started.DailyRoom, "daily token: "+started.DailyToken, "  (the caller's meeting token: it joins the room until the session ends)")
	default:
		base := strings.TrimRight(c.BaseURL(), "/")
		if base == "" {
			base = "PLATFORM"
		}
		lines = append(lines, "offer: "+base+"/v1/public/"+url.PathEscape(opts.Name)+"/sessions/"+started.SessionID+"/api/offer",
			"  (a client sends its SDP offer there with a public key of the organization: botkit cloud organizations keys create)")
	}
	for i := range lines {
		lines[i] = iostreams.Printable(lines[i]) + "\n"
	}
	_, err = opts.IO.Out.Write([]byte(strings.Join(lines, "")))
	return err
}

// runOpen is start --open: the call page's URL, printed and opened.
func runOpen(ctx context.Context, opts *StartOptions) error {
	switch {
	case opts.Data != "" || opts.DataFile != "" || (opts.Transport != "" && opts.Transport != resources.TransportWebRTC) || opts.DailyRoom:
		return cmdutil.FlagErrorf("--open: the call page starts its own session (SmallWebRTC, no body); drop --data, --data-file, --transport and --daily-room")
	case !opts.Print.Lines():
		return cmdutil.FlagErrorf("--open prints the call page's URL: drop -o")
	}
	c, org, err := beginOn(ctx, &opts.Platform, opts.Name, opts.Print, nil, opts.ConnectServing)
	if err != nil {
		return err
	}
	base := strings.TrimRight(c.BaseURL(), "/")
	if base == "" {
		return errors.New("--open: the platform serving sessions has no URL to open")
	}
	if _, err := c.Agent(ctx, org, opts.Name); err != nil {
		return err
	}
	page := base + "/call/" + url.PathEscape(opts.Name)
	key, created := "", false
	if opts.Getenv != nil {
		key = strings.TrimSpace(opts.Getenv(PublicKeyEnv))
	}
	if key == "" {
		k, err := c.CreatePublicKey(ctx, org, resources.PublicKeyRequest{Name: "call-page"})
		if err != nil {
			return fmt.Errorf("creating a public key for the call page: %w", err)
		}
		key, created = k.Key, true
		fmt.Fprintf(opts.IO.ErrOut, "Created public key %s (call-page) for the page; botkit cloud organizations keys delete %s revokes it\n", iostreams.Printable(k.Prefix), iostreams.Printable(k.ID))
	}
	full := page + "#key=" + url.QueryEscape(key)
	line := "call page: " + iostreams.Printable(page) + "#key=$" + PublicKeyEnv + "\n"
	if created {
		line = "call page: " + iostreams.Printable(full) + "\n  (the URL holds the public key, shown this once)\n"
	}
	if _, err := io.WriteString(opts.IO.Out, line); err != nil {
		return err
	}
	if !cmdutil.CanOpenBrowser(opts.IO) || opts.Browser == nil {
		return nil
	}
	if err := opts.Browser(full); err != nil {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %v\n", err)
	}
	return nil
}

// SessionsOptions are the inputs of `botkit cloud agents sessions`.
type SessionsOptions struct {
	cloudutil.Platform
	Name  string
	Print *printers.Flags
}

// NewCmdSessions returns `botkit cloud agents sessions`.
func NewCmdSessions(f *cloudutil.Factory, runF func(context.Context, *SessionsOptions) error) *cobra.Command {
	opts := &SessionsOptions{Platform: cloudutil.NewPlatform(f), Print: printers.NewFlags()}
	opts.Print.Now = f.Now
	cmd := &cobra.Command{
		Use:   "sessions [NAME]",
		Short: "List an agent's sessions",
		Long: `List the sessions of the agent NAME, newest first: ID, STATE (starting: waiting
for an agent; active; ended; failed), TRANSPORT, the AGENT (container) that
runs it, its DEPLOYMENT, how long ago it STARTED, its DURATION (so far, while it
lives) and the first line of its END REASON. -o wide adds when it was
created, when it ended and its longest duration; -o name prints session/ID.

Stop one with botkit cloud agents stop NAME --session ID; its agent's lines
are botkit cloud agents logs NAME --session ID. A missing agent exits 3; an
agent without sessions prints "No resources found" on stderr and exits 0.`,
		Example: `  botkit cloud agents sessions support-bot
  botkit cloud agents sessions support-bot -o wide
  botkit cloud agents sessions support-bot --jq '.items[] | select(.state == "active") | .id'`,
	}
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runSessions)
	return cmd
}

func runSessions(ctx context.Context, opts *SessionsOptions) error {
	c, org, err := begin(ctx, &opts.Platform, opts.Name, opts.Print, nil)
	if err != nil {
		return err
	}
	ss, err := c.Sessions(ctx, org, opts.Name)
	if err != nil {
		return err
	}
	return opts.Print.PrintSessions(opts.IO, ss)
}

// StopOptions are the inputs of `botkit cloud agents stop`.
type StopOptions struct {
	cloudutil.Platform
	Name    string
	Session string // --session
	Skip    bool
	Print   *printers.Flags
}

// NewCmdStop returns `botkit cloud agents stop`.
func NewCmdStop(f *cloudutil.Factory, runF func(context.Context, *StopOptions) error) *cobra.Command {
	opts := &StopOptions{Platform: cloudutil.NewPlatform(f), Print: objectFlags()}
	cmd := &cobra.Command{
		Use:   "stop [NAME] --session ID",
		Short: "End a session: its call ends and its agent is removed",
		Long: `End the session ID of the agent NAME: its call ends and its agent (container)
is removed (an agent serves one session); the pool is refilled to min_agents
idle agents. Prints session/ID stopped (unchanged when it had already
ended). -o json|yaml prints the session as it ended.

Asks first on a terminal (--skip: without; required without one). Like
start, it needs a platform that outlives the command (on the local context,
botkit-platform serve --local). A missing agent or session exits 3.`,
		Example: `  botkit cloud agents stop support-bot --session ses_0123456789abcdefghijklmnop
  botkit cloud agents stop support-bot --session ses_0123456789abcdefghijklmnop --skip`,
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "The session's `ID` (required; see botkit cloud agents sessions)")
	cmdutil.SkipFlag(cmd.Flags(), &opts.Skip, "Stop without confirmation")
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runStop)
	_ = cmd.RegisterFlagCompletionFunc("session", completeSessions(&opts.Platform, true)) // error ignored: the flag was just added
	return cmd
}

func runStop(ctx context.Context, opts *StopOptions) error {
	if err := checkSessionFlag(opts.Session); err != nil {
		return err
	}
	c, org, err := beginOn(ctx, &opts.Platform, opts.Name, opts.Print, &opts.Skip, opts.ConnectServing)
	if err != nil {
		return err
	}
	ref := printers.SessionName(opts.Session)
	cur, err := c.Session(ctx, org, opts.Name, opts.Session)
	if err != nil {
		return err
	}
	if !opts.Skip && (cur.State == resources.SessionStarting || cur.State == resources.SessionActive) {
		question := fmt.Sprintf("Stop %s of %s (%s, transport %s)? Its call ends and its agent is removed.", ref, cloudutil.AgentRef(opts.Name), cur.State, cur.Transport)
		if err := opts.Confirm(ctx, org, iostreams.Printable(question), "stopping "+ref+" needs confirmation", false); err != nil {
			return err
		}
	}
	s, err := c.StopSession(ctx, org, opts.Name, opts.Session)
	if err != nil {
		return err
	}
	if !opts.Print.Lines() {
		return opts.Print.PrintRows(opts.IO, nil, nil, s)
	}
	op := printers.Operation{Ref: ref, Action: "stopped"}
	if cur.State == resources.SessionEnded || cur.State == resources.SessionFailed {
		op.Action, op.Detail = "unchanged", "it had already ended ("+cur.State+")"
	}
	return printers.PrintOperations(opts.IO.Out, op)
}

// completeSessions completes a session id of the agent named by the
// argument (live: only the sessions still starting or active).
func completeSessions(p *cloudutil.Platform, live bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) != 1 {
			return nil, noFiles
		}
		return completeFrom(cmd, p, toComplete, func(ctx context.Context, c *client.Client, org string) ([]string, error) {
			ss, err := c.Sessions(ctx, org, args[0])
			out := make([]string, 0, len(ss))
			for _, s := range ss {
				if !live || s.State == resources.SessionStarting || s.State == resources.SessionActive {
					out = append(out, s.ID)
				}
			}
			return out, err
		})
	}
}

package agents

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/cmd/deploy"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/prompter"
)

// Sessions through botkit's commands on a real engine running the stand-in
// of Pipecat Cloud's base image: deploy (at most 2 agents), start a webrtc
// and a websocket session (each line says how to reach it), sessions shows
// them active, logs --session shows only that session's agent's lines, the
// pool line in status, SESSIONS in list -o wide, a third start at capacity
// (exit 1, Retry-After), stop (confirmation, then ended; again: unchanged),
// the logs of a session whose agent is gone (exit 1), a missing session
// (exit 3). No output ever holds the secret value.
func TestSessionsEndToEnd(t *testing.T) {
	v := newEngineEnvWith(t, false, func(v *engineEnv) {
		v.img1 = v.engine.PushAgent(t, v.host, "acme/pcc:1", regUser, canary, dockertest.ImageOptions{Standin: true})
	})
	ctx := context.Background()
	toml, err := os.ReadFile(filepath.Join(v.project, "cloud-deploy.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.project, "cloud-deploy.toml"), append(toml, "max_agents = 2\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	v.run(t, 0, func() error { return deploy.Run(ctx, v.deployOpts(nil, "", false)) })

	start := func(wantExit int, o StartOptions) string {
		t.Helper()
		o.Platform, o.Name = v.platform(nil), "bot"
		if o.Print == nil {
			o.Print = startFlags()
		}
		return v.run(t, wantExit, func() error { return runStart(ctx, &o) })
	}
	idLine := regexp.MustCompile(`^session/(ses_[a-z0-9]{26}) started on agent/bot \(transport (\w+)\)\n`)

	// webrtc: the offer URL, reached with a public key.
	out := start(0, StartOptions{Data: `{"customer":"c-17"}`})
	m := idLine.FindStringSubmatch(out)
	if m == nil || m[2] != "webrtc" {
		t.Fatalf("start printed:\n%s", out)
	}
	rtc := m[1]
	if want := "offer: " + strings.TrimRight(v.c.BaseURL(), "/") + "/v1/public/bot/sessions/" + rtc + "/api/offer\n"; !strings.Contains(out, want) ||
		!strings.Contains(out, "public key of the organization: botkit cloud organizations keys create") {
		t.Errorf("start (webrtc) says:\n%s\nwant the line %q", out, want)
	}
	// websocket: the one-time wsUrl.
	out = start(0, StartOptions{Transport: "websocket"})
	if m = idLine.FindStringSubmatch(out); m == nil || m[2] != "websocket" {
		t.Fatalf("start --transport websocket printed:\n%s", out)
	}
	ws := m[1]
	if !regexp.MustCompile(`(?m)^websocket: ws://127\.0\.0\.1:\d+/v1/public/bot/sessions/` + ws + `/ws\?token=\S+\n  \(a one-time URL: it connects once\)\n`).MatchString(out) {
		t.Errorf("start (websocket) says:\n%s", out)
	}

	// Both agents are in a session: a third start is at capacity.
	start(cmdutil.ExitError, StartOptions{})
	if got := v.texts[len(v.texts)-1]; !strings.Contains(got, "agent bot is at capacity") || !strings.Contains(got, "(Retry-After: ") {
		t.Errorf("a start at capacity says:\n%s", got)
	}

	// sessions: both active, on deployment 1, each on its agent.
	sessions := func(format string) string {
		f := printers.NewFlags()
		f.Output = format
		out, _ := v.try(t, func() error {
			return runSessions(ctx, &SessionsOptions{Platform: v.platform(nil), Name: "bot", Print: f})
		})
		return out
	}
	row := func(id, state, transport string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^` + id + ` +` + state + ` +` + transport + ` +[0-9a-f]{12} +1 +\S+ ago +\S+ +`)
	}
	testenv.Eventually(t, "both sessions active", func() bool {
		out := sessions("table")
		return row(rtc, "active", "webrtc").MatchString(out) && row(ws, "active", "websocket").MatchString(out)
	})
	if out := sessions("name"); !strings.Contains(out, "session/"+rtc+"\n") || !strings.Contains(out, "session/"+ws+"\n") {
		t.Errorf("sessions -o name:\n%s", out)
	}
	pl := v.platform(nil)
	if got, _ := completeSessions(&pl, true)(&cobra.Command{}, []string{"bot"}, "ses_"); !slices.Contains(got, rtc) || !slices.Contains(got, ws) {
		t.Errorf("--session completes to %v", got)
	}

	// logs --session: that session's agent's lines only.
	logs := func(id string) (string, bool) {
		return v.try(t, func() error {
			return runLogs(ctx, &LogsOptions{Platform: v.platform(nil), Name: "bot", Session: id, Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)})
		})
	}
	testenv.Eventually(t, "the webrtc session's agent's lines", func() bool {
		out, ok := logs(rtc)
		return ok && strings.Contains(out, "session "+rtc+" started")
	})
	if out, _ := logs(rtc); strings.Contains(out, ws) {
		t.Errorf("logs --session %s shows another agent's lines:\n%s", rtc, out)
	}
	testenv.Eventually(t, "the websocket session's agent's lines", func() bool {
		out, ok := logs(ws)
		return ok && strings.Contains(out, "session "+ws+" started") && !strings.Contains(out, rtc)
	})

	// status: the pool line; list -o wide: SESSIONS.
	status := func() string {
		out, _ := v.try(t, func() error {
			return runStatus(ctx, &StatusOptions{Platform: v.platform(nil), Name: "bot", Print: printers.NewFlags()})
		})
		return out
	}
	testenv.Eventually(t, "status: both agents in a session", func() bool {
		return strings.Contains(status(), "Agents:               2 ready (2 in a session, 0 idle), max 2\n")
	})
	wide := printers.NewFlags()
	wide.Output = printers.FormatWide
	out = v.run(t, 0, func() error { return runList(ctx, &ListOptions{Platform: v.platform(nil), Print: wide}) })
	if lines := strings.Split(out, "\n"); len(lines) < 2 || !regexp.MustCompile(`AGE +SESSIONS +ORGANIZATION`).MatchString(lines[0]) ||
		!regexp.MustCompile(`^bot .* 2 +local +`).MatchString(lines[1]) {
		t.Errorf("list -o wide:\n%s", out)
	}

	// stop: asks (without a terminal: --skip, exit 2), then ends it.
	stop := func(wantExit int, id string, skip bool, p prompter.Prompter) string {
		return v.run(t, wantExit, func() error {
			return runStop(ctx, &StopOptions{Platform: v.platform(p), Name: "bot", Session: id, Skip: skip, Print: objectFlags()})
		})
	}
	stop(cmdutil.ExitUsage, rtc, false, nil)
	if got := v.texts[len(v.texts)-1]; !strings.Contains(got, "stopping session/"+rtc+" needs confirmation: pass --skip") {
		t.Errorf("stop without a terminal says:\n%s", got)
	}
	if out := stop(0, rtc, true, nil); out != "session/"+rtc+" stopped\n" {
		t.Errorf("stop printed %q", out)
	}
	if !regexp.MustCompile(`(?m)^` + rtc + ` +ended +webrtc +.* stopped by `).MatchString(sessions("table")) {
		t.Errorf("sessions after stop:\n%s", sessions("table"))
	}
	if out := stop(0, rtc, true, nil); out != "session/"+rtc+" unchanged: it had already ended (ended)\n" {
		t.Errorf("a second stop printed %q", out)
	}
	stop(cmdutil.ExitNotFound, "ses_"+strings.Repeat("z", 26), true, nil)

	// The pool is refilled; the stopped session's agent is gone, and its
	// lines with it (exit 1, saying so).
	testenv.Eventually(t, "status: one agent in a session, one idle", func() bool {
		return strings.Contains(status(), "Agents:               2 ready (1 in a session, 1 idle), max 2\n")
	})
	testenv.Eventually(t, "the stopped session's agent removed", func() bool {
		_, ok := logs(rtc)
		return !ok
	})
	v.run(t, cmdutil.ExitError, func() error {
		return runLogs(ctx, &LogsOptions{Platform: v.platform(nil), Name: "bot", Session: rtc, Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)})
	})
	if got := v.texts[len(v.texts)-1]; !strings.Contains(got, "the agent of session "+rtc+" is gone") {
		t.Errorf("logs of a session whose agent is gone:\n%s", got)
	}
	v.run(t, cmdutil.ExitNotFound, func() error {
		return runLogs(ctx, &LogsOptions{Platform: v.platform(nil), Name: "bot", Session: "ses_" + strings.Repeat("z", 26), Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)})
	})

	// -o name: the new session's ref only.
	nf := startFlags()
	nf.Output = printers.FormatName
	if out := start(0, StartOptions{Print: nf}); !regexp.MustCompile(`^session/ses_[a-z0-9]{26}\n\z`).MatchString(out) {
		t.Errorf("start -o name printed %q", out)
	}
}

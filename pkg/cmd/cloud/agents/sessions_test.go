package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/printers"
)

func startFlags() *printers.Flags {
	return printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML, printers.FormatName)
}

// The sessions' commands refuse bad input with exit 2 naming the flag,
// before any request (and without echoing --data's contents).
func TestSessionUsageErrors(t *testing.T) {
	ctx := context.Background()
	body := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(body, []byte(`["`+canary+`"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func(o StartOptions) func(p cloudutil.Platform) error {
		return func(p cloudutil.Platform) error {
			o.Platform, o.Name, o.Print = p, "bot", startFlags()
			return runStart(ctx, &o)
		}
	}
	for _, tc := range []struct {
		name string
		run  func(p cloudutil.Platform) error
		want string
	}{
		{"start --data not JSON", start(StartOptions{Data: `{"k": ` + canary}), "--data: not JSON"},
		{"start --data an array", start(StartOptions{Data: `["` + canary + `"]`}), "--data: want a JSON object"},
		{"start --data null", start(StartOptions{Data: `null`}), "--data: want a JSON object"},
		{"start --data-file an array", start(StartOptions{DataFile: body}), "--data-file " + body + ": want a JSON object"},
		{"start --data-file missing", start(StartOptions{DataFile: body + ".missing"}), "--data-file " + body + ".missing"},
		{"start --data and --data-file", start(StartOptions{Data: "{}", DataFile: body}), "--data and --data-file"},
		{"start --transport", start(StartOptions{Transport: "carrier-pigeon"}), "--transport"},
		{"start bad name", func(p cloudutil.Platform) error {
			return runStart(ctx, &StartOptions{Platform: p, Name: "Bad_Name", Print: startFlags()})
		}, "Bad_Name"},
		{"start -o table", func(p cloudutil.Platform) error {
			f := startFlags()
			f.Output = "table"
			return runStart(ctx, &StartOptions{Platform: p, Name: "bot", Print: f})
		}, "--output"},
		{"stop without --session", func(p cloudutil.Platform) error {
			return runStop(ctx, &StopOptions{Platform: p, Name: "bot", Skip: true, Print: objectFlags()})
		}, "--session is required"},
		{"stop bad --session", func(p cloudutil.Platform) error {
			return runStop(ctx, &StopOptions{Platform: p, Name: "bot", Session: "ses_../x", Skip: true, Print: objectFlags()})
		}, "--session"},
		{"logs bad --session", func(p cloudutil.Platform) error {
			return runLogs(ctx, &LogsOptions{Platform: p, Name: "bot", Session: "7", Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)})
		}, "--session"},
		{"sessions -o bogus", func(p cloudutil.Platform) error {
			f := printers.NewFlags()
			f.Output = "bogus"
			return runSessions(ctx, &SessionsOptions{Platform: p, Name: "bot", Print: f})
		}, "--output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, out, _ := iostreams.Test()
			err := tc.run(noPlatform(t, ios, cloudutil.DefaultTarget))
			if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v (exit %d), want exit 2 naming %s", err, cmdutil.ExitCode(err), tc.want)
			}
			if out.Len() != 0 || strings.Contains(err.Error(), canary) {
				t.Errorf("stdout %q, err %v", out, err)
			}
		})
	}
	// A protected context refuses stop --skip unless named.
	ios, _, _, _ := iostreams.Test()
	err := runStop(ctx, &StopOptions{Platform: noPlatform(t, ios, cloudutil.Target{Context: "prod", Protected: true}), Name: "bot",
		Session: "ses_" + strings.Repeat("a", 26), Skip: true, Print: objectFlags()})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--context prod") {
		t.Errorf("stop --skip in a protected context: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
}

// Against the real platform with no runtime: a start goes to the serving
// platform and its refusals come through with their exit codes (a missing
// agent 3 with the names close to it, no Daily rooms 1, no runtime 1);
// an agent without sessions lists none; stopping or reading the logs of a
// missing session is exit 3.
func TestSessionsOnThePlatform(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, platform.Options{})
	e.putAgent("bot", nil)
	serving := 0
	pl := e.platform(nil)
	pl.APIClient = func(context.Context) (*client.Client, error) { return e.c, nil }
	pl.ServingPlatform = func(context.Context) (*client.Client, error) { serving++; return e.c, nil }

	err := runStart(ctx, &StartOptions{Platform: pl, Name: "bto", Print: startFlags()})
	if cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
		t.Errorf("start on a missing agent: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	// The "did you mean" comes from the command's RunE (suggestAgent).
	if err := suggestAgent(ctx, &pl, "bto", err); !strings.Contains(err.Error(), "did you mean bot?") {
		t.Errorf("start on a missing agent: %v", err)
	}
	err = runStart(ctx, &StartOptions{Platform: pl, Name: "bot", DailyRoom: true, Print: startFlags()})
	if cmdutil.ExitCode(err) != cmdutil.ExitError || !strings.Contains(err.Error(), "makes no Daily rooms") {
		t.Errorf("start --daily-room: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	err = runStart(ctx, &StartOptions{Platform: pl, Name: "bot", Data: `{"customer": "c-17"}`, Print: startFlags()})
	if cmdutil.ExitCode(err) != cmdutil.ExitError || !strings.Contains(err.Error(), "--runtime us-west=docker://") {
		t.Errorf("start without a runtime: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	if serving != 3 {
		t.Errorf("start asked the serving platform %d times, want 3", serving)
	}

	// A local context with nothing serving: the finder's error, as it is.
	noServer := e.platform(nil)
	noServer.ServingPlatform = func(context.Context) (*client.Client, error) {
		return nil, cmdutil.WithCode(cmdutil.ExitError, fmt.Errorf("%w: run `botkit-platform serve --local`", cloudutil.ErrNoServingPlatform))
	}
	for name, run := range map[string]func() error{
		"start": func() error {
			return runStart(ctx, &StartOptions{Platform: noServer, Name: "bot", Print: startFlags()})
		},
		"stop": func() error {
			return runStop(ctx, &StopOptions{Platform: noServer, Name: "bot", Session: "ses_" + strings.Repeat("b", 26), Skip: true, Print: objectFlags()})
		},
	} {
		if err := run(); !errors.Is(err, cloudutil.ErrNoServingPlatform) || cmdutil.ExitCode(err) != cmdutil.ExitError {
			t.Errorf("%s with nothing serving: %v (exit %d)", name, err, cmdutil.ExitCode(err))
		}
	}

	e.out.Reset()
	e.errOut.Reset()
	if err := runSessions(ctx, &SessionsOptions{Platform: pl, Name: "bot", Print: printers.NewFlags()}); err != nil {
		t.Fatal(err)
	}
	if e.out.Len() != 0 || strings.TrimSpace(e.errOut.String()) != printers.NoResourcesMessage {
		t.Errorf("no sessions: stdout %q, stderr %q", e.out, e.errOut)
	}
	f := printers.NewFlags()
	f.JQ = ".items | length"
	e.out.Reset()
	if err := runSessions(ctx, &SessionsOptions{Platform: pl, Name: "bot", Print: f}); err != nil || e.out.String() != "0\n" {
		t.Errorf("sessions --jq: %q %v", e.out, err)
	}
	if err := runSessions(ctx, &SessionsOptions{Platform: pl, Name: "nobody", Print: printers.NewFlags()}); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
		t.Errorf("sessions of a missing agent: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	missing := "ses_" + strings.Repeat("c", 26)
	e.out.Reset()
	for _, skip := range []bool{true, false} {
		err := runStop(ctx, &StopOptions{Platform: pl, Name: "bot", Session: missing, Skip: skip, Print: objectFlags()})
		if cmdutil.ExitCode(err) != cmdutil.ExitNotFound || !strings.Contains(err.Error(), missing) {
			t.Errorf("stop of a missing session (skip %v): %v (exit %d)", skip, err, cmdutil.ExitCode(err))
		}
	}
	if e.out.Len() != 0 {
		t.Errorf("stdout: %q", e.out)
	}
}

// --data-file - reads the body from stdin; --data and the file's contents
// are sent as given, trimmed.
func TestStartBody(t *testing.T) {
	ctx := context.Background()
	ios, stdin, _, _ := iostreams.Test()
	stdin.WriteString(" {\"customer\": \"c-17\"}\n")
	got, err := startBody(ctx, &StartOptions{Platform: cloudutil.Platform{IO: ios}, DataFile: "-"})
	if err != nil || string(got) != `{"customer": "c-17"}` {
		t.Errorf("--data-file -: %q %v", got, err)
	}
	if got, err := startBody(ctx, &StartOptions{Platform: cloudutil.Platform{IO: ios}}); err != nil || got != nil {
		t.Errorf("no --data: %q %v", got, err)
	}
	big := `{"k":"` + strings.Repeat("x", maxDataBytes) + `"}`
	if _, err := startBody(ctx, &StartOptions{Platform: cloudutil.Platform{IO: ios}, Data: big}); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--data: over") {
		t.Errorf("--data over 1 MiB: %v", err)
	}
}

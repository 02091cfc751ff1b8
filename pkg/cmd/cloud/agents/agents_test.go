package agents

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/prompter"
)

// env is a real platform (SQLite in a temp dir) over real HTTP on
// 127.0.0.1, and the client the commands use.
type env struct {
	t      *testing.T
	c      *client.Client
	ios    *iostreams.IOStreams
	out    *bytes.Buffer
	errOut *bytes.Buffer
	target cloudutil.Target
}

func newEnv(t *testing.T, opts platform.Options) *env {
	t.Helper()
	opts.NoAuthOrg = client.EmbeddedOrg
	opts.AllowPrivateRegistries = true
	url, _ := platformtest.Start(t, opts)
	c, err := client.New(client.Options{BaseURL: url, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, c: c, target: cloudutil.DefaultTarget}
	e.ios, _, e.out, e.errOut = iostreams.Test()
	return e
}

// terminal makes stdin, stdout and stderr terminals (prompts allowed).
func (e *env) terminal() {
	e.ios.SetStdinTTY(true)
	e.ios.SetStdoutTTY(true)
	e.ios.SetStderrTTY(true)
}

// platform is the commands' Platform; p answers questions (nil: a question
// fails the test).
func (e *env) platform(p prompter.Prompter) cloudutil.Platform {
	return cloudutil.Platform{
		IO:        e.ios,
		APIClient: func(context.Context) (*client.Client, error) { return e.c, nil },
		ResolveOrg: func(_ context.Context, flag string) (string, error) {
			if flag != "" {
				return flag, nil
			}
			return client.EmbeddedOrg, nil
		},
		Prompter: func() prompter.Prompter {
			if p == nil {
				e.t.Fatal("the command prompted")
			}
			return p
		},
		Target: func() (cloudutil.Target, error) { return e.target, nil },
	}
}

// noPlatform is a Platform whose client fails the test: the command must
// refuse its input before any request.
func noPlatform(t *testing.T, ios *iostreams.IOStreams, target cloudutil.Target) cloudutil.Platform {
	return cloudutil.Platform{
		IO: ios,
		APIClient: func(context.Context) (*client.Client, error) {
			t.Fatal("the command reached the platform")
			return nil, nil
		},
		ResolveOrg: func(context.Context, string) (string, error) { return client.EmbeddedOrg, nil },
		Target:     func() (cloudutil.Target, error) { return target, nil },
	}
}

// Bad input is exit 2 naming the flag or argument, before any request.
func TestUsageErrorsBeforeAnyRequest(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(p cloudutil.Platform) error
		want string
	}{
		{"status bad name", func(p cloudutil.Platform) error {
			return runStatus(ctx, &StatusOptions{Platform: p, Name: "Bad_Name", Print: printers.NewFlags()})
		}, "Bad_Name"},
		{"status -o name", func(p cloudutil.Platform) error {
			f := printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatJSON, printers.FormatYAML)
			f.Output = "name"
			return runStatus(ctx, &StatusOptions{Platform: p, Name: "bot", Print: f})
		}, "--output"},
		{"list --region", func(p cloudutil.Platform) error {
			return runList(ctx, &ListOptions{Platform: p, Region: "Nowhere!", Print: printers.NewFlags()})
		}, "--region"},
		{"logs --since", func(p cloudutil.Platform) error {
			return runLogs(ctx, &LogsOptions{Platform: p, Name: "bot", Since: -time.Minute, Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)})
		}, "--since"},
		{"logs --tail", func(p cloudutil.Platform) error {
			return runLogs(ctx, &LogsOptions{Platform: p, Name: "bot", Tail: -1, Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)})
		}, "--tail"},
		{"logs -o yaml", func(p cloudutil.Platform) error {
			f := printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)
			f.Output = "yaml"
			return runLogs(ctx, &LogsOptions{Platform: p, Name: "bot", Print: f})
		}, "--output"},
		{"scale --min", func(p cloudutil.Platform) error {
			return runScale(ctx, &ScaleOptions{Platform: p, Name: "bot", Min: -1, Print: objectFlags()})
		}, "--min"},
		{"scale --max below --min", func(p cloudutil.Platform) error {
			return runScale(ctx, &ScaleOptions{Platform: p, Name: "bot", Min: 3, Max: 2, MaxSet: true, Print: objectFlags()})
		}, "--max"},
		{"rollback --to", func(p cloudutil.Platform) error {
			return runRollback(ctx, &RollbackOptions{Platform: p, Name: "bot", To: -2, Print: objectFlags()})
		}, "--to"},
		{"delete bad name", func(p cloudutil.Platform) error {
			return runDelete(ctx, &DeleteOptions{Platform: p, Name: "-x", Skip: true, Print: objectFlags()})
		}, "-x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, out, _ := iostreams.Test()
			err := tc.run(noPlatform(t, ios, cloudutil.DefaultTarget))
			if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v (exit %d), want exit 2 naming %s", err, cmdutil.ExitCode(err), tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q", out)
			}
		})
	}
}

// In a protected context reached through the current context, --skip is
// refused (exit 2 naming --context) before any request: a script never
// deletes, restarts or rolls back there unless it names the context.
func TestProtectedContextRefusesSkip(t *testing.T) {
	ctx := context.Background()
	prod := cloudutil.Target{Context: "prod", Protected: true}
	for name, run := range map[string]func(p cloudutil.Platform) error{
		"delete": func(p cloudutil.Platform) error {
			return runDelete(ctx, &DeleteOptions{Platform: p, Name: "bot", Skip: true, Print: objectFlags()})
		},
		"restart": func(p cloudutil.Platform) error {
			return runRestart(ctx, &RestartOptions{Platform: p, Name: "bot", Skip: true, Print: objectFlags()})
		},
		"rollback": func(p cloudutil.Platform) error {
			return runRollback(ctx, &RollbackOptions{Platform: p, Name: "bot", Skip: true, Print: objectFlags()})
		},
	} {
		t.Run(name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			err := run(noPlatform(t, ios, prod))
			if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--context prod") {
				t.Fatalf("err %v (exit %d)", err, cmdutil.ExitCode(err))
			}
		})
	}
}

package agents

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/pgtest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
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

// pg is the PostgreSQL server of this test binary, started by the first
// test that runs on PostgreSQL.
var pg = pgtest.NewShared()

func TestMain(m *testing.M) {
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

// eachStore runs fn on a platform over SQLite, then over PostgreSQL (a
// real server; missing binaries skip that half, or fail it under CI).
func eachStore(t *testing.T, fn func(t *testing.T, postgres bool)) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) { fn(t, db == "postgres") })
	}
}

// newEnvOn is newEnv over PostgreSQL when postgres is set.
func newEnvOn(t *testing.T, postgres bool, opts platform.Options) *env {
	t.Helper()
	if postgres {
		st, err := stores.Open(context.Background(), stores.Location{URL: pg.Database(t)}, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts.Store = st
		opts.MasterKeyFile = filepath.Join(t.TempDir(), platform.MasterKeyFile)
		if err := os.WriteFile(opts.MasterKeyFile, []byte(strings.Repeat("5a", 32)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return newEnv(t, opts)
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
		IO:              e.ios,
		APIClient:       func(context.Context) (*client.Client, error) { return e.c, nil },
		ServingPlatform: func(context.Context) (*client.Client, error) { return e.c, nil },
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
		ServingPlatform: func(context.Context) (*client.Client, error) {
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

// putAgent creates agent name with the other client: no deployment, no
// runtime needed.
func (e *env) putAgent(name string, scaling *resources.AgentScaling) {
	e.t.Helper()
	a := resources.Agent{Metadata: resources.ObjectMeta{Name: name}, Spec: resources.AgentSpec{Image: "registry.example.com/acme/" + name + ":1", Scaling: scaling}}
	if _, _, err := e.c.PutAgent(context.Background(), client.EmbeddedOrg, a, ""); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) exists(name string) bool {
	e.t.Helper()
	_, err := e.c.Agent(context.Background(), client.EmbeddedOrg, name)
	if err != nil && !errors.Is(err, &resources.Error{Code: resources.CodeNotFound}) {
		e.t.Fatal(err)
	}
	return err == nil
}

// delete, restart and rollback ask: without a terminal they need --skip
// (exit 2), a "no" is exit 1 and changes nothing, a protected context wants
// its name typed; a missing agent is exit 3. A region without a runtime
// refuses what needs one with exit 1, saying how to add it.
func TestConfirmations(t *testing.T) {
	eachStore(t, func(t *testing.T, postgres bool) {
		ctx := context.Background()
		e := newEnvOn(t, postgres, platform.Options{})
		e.putAgent("bot", &resources.AgentScaling{MinAgents: 1, MaxAgents: 1})
		del := func(p prompter.Prompter, skip bool) error {
			return runDelete(ctx, &DeleteOptions{Platform: e.platform(p), Name: "bot", Skip: skip, Print: objectFlags()})
		}

		err := del(nil, false)
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "deleting agent/bot needs confirmation: pass --skip") || !e.exists("bot") {
			t.Fatalf("delete without a terminal: %v (exit %d)", err, cmdutil.ExitCode(err))
		}
		e.terminal()
		p := prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: false})
		if err := del(p, false); cmdutil.ExitCode(err) != cmdutil.ExitError || !e.exists("bot") {
			t.Fatalf("delete answered no: %v (exit %d)", err, cmdutil.ExitCode(err))
		}
		if q := p.Asked(); len(q) != 1 || !strings.HasPrefix(q[0].Title, "Delete agent/bot (region us-west, ") || !strings.HasSuffix(q[0].Title, "[in organization local (context local)]") {
			t.Errorf("asked %+v", q)
		}

		// restart needs the region's runtime: exit 1 saying how to add one.
		err = runRestart(ctx, &RestartOptions{Platform: e.platform(nil), Name: "bot", Skip: true, Print: objectFlags()})
		if cmdutil.ExitCode(err) != cmdutil.ExitError || !strings.Contains(err.Error(), "--runtime us-west=docker://") {
			t.Errorf("restart without a runtime: %v (exit %d)", err, cmdutil.ExitCode(err))
		}
		// scale without --max keeps the maximum, which --min must not pass.
		err = runScale(ctx, &ScaleOptions{Platform: e.platform(nil), Name: "bot", Min: 2, Print: objectFlags()})
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "give --max too") {
			t.Errorf("scale above the maximum: %v (exit %d)", err, cmdutil.ExitCode(err))
		}
		e.out.Reset()
		if err := runScale(ctx, &ScaleOptions{Platform: e.platform(nil), Name: "bot", Min: 2, Max: 4, MaxSet: true, Print: objectFlags()}); err != nil {
			t.Fatal(err)
		}
		if a, err := e.c.Agent(ctx, client.EmbeddedOrg, "bot"); err != nil || *a.Spec.Scaling != (resources.AgentScaling{MinAgents: 2, MaxAgents: 4}) {
			t.Errorf("after scale: %+v, %v", a.Spec.Scaling, err)
		}
		if !strings.HasPrefix(e.out.String(), "agent/bot scaled: min 2, max 4; ") {
			t.Errorf("scale printed %q", e.out)
		}

		// A protected context: the context's name, typed.
		e.target = cloudutil.Target{Context: "prod", Protected: true}
		p = prompter.NewFake(t, prompter.Answer{Match: "--skip --context prod", Value: "prod"})
		e.out.Reset()
		if err := del(p, false); err != nil {
			t.Fatal(err)
		}
		if e.out.String() != "agent/bot deleted\n" || e.exists("bot") {
			t.Errorf("delete printed %q; exists %v", e.out, e.exists("bot"))
		}
		e.target = cloudutil.DefaultTarget
		if err := del(nil, true); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
			t.Errorf("delete of a missing agent: %v (exit %d)", err, cmdutil.ExitCode(err))
		}
		if err := del(nil, false); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
			t.Errorf("delete of a missing agent, asking: %v (exit %d)", err, cmdutil.ExitCode(err))
		}
		// Another organization's agents are not there.
		pl := e.platform(nil)
		pl.Organization = "other"
		e.putAgent("mine", nil)
		if err := runStatus(ctx, &StatusOptions{Platform: pl, Name: "mine", Print: printers.NewFlags()}); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
			t.Errorf("another organization's status of agent mine: %v (exit %d), want exit 3", err, cmdutil.ExitCode(err))
		}
		lf := printers.NewFlags().WithLines().WithFormats(printers.FormatJSON)
		if err := runLogs(ctx, &LogsOptions{Platform: e.platform(nil), Name: "nobody", Print: lf}); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
			t.Errorf("logs of a missing agent: %v (exit %d), want exit 3", err, cmdutil.ExitCode(err))
		}
		e.out.Reset()
		if err := runList(ctx, &ListOptions{Platform: e.platform(nil), Print: printers.NewFlags()}); err != nil || !slices.Contains(strings.Fields(e.out.String()), "mine") {
			t.Errorf("list: %v\n%s", err, e.out)
		}
	})
}

package create

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// parse runs `create args...` through cobra and returns the Options the run
// function would get.
func parse(t *testing.T, env map[string]string, args ...string) (*Options, error) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Getenv: func(k string) string { return env[k] }, WorkingDir: func() (string, error) { return "/work", nil }}
	var got *Options
	cmd := NewCmdCreate(f, func(_ context.Context, o *Options) error { got = o; return nil })
	cmdutil.TypeUsageErrors(cmd) // as the command root does: flag errors are exit 2
	cmd.SetArgs(args)
	cmd.SetOut(ios.Out)
	cmd.SetErr(ios.ErrOut)
	err := cmd.Execute()
	return got, err
}

func TestFlagsFillOptions(t *testing.T) {
	o, err := parse(t, nil, "dir", "-t", "daily,smallwebrtc", "-t", "twilio", "--no-recording", "--eval", "--stt", "deepgram_stt", "-b", "web")
	if err != nil {
		t.Fatal(err)
	}
	if o.TargetDir != "dir" || o.WorkingDir != "/work" {
		t.Errorf("target %q wd %q", o.TargetDir, o.WorkingDir)
	}
	if !reflect.DeepEqual(o.Flags.Transports, []string{"daily", "smallwebrtc", "twilio"}) {
		t.Errorf("transports %v", o.Flags.Transports)
	}
	if o.Flags.Recording == nil || *o.Flags.Recording || o.Flags.Eval == nil || !*o.Flags.Eval {
		t.Errorf("recording %v eval %v", o.Flags.Recording, o.Flags.Eval)
	}
	if *o.Flags.STTService != "deepgram_stt" || *o.Flags.BotType != "web" || o.Flags.LLMService != nil || o.Flags.Transcription != nil {
		t.Errorf("flags %+v", o.Flags)
	}
	if !o.nonInteractive() {
		t.Error("TARGET_DIR with --bot-type must be non-interactive")
	}
}

func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--eval", "--no-eval"}, "--eval and --no-eval cannot be used together"},
		{[]string{"--dry-run", "--format", "xml"}, `unknown value "xml" (valid: json, yaml)`},
		{[]string{"--format", "yaml"}, "--format only applies with --dry-run"},
	} {
		_, err := parse(t, nil, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%v: got %v (exit %d), want %q exit 2", c.args, err, cmdutil.ExitCode(err), c.want)
		}
	}
}

func TestAccessibleFromEnvironment(t *testing.T) {
	o, err := parse(t, map[string]string{"ACCESSIBLE": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Accessible || o.nonInteractive() {
		t.Errorf("accessible %v noninteractive %v", o.Accessible, o.nonInteractive())
	}
}

// The wizard needs stdin, stdout and stderr on a terminal and CI unset
// (docs/create.md); else exit 2 naming the flags that make it unnecessary.
func TestRunWithoutTerminalNeverStartsTheWizard(t *testing.T) {
	for _, c := range []struct {
		name              string
		stdin, stdout, ci bool
	}{
		{"nothing a terminal", false, false, false},
		{"stdin not a terminal", false, true, false},
		{"stdout piped", true, false, false},
		{"CI set", true, true, true},
	} {
		ios, _, out, _ := iostreams.Test()
		ios.SetStdinTTY(c.stdin)
		ios.SetStdoutTTY(c.stdout)
		ios.SetStderrTTY(true)
		ios.SetCI(c.ci)
		called := false
		opts := &Options{IO: ios, WorkingDir: t.TempDir(), Format: "json", Prompter: func(bool) prompter.Prompter {
			called = true
			return prompter.NewFake(t)
		}}
		err := Run(context.Background(), opts)
		if called || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--name or --config") {
			t.Errorf("%s: called %v err %v", c.name, called, err)
		}
		if out.Len() != 0 {
			t.Errorf("%s: stdout %q", c.name, out)
		}
	}
}

// Progress (the created message, next steps) only on a terminal with CI
// unset, on the wizard path too.
func TestProgressOnlyOnATerminal(t *testing.T) {
	for _, c := range []struct {
		name       string
		stdout, ci bool
		want       bool
	}{
		{"terminal", true, false, true},
		{"stdout piped", false, false, false},
		{"CI set", true, true, false},
	} {
		ios, _, _, errOut := iostreams.Test()
		ios.SetStdinTTY(true)
		ios.SetStdoutTTY(c.stdout)
		ios.SetStderrTTY(true)
		ios.SetCI(c.ci)
		opts := &Options{IO: ios, WorkingDir: t.TempDir(), Format: "json", Accessible: true,
			Flags: complete(),
			Prompter: func(bool) prompter.Prompter {
				return prompter.NewFake(t, prompter.Answer{Match: "--name", Value: "bot"}, prompter.Answer{Match: ConfirmTitle, Value: prompter.Default})
			},
		}
		opts.Flags.ProjectName = nil
		if err := Run(context.Background(), opts); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.Contains(errOut.String(), "Next steps:"); got != c.want {
			t.Errorf("%s: next steps shown %v, want %v:\n%s", c.name, got, c.want, errOut)
		}
	}
}

func complete() scaffold.Partial {
	p := scaffold.PartialOf(QuickstartConfig("q"))
	p.ClientFramework, p.VideoService = ptr("none"), ptr("")
	return p
}

func TestRunInterruptedWritesNothing(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	wd := t.TempDir()
	name := "bot"
	opts := &Options{IO: ios, WorkingDir: wd, Format: "json", Flags: scaffold.PartialOf(QuickstartConfig(name))}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Run(ctx, opts)
	if !errors.Is(err, context.Canceled) || cmdutil.ExitCode(err) != cmdutil.ExitInterrupted {
		t.Fatalf("err %v exit %d", err, cmdutil.ExitCode(err))
	}
	if _, err := os.Stat(filepath.Join(wd, name)); !os.IsNotExist(err) {
		t.Errorf("project written after interrupt: %v", err)
	}
}

// Two creates of one project at once, many times: one reports the project
// and it is complete; the other exits 2 with one line naming the target.
func TestConcurrentCreatesOfOneTarget(t *testing.T) {
	for round := range 15 {
		wd := t.TempDir()
		cfg := QuickstartConfig("same")
		type result struct {
			err error
			out string
		}
		results := make(chan result, 2)
		for range 2 {
			go func() {
				ios, _, out, _ := iostreams.Test()
				opts := &Options{IO: ios, WorkingDir: wd, Format: "json", Output: "fresh/sub", OutputSet: true, Flags: scaffold.PartialOf(cfg)}
				err := Run(context.Background(), opts)
				results <- result{err, out.String()}
			}()
		}
		target := filepath.Join(wd, "fresh", "sub", "same")
		var won int
		for range 2 {
			r := <-results
			if r.err == nil {
				won++
				if strings.TrimSpace(r.out) != target {
					t.Errorf("winner printed %q", r.out)
				}
				continue
			}
			lines := cmdutil.ErrorLines(r.err)
			if cmdutil.ExitCode(r.err) != cmdutil.ExitUsage || len(lines) != 1 && !strings.Contains(lines[0], "already holds") || !strings.Contains(lines[0], target) {
				t.Errorf("round %d: loser: exit %d, %q", round, cmdutil.ExitCode(r.err), lines)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d winners", round, won)
		}
		g, err := scaffold.NewGenerator()
		if err != nil {
			t.Fatal(err)
		}
		files, err := g.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(target, filepath.FromSlash(f.Path))); err != nil {
				t.Errorf("round %d: the reported project lacks %s", round, f.Path)
			}
		}
	}
}

func TestTargetIsAFile(t *testing.T) {
	wd := t.TempDir()
	if err := os.WriteFile(filepath.Join(wd, "taken"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	opts := &Options{IO: ios, WorkingDir: wd, Format: "json", TargetDir: "taken", Flags: scaffold.PartialOf(QuickstartConfig("taken"))}
	err := Run(context.Background(), opts)
	lines := cmdutil.ErrorLines(err)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], filepath.Join(wd, "taken")+": exists and is not a directory") {
		t.Errorf("exit %d, %q", cmdutil.ExitCode(err), lines)
	}
}

func runConfig(t *testing.T, ctx context.Context, in io.Reader, config string, flags scaffold.Partial) error {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	if in != nil {
		ios.In = in
	}
	opts := &Options{IO: ios, WorkingDir: t.TempDir(), Format: "json", ConfigFile: config, DryRun: true, Flags: flags}
	return Run(ctx, opts)
}

// Config input is capped at 1 MiB (exit 2 naming the limit), even from an
// endless source.
func TestConfigInputCapped(t *testing.T) {
	for _, src := range []string{"/dev/zero", "-"} {
		var in io.Reader
		if src == "-" {
			in = io.MultiReader(strings.NewReader("project_name: "), strings.NewReader(strings.Repeat("a", 3<<20)))
		}
		err := runConfig(t, context.Background(), in, src, scaffold.Partial{})
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "larger than 1 MiB") {
			t.Errorf("%s: exit %d %v", src, cmdutil.ExitCode(err), err)
		}
	}
}

// -c - waiting for input ends at once when interrupted: exit 130.
func TestConfigStdinInterruptible(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runConfig(t, ctx, r, "-", scaffold.Partial{}) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := testenv.Within(t, "reading -c - to end when interrupted", done); cmdutil.ExitCode(err) != cmdutil.ExitInterrupted {
		t.Errorf("exit %d: %v", cmdutil.ExitCode(err), err)
	}
}

// The config file's problems and the flags' are listed together.
func TestConfigAndFlagProblemsTogether(t *testing.T) {
	err := runConfig(t, context.Background(), strings.NewReader("project_name: a\nfoo: 1\n"), "-",
		scaffold.Partial{STTService: ptr("nope_stt"), Transports: []string{"daily"}})
	lines := cmdutil.ErrorLines(err)
	joined := strings.Join(lines, "\n")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(joined, `<stdin>:2: unknown key "foo"`) || !strings.Contains(joined, `--stt (stt_service): unknown stt service "nope_stt"`) {
		t.Errorf("exit %d:\n%s", cmdutil.ExitCode(err), joined)
	}
}

// -o with an output format's name (kubectl's and gh's -o yaml) is refused
// when no directory of that name exists, for every format of pkg/printers;
// ./yaml, or an existing directory yaml, is a directory as asked.
func TestOutputNamedLikeAFormat(t *testing.T) {
	for _, format := range printers.Formats() {
		wd := t.TempDir()
		ios, _, out, _ := iostreams.Test()
		opts := &Options{IO: ios, WorkingDir: wd, Output: format, OutputSet: true, Flags: scaffold.PartialOf(QuickstartConfig("bot"))}
		err := Run(context.Background(), opts)
		var fe *cmdutil.FlagError
		if !errors.As(err, &fe) || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--output ./"+format+" makes a directory") || !strings.Contains(err.Error(), "--dry-run --format") {
			t.Errorf("-o %s: %v (exit %d)", format, err, cmdutil.ExitCode(err))
		}
		if entries, err := os.ReadDir(wd); err != nil || len(entries) != 0 || out.Len() != 0 {
			t.Errorf("-o %s wrote %v (%v), printed %q", format, entries, err, out.String())
		}
	}
	wd := t.TempDir()
	for _, o := range []string{"./yaml", "json"} {
		if o == "json" {
			if err := os.Mkdir(filepath.Join(wd, "json"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		ios, _, _, _ := iostreams.Test()
		opts := &Options{IO: ios, WorkingDir: wd, Output: o, OutputSet: true, Flags: scaffold.PartialOf(QuickstartConfig("bot"))}
		if err := Run(context.Background(), opts); err != nil {
			t.Errorf("-o %s: %v", o, err)
		}
		if _, err := os.Stat(filepath.Join(wd, o, "bot", "server", "bot.py")); err != nil {
			t.Errorf("-o %s: %v", o, err)
		}
	}
}

// The wizard ends with the summary and a confirmation: Enter (the default,
// yes) writes the project; "no" writes nothing and exits 1. --dry-run
// prints the config without asking.
func TestWizardConfirmsBeforeWriting(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer any
		dryRun bool
		code   int
	}{
		{"enter accepts", prompter.Default, false, cmdutil.ExitOK},
		{"no writes nothing", false, false, cmdutil.ExitError},
		{"dry run asks nothing", nil, true, cmdutil.ExitOK},
	} {
		wd := t.TempDir()
		ios, _, out, errOut := iostreams.Test()
		answers := []prompter.Answer{{Match: "--name", Value: "bot"}}
		if c.answer != nil {
			answers = append(answers, prompter.Answer{Match: ConfirmTitle, Value: c.answer})
		}
		fake := prompter.NewFake(t, answers...)
		opts := &Options{IO: ios, WorkingDir: wd, Accessible: true, DryRun: c.dryRun, Flags: complete(),
			Prompter: func(bool) prompter.Prompter { return fake }}
		opts.Flags.ProjectName = nil
		err := Run(context.Background(), opts)
		if cmdutil.ExitCode(err) != c.code {
			t.Fatalf("%s: exit %d (%v)", c.name, cmdutil.ExitCode(err), err)
		}
		_, statErr := os.Stat(filepath.Join(wd, "bot"))
		if written := statErr == nil; written != (c.code == cmdutil.ExitOK && !c.dryRun) {
			t.Errorf("%s: project written %v", c.name, written)
		}
		if c.answer == nil {
			continue
		}
		q := fake.Asked()[len(fake.Asked())-1]
		if q.Kind != "confirm" || q.Default != true {
			t.Errorf("%s: last question %+v, want a confirm defaulting to yes", c.name, q)
		}
		summary := errOut.String()
		for _, want := range []string{"Summary: bot in " + filepath.Join(wd, "bot"), "  stt_service           deepgram_stt (Deepgram)", "Without questions: botkit create --name bot "} {
			if !strings.Contains(summary, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, want, summary)
			}
		}
		if c.code != cmdutil.ExitOK && (out.Len() != 0 || !strings.Contains(err.Error(), "nothing was written")) {
			t.Errorf("%s: stdout %q, error %v", c.name, out.String(), err)
		}
	}
}

// The summary's command makes the same config without questions.
func TestSummaryCommandRecreatesTheConfig(t *testing.T) {
	matrix, err := scaffold.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range matrix {
		ios, _, out, _ := iostreams.Test()
		f := &cmdutil.Factory{IOStreams: ios, Getenv: func(string) string { return "" }, WorkingDir: func() (string, error) { return t.TempDir(), nil }}
		cmd := NewCmdCreate(f, nil)
		cmd.SetArgs(append(cfg.Args(), "--dry-run"))
		cmd.SetOut(ios.Out)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", cfg.Args(), err)
		}
		want, err := cfg.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != string(want) {
			t.Errorf("%v made\n%s\nwant\n%s", cfg.Args(), out, want)
		}
	}
}

// The summary's command names where the project goes, quoted for a shell.
func TestSummaryCommandKeepsTheTarget(t *testing.T) {
	cfg := QuickstartConfig("bot")
	for _, c := range []struct {
		where []string
		want  string
	}{
		{nil, "Without questions: botkit create --name bot "},
		{[]string{"my dir/it's"}, `Without questions: botkit create 'my dir/it'\''s' --name bot `},
		{[]string{"-o", "out/x"}, "Without questions: botkit create -o out/x --name bot "},
	} {
		if got := Summary(cfg, "/d", c.where...); !strings.Contains(got, c.want) {
			t.Errorf("%q: %s", c.where, got)
		}
	}
}

package create

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
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
		{[]string{"--dry-run", "--format", "xml"}, `--format: invalid value "xml"`},
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

func TestRunWithoutTerminalNeverStartsTheWizard(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	called := false
	opts := &Options{IO: ios, WorkingDir: t.TempDir(), Format: "json", Prompter: func(bool) prompter.Prompter {
		called = true
		return prompter.NewFake(t)
	}}
	err := Run(context.Background(), opts)
	if called || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--name or --config") {
		t.Fatalf("called %v err %v", called, err)
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q", out)
	}
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

// Package create implements `botkit create`: scaffolding a Pipecat bot
// project from flags, a config file or the interactive wizard.
package create

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// Options are the inputs of `botkit create`.
type Options struct {
	IO         *iostreams.IOStreams
	WorkingDir string
	Getenv     func(string) string

	TargetDir   string // positional TARGET_DIR ("" when not given)
	Output      string // --output
	OutputSet   bool
	ConfigFile  string           // --config
	Flags       scaffold.Partial // values given on the command line
	DryRun      bool
	Format      string // --format for --dry-run: json | yaml
	ListOptions bool
	Accessible  bool

	// Prompter asks the wizard's questions (the factory's).
	Prompter func(accessible bool) prompter.Prompter
}

// boolFlag is a --x / --no-x pair.
type boolFlag struct {
	name, usage string
	target      func(*scaffold.Partial) **bool
}

func boolFlags() []boolFlag {
	return []boolFlag{
		{"recording", "record conversations to WAV files", func(p *scaffold.Partial) **bool { return &p.Recording }},
		{"transcription", "log conversation transcripts", func(p *scaffold.Partial) **bool { return &p.Transcription }},
		{"video-input", "receive the user's camera (web bots)", func(p *scaffold.Partial) **bool { return &p.VideoInput }},
		{"video-output", "send video (web bots)", func(p *scaffold.Partial) **bool { return &p.VideoOutput }},
		{"deploy-to-cloud", "generate the Dockerfile and cloud deployment config (default true)", func(p *scaffold.Partial) **bool { return &p.DeployToCloud }},
		{"enable-denoise", "Krisp noise cancellation (needs cloud deployment)", func(p *scaffold.Partial) **bool { return &p.EnableDenoise }},
		{"observability", "OpenTelemetry tracing", func(p *scaffold.Partial) **bool { return &p.EnableObservability }},
		{"eval", "eval transport and starter scenarios in server/evals/", func(p *scaffold.Partial) **bool { return &p.Eval }},
	}
}

type stringFlag struct {
	name, short, usage string
	target             func(*scaffold.Partial) **string
}

func stringFlags() []stringFlag {
	return []stringFlag{
		{"name", "n", "project name; makes the command non-interactive", func(p *scaffold.Partial) **string { return &p.ProjectName }},
		{"bot-type", "b", "web or telephony (default: inferred from the transports)", func(p *scaffold.Partial) **string { return &p.BotType }},
		{"mode", "m", "cascade or realtime (default: inferred from the services)", func(p *scaffold.Partial) **string { return &p.Mode }},
		{"stt", "", "speech-to-text service (cascade)", func(p *scaffold.Partial) **string { return &p.STTService }},
		{"llm", "", "LLM service (cascade)", func(p *scaffold.Partial) **string { return &p.LLMService }},
		{"tts", "", "text-to-speech service (cascade)", func(p *scaffold.Partial) **string { return &p.TTSService }},
		{"realtime", "", "realtime speech-to-speech service", func(p *scaffold.Partial) **string { return &p.RealtimeService }},
		{"video", "", "video avatar service (web bots)", func(p *scaffold.Partial) **string { return &p.VideoService }},
		{"client-framework", "", "web client: react, vanilla or none", func(p *scaffold.Partial) **string { return &p.ClientFramework }},
		{"client-server", "", "dev server of the react client: vite (default) or nextjs", func(p *scaffold.Partial) **string { return &p.ClientServer }},
		{"pstn-mode", "", "dial-in or dial-out, for the daily_pstn transport", func(p *scaffold.Partial) **string { return &p.PSTNMode }},
		{"sip-bridge-mode", "", "dial-in or dial-out, for the twilio_daily_sip transport", func(p *scaffold.Partial) **string { return &p.SIPBridgeMode }},
	}
}

// NewCmdCreate returns `botkit create`. runF, when set, replaces the run
// function (tests of flag parsing).
func NewCmdCreate(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Getenv: f.Getenv, Prompter: f.Prompter}
	strVals := map[string]*string{}
	boolVals := map[string]*bool{}
	noVals := map[string]*bool{}
	var transports []string

	cmd := &cobra.Command{
		Use:   "create [TARGET_DIR]",
		Short: "Scaffold a Pipecat voice bot project",
		Long: `Scaffold a voice bot project on the Pipecat framework: a Python server
(server/bot.py, pyproject.toml, .env.example, Dockerfile, deployment config,
eval scenarios) and, for web bots, a browser client.

TARGET_DIR is the exact directory to write ("." is the current directory); the
project name is its base name. Without it, a folder named after --name is
created under --output (default: the current directory).

The command is non-interactive when --name or --config is given, or when a
TARGET_DIR comes with --bot-type or --config. Otherwise it runs a wizard, which
needs a terminal. Flags override the config file, --no-x included.

Valid services and transports: botkit create --list-options`,
		Example: `  # A web bot, no questions asked
  botkit create my-bot -b web -t smallwebrtc --stt deepgram_stt --llm openai_llm --tts cartesia_tts

  # A phone bot answering Twilio calls, with a realtime model
  botkit create --name phone-bot -t twilio --realtime openai_realtime

  # From a config file, overriding one of its values
  botkit create -c bot.yaml --no-deploy-to-cloud

  # Print the resolved config as a manifest that -c reads back
  botkit create -c bot.json --dry-run --format yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.TargetDir = args[0]
			}
			opts.OutputSet = cmd.Flags().Changed("output")
			for _, sf := range stringFlags() {
				if cmd.Flags().Changed(sf.name) {
					v := *strVals[sf.name]
					*sf.target(&opts.Flags) = &v
				}
			}
			if cmd.Flags().Changed("transport") {
				opts.Flags.Transports = splitList(transports)
			}
			for _, bf := range boolFlags() {
				yes, no := cmd.Flags().Changed(bf.name), cmd.Flags().Changed("no-"+bf.name)
				switch {
				case yes && no:
					return cmdutil.UsageErrorf("--%s and --no-%s cannot be used together", bf.name, bf.name)
				case yes:
					v := *boolVals[bf.name]
					*bf.target(&opts.Flags) = &v
				case no:
					v := !*noVals[bf.name]
					*bf.target(&opts.Flags) = &v
				}
			}
			if opts.Format != "json" && opts.Format != "yaml" {
				return cmdutil.UsageErrorf("--format: invalid value %q; valid: json, yaml", opts.Format)
			}
			if cmd.Flags().Changed("format") && !opts.DryRun {
				return cmdutil.UsageErrorf("--format only applies with --dry-run")
			}
			if !opts.Accessible && opts.Getenv != nil && opts.Getenv("ACCESSIBLE") != "" {
				opts.Accessible = true
			}
			wd, err := f.WorkingDir()
			if err != nil {
				return err
			}
			opts.WorkingDir = wd
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVarP(&opts.Output, "output", "o", "", "directory to create the project folder in (default: current directory)")
	for _, sf := range stringFlags() {
		strVals[sf.name] = fl.StringP(sf.name, sf.short, "", sf.usage)
	}
	fl.StringArrayVarP(&transports, "transport", "t", nil, "transport id; repeatable or comma-separated")
	for _, bf := range boolFlags() {
		boolVals[bf.name] = fl.Bool(bf.name, false, bf.usage)
		noVals[bf.name] = fl.Bool("no-"+bf.name, false, "turn off --"+bf.name)
		fl.Lookup("no-" + bf.name).NoOptDefVal = "true"
	}
	fl.StringVarP(&opts.ConfigFile, "config", "c", "", "JSON or YAML config file, or ProjectConfig manifest (- for stdin); makes the command non-interactive")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the resolved config and write nothing")
	fl.StringVar(&opts.Format, "format", "json", "output format of --dry-run: json or yaml (a ProjectConfig manifest)")
	fl.BoolVar(&opts.ListOptions, "list-options", false, "print every valid option value as JSON and exit")
	fl.BoolVar(&opts.Accessible, "accessible", false, "wizard with plain line prompts (also ACCESSIBLE=1)")

	cmd.AddCommand(newCmdQuickstart(f, nil))
	return cmd
}

func splitList(values []string) []string {
	out := []string{}
	for _, v := range values {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// nonInteractive reports whether the values come only from flags and the
// config file (DESIGN §4.1).
func (o *Options) nonInteractive() bool {
	if o.Flags.ProjectName != nil || o.ConfigFile != "" {
		return true
	}
	return o.TargetDir != "" && o.Flags.BotType != nil
}

// Run does the work of `botkit create`.
func Run(ctx context.Context, opts *Options) error {
	if opts.ListOptions {
		return writeJSON(opts.IO.Out, scaffold.ListOptions())
	}
	if opts.TargetDir != "" && opts.OutputSet {
		return cmdutil.UsageErrorf("TARGET_DIR and --output cannot be used together; give one")
	}

	var p scaffold.Partial
	if opts.ConfigFile != "" {
		fp, err := readConfigFile(opts)
		if err != nil {
			return err
		}
		p = fp
	}
	if opts.TargetDir != "" {
		base := baseName(absJoin(opts.WorkingDir, opts.TargetDir))
		p.ProjectName = &base
	}
	p = p.Over(opts.Flags)

	if !opts.nonInteractive() {
		if !opts.IO.CanPrompt() && !opts.Accessible {
			return cmdutil.UsageErrorf("no terminal to run the wizard on: give --name or --config (see botkit create --help)")
		}
		answered, err := RunWizard(ctx, opts.Prompter(opts.Accessible), p)
		if err != nil {
			return err
		}
		p = answered
	}

	cfg := scaffold.Resolve(p)
	if probs := scaffold.Validate(cfg); len(probs) > 0 {
		return cmdutil.Problems(probs)
	}
	if opts.DryRun {
		return printConfig(opts.IO.Out, cfg, opts.Format)
	}
	dir := projectDir(opts, cfg)
	return generate(ctx, opts.IO, cfg, dir, !opts.nonInteractive())
}

// projectDir is where the project goes: TARGET_DIR, or <output>/<name>.
func projectDir(opts *Options, cfg scaffold.Config) string {
	if opts.TargetDir != "" {
		return absJoin(opts.WorkingDir, opts.TargetDir)
	}
	out := opts.Output
	if out == "" {
		out = "."
	}
	return filepath.Join(absJoin(opts.WorkingDir, out), cfg.ProjectName)
}

func absJoin(wd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(wd, p)
}

func generate(ctx context.Context, io *iostreams.IOStreams, cfg scaffold.Config, dir string, wizard bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g, err := scaffold.NewGenerator()
	if err != nil {
		return err
	}
	files, err := g.Generate(cfg)
	if err != nil {
		return err
	}
	if err := scaffold.Write(dir, files); err != nil {
		var conflict *scaffold.ConflictError
		if errors.As(err, &conflict) {
			lines := []string{fmt.Sprintf("%s already holds files the project would write; nothing was written:", conflict.Dir)}
			for _, f := range conflict.Files {
				lines = append(lines, "  "+f)
			}
			return cmdutil.Problems(lines)
		}
		return fmt.Errorf("write project: %w", err)
	}
	fmt.Fprintln(io.Out, dir)
	if wizard || io.ShowProgress() {
		fmt.Fprintf(io.ErrOut, "✓ Created %s (%d files) in %s\n\n%s", cfg.ProjectName, len(files), dir, NextSteps(cfg, dir))
	}
	return nil
}

func readConfigFile(opts *Options) (scaffold.Partial, error) {
	name := opts.ConfigFile
	var data []byte
	var err error
	if name == "-" {
		name = "<stdin>"
		data, err = io.ReadAll(io.LimitReader(opts.IO.In, 1<<20))
	} else {
		data, err = os.ReadFile(absJoin(opts.WorkingDir, name))
	}
	if err != nil {
		return scaffold.Partial{}, cmdutil.UsageErrorf("--config: %v", cleanPathError(err))
	}
	p, err := scaffold.DecodeConfigFile(name, data)
	if err != nil {
		var cfe *scaffold.ConfigFileError
		if errors.As(err, &cfe) {
			return scaffold.Partial{}, cmdutil.Problems(cfe.Problems)
		}
		return scaffold.Partial{}, cmdutil.UsageErrorf("--config: %v", err)
	}
	return p, nil
}

func cleanPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

func printConfig(w io.Writer, cfg scaffold.Config, format string) error {
	var out []byte
	var err error
	if format == "yaml" {
		out, err = cfg.ManifestYAML()
	} else {
		out, err = cfg.JSON()
	}
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func baseName(dir string) string { return filepath.Base(filepath.Clean(dir)) }

// Package create implements `botkit create`: scaffolding a Pipecat bot
// project from flags, a config file or the interactive wizard.
package create

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/agentsguide"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
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

// CmdSummary is what `botkit --help` lists of `botkit create`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var CmdSummary = cmdutil.Summary{
	Use:   "create [TARGET_DIR]",
	Short: "Scaffold a Pipecat voice bot project",
}

// NewCmdCreate returns `botkit create`. runF, when set, replaces the run
// function (tests of flag parsing).
func NewCmdCreate(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Getenv: f.Getenv, Prompter: f.Prompter}
	strVals := map[string]*string{}
	boolVals := map[string]*bool{}
	var listVals []string

	cmd := &cobra.Command{
		Use:   CmdSummary.Use,
		Short: CmdSummary.Short,
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
			for _, f := range scaffold.Fields() {
				switch f.Kind {
				case scaffold.KindString:
					if cmd.Flags().Changed(f.Flag) {
						f.SetString(&opts.Flags, *strVals[f.Flag])
					}
				case scaffold.KindList:
					if cmd.Flags().Changed(f.Flag) {
						f.SetList(&opts.Flags, splitList(listVals))
					}
				case scaffold.KindBool:
					// cmdutil.BoolPair refused --x with --no-x when parsed.
					if cmd.Flags().Changed(f.Flag) || cmd.Flags().Changed("no-"+f.Flag) {
						f.SetBool(&opts.Flags, *boolVals[f.Flag])
					}
				}
			}
			if cmd.Flags().Changed("format") && !opts.DryRun {
				return cmdutil.FlagErrorf("--format only applies with --dry-run")
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
	fl.SetNormalizeFunc(pipecatFlagNames)
	fl.StringVarP(&opts.Output, "output", "o", "", "directory to create the project folder in (default: current directory)")
	for _, f := range scaffold.Fields() {
		switch f.Kind {
		case scaffold.KindString:
			strVals[f.Flag] = fl.StringP(f.Flag, f.Short, "", f.Usage)
		case scaffold.KindList:
			fl.StringArrayVarP(&listVals, f.Flag, f.Short, nil, f.Usage)
		case scaffold.KindBool:
			boolVals[f.Flag] = new(bool)
			cmdutil.BoolPair(fl, boolVals[f.Flag], f.Flag, f.Short, false, f.Usage)
		}
	}
	for _, f := range scaffold.Fields() {
		if scaffold.Enumerated(f.Key) {
			_ = cmd.RegisterFlagCompletionFunc(f.Flag, completeKey(f.Key))
		}
	}
	fl.StringVarP(&opts.ConfigFile, "config", "c", "", "JSON or YAML config file, or ProjectConfig manifest (- for stdin); makes the command non-interactive")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the resolved config and write nothing")
	cmdutil.EnumFlag(cmd, &opts.Format, "format", "", "json", dryRunFormats, "output format of --dry-run (yaml: a ProjectConfig manifest)")
	fl.BoolVar(&opts.ListOptions, "list-options", false, "print every valid option value as JSON and exit")
	fl.BoolVar(&opts.Accessible, "accessible", false, "wizard with plain line prompts (also ACCESSIBLE=1)")

	cmd.AddCommand(newCmdQuickstart(f, nil))
	return cmd
}

// pipecatInitFlags are `pipecat init`'s names of the flags botkit spells
// otherwise (docs/create.md has the whole table): accepted as they are.
var pipecatInitFlags = map[string]string{
	"daily-pstn-mode":       "pstn-mode",
	"twilio-daily-sip-mode": "sip-bridge-mode",
	"enable-krisp":          "enable-denoise",
	"no-enable-krisp":       "no-enable-denoise",
}

// pipecatFlagNames is create's flag name normalization: pipecat init's
// names stand for botkit's.
func pipecatFlagNames(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := pipecatInitFlags[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// completeKey completes the flag of config key with the values
// scaffold.KeyValues lists (the catalogue's ids, described by their labels,
// and the other enumerations), never with file names. --transport's
// comma-separated list completes its last item and leaves out the ids
// already in it.
func completeKey(key string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		prefix, word := "", toComplete
		if key == "transports" {
			if i := strings.LastIndex(toComplete, ","); i >= 0 {
				prefix, word = toComplete[:i+1], toComplete[i+1:]
			}
		}
		given := strings.Split(prefix, ",")
		var out []cobra.Completion
		for _, v := range scaffold.KeyValues(key) {
			if !strings.HasPrefix(v, word) || slices.Contains(given, v) {
				continue
			}
			label := ""
			if s, ok := scaffold.LookupService(v); ok && key != "transports" {
				label = s.Label
			} else if t, ok := scaffold.LookupTransport(v); ok && key == "transports" {
				label = t.Label
			}
			if label == "" {
				out = append(out, prefix+v)
			} else {
				out = append(out, cobra.CompletionWithDesc(prefix+v, label))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
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
// config file (docs/create.md).
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
	if err := checkOutputNotFormat(opts); err != nil {
		return err
	}

	var p scaffold.Partial
	var fileProblems []string
	if opts.ConfigFile != "" {
		fp, err := readConfigFile(ctx, opts)
		var cfe *scaffold.ConfigFileError
		switch {
		case errors.As(err, &cfe):
			// Reported with the other problems of the command line.
			fileProblems = cfe.Problems
		case err != nil:
			return err
		}
		for _, r := range scaffold.RenameAliases(&fp) {
			if !scaffold.FrameworkName(r.Old) { // the framework's own names are no earlier ids
				fmt.Fprintf(opts.IO.ErrOut, "note: %s: %s %s is now %s\n", configFileName(opts), r.Field.Key, r.Old, r.New)
			}
		}
		p = fp
	}
	flags := opts.Flags
	for _, r := range scaffold.RenameAliases(&flags) {
		if !scaffold.FrameworkName(r.Old) {
			fmt.Fprintf(opts.IO.ErrOut, "note: %s %s is now %s\n", r.Field.FlagName(), r.Old, r.New)
		}
	}
	if opts.TargetDir != "" {
		base := baseName(absJoin(opts.WorkingDir, opts.TargetDir))
		p.ProjectName = &base
	}
	p = p.Over(flags)
	if len(fileProblems) > 0 {
		// Every problem at once: the file's, and those of the flags and
		// what the file did give (missing values aside: the file may have
		// been meant to give them).
		probs := fileProblems
		for _, pr := range scaffold.Check(scaffold.Resolve(p)) {
			if !pr.Missing {
				probs = append(probs, pr.Message)
			}
		}
		return cmdutil.Problems(probs)
	}

	var wz *Wizard // the wizard that asked, if one did
	if !opts.nonInteractive() {
		// --accessible asks for line prompts whatever the streams (screen
		// readers, scripted answers); otherwise only on a terminal.
		if !opts.IO.CanPrompt() && !opts.Accessible {
			return cmdutil.UsageErrorf("no terminal to run the wizard on: give --name or --config (see botkit create --help)")
		}
		wz = &Wizard{
			Prompter: opts.Prompter(opts.Accessible),
			ErrOut:   opts.IO.ErrOut,
			Target:   func(name string) string { return projectDir(opts, name) },
		}
		switch {
		case opts.TargetDir != "":
			wz.Where = []string{opts.TargetDir}
		case opts.OutputSet:
			wz.Where = []string{"-o", opts.Output}
		}
		answered, err := wz.Run(ctx, p)
		if err != nil {
			return err
		}
		p = answered
	}

	cfg := scaffold.Resolve(p)
	if probs := scaffold.Validate(cfg); len(probs) > 0 {
		return cmdutil.Problems(probs)
	}
	for _, s := range scaffold.DeprecatedServices(cfg) {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s (%s): %s\n", s.ID, s.Label, s.Deprecated)
	}
	if opts.DryRun {
		if err := cmdutil.CheckEnum("format", cmp.Or(opts.Format, "json"), dryRunFormats); err != nil {
			return err
		}
		return printConfig(opts.IO.Out, cfg, opts.Format)
	}
	dir := projectDir(opts, cfg.ProjectName)
	if wz != nil {
		// The wizard's answers are shown whole before anything is
		// written (--dry-run prints them instead).
		if err := wz.Confirm(ctx, cfg, dir); err != nil {
			return err
		}
	}
	return generate(ctx, opts.IO, cfg, dir)
}

// checkOutputNotFormat refuses -o yaml (json, wide, name...: the name of
// an output format of the other commands, pkg/printers) when no directory
// of that name exists: out of habit (kubectl, gh) the user most likely
// wanted the config printed, and create would quietly make ./yaml/<name>.
// An existing directory, or ./yaml, is taken as asked.
func checkOutputNotFormat(opts *Options) error {
	if !opts.OutputSet {
		return nil
	}
	format, _, _ := strings.Cut(opts.Output, "=") // go-template=…
	if !slices.Contains(printers.Formats(), format) {
		return nil
	}
	if fi, err := os.Stat(absJoin(opts.WorkingDir, opts.Output)); err == nil && fi.IsDir() {
		return nil
	}
	print := "yaml"
	if slices.Contains(dryRunFormats, format) {
		print = format
	}
	return cmdutil.FlagErrorf("--output %q: create's --output is the directory the project goes in, and %q is an output format; --output ./%s makes a directory of that name, --dry-run --format %s prints the config", opts.Output, format, opts.Output, print)
}

// projectDir is where the project goes: TARGET_DIR, or <output>/<name>.
func projectDir(opts *Options, name string) string {
	if opts.TargetDir != "" {
		return absJoin(opts.WorkingDir, opts.TargetDir)
	}
	out := opts.Output
	if out == "" {
		out = "."
	}
	return filepath.Join(absJoin(opts.WorkingDir, out), name)
}

func absJoin(wd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(wd, p)
}

func generate(ctx context.Context, io *iostreams.IOStreams, cfg scaffold.Config, dir string) error {
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
	if cfg.AgentsGuide {
		files = append(files, agentsguide.ForProject(cfg.ProjectName, files, cmdutil.BuildVersion())...)
	}
	if err := scaffold.Write(dir, files); err != nil {
		var conflict *scaffold.ConflictError
		if errors.As(err, &conflict) {
			// One error line, then the files as they are: a list to read
			// (or paste), not one error per file.
			files := make([]string, len(conflict.Files))
			for i, f := range conflict.Files {
				files[i] = "  " + f
			}
			return cmdutil.UsageErrorDetails(files, "%s already holds files the project would write; nothing was written:", conflict.Dir)
		}
		var te *scaffold.TargetError
		if errors.As(err, &te) {
			return cmdutil.UsageErrorf("%v", te)
		}
		return fmt.Errorf("write project: %w", err)
	}
	fmt.Fprintln(io.Out, dir)
	if io.ShowProgress() {
		fmt.Fprintf(io.ErrOut, "✓ Created %s (%s) in %s\n\n%s", cfg.ProjectName, resources.Plural(len(files), "file"), dir, scaffold.NextSteps(cfg, dir))
	}
	return nil
}

// readConfigFile reads and decodes --config: at most scaffold.MaxConfigSize
// bytes, and interruptible (Ctrl-C, SIGTERM) while it waits for input, as
// with -c - on a terminal or a FIFO nobody writes to.
// configFileName is the --config file as messages name it.
func configFileName(opts *Options) string {
	if opts.ConfigFile == "-" {
		return "<stdin>"
	}
	return opts.ConfigFile
}

func readConfigFile(ctx context.Context, opts *Options) (scaffold.Partial, error) {
	name := configFileName(opts)
	var data []byte
	var err error
	if opts.ConfigFile == "-" {
		data, err = ctxio.ReadAll(ctx, opts.IO.In, scaffold.MaxConfigSize)
	} else {
		data, err = ctxio.ReadFile(ctx, absJoin(opts.WorkingDir, name), scaffold.MaxConfigSize)
	}
	if err != nil && ctx.Err() != nil {
		// The read stays blocked; the process is ending.
		return scaffold.Partial{}, fmt.Errorf("--config: interrupted while reading %s: %w", name, ctx.Err())
	}
	if err != nil {
		return scaffold.Partial{}, cmdutil.UsageErrorf("--config: %v", cleanPathError(err))
	}
	if len(data) > scaffold.MaxConfigSize {
		return scaffold.Partial{}, cmdutil.UsageErrorf("--config: %s is larger than 1 MiB (%d bytes), the limit of a config file", name, scaffold.MaxConfigSize)
	}
	return scaffold.DecodeConfigFile(name, data)
}

func cleanPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// dryRunFormats are --format's values.
var dryRunFormats = []string{"json", "yaml"}

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

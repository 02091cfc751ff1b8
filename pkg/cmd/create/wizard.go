package create

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// Defaults the wizard offers: together they make a bot that runs as is.
const (
	defaultProjectName = "pipecat-bot"
	defaultSTT         = "deepgram_stt"
	defaultLLM         = "openai_llm"
	defaultTTS         = "cartesia_tts"
	defaultRealtime    = "openai_realtime"
	defaultWebTrans    = "smallwebrtc"
	defaultPhoneTrans  = "twilio"
)

// Choices of the combined bot type and client question.
const (
	kindPhone       = "telephony"
	kindReactVite   = "web-react-vite"
	kindReactNextJS = "web-react-nextjs"
	kindVanilla     = "web-vanilla"
	kindMobile      = "web-none"
)

// Wizard asks the questions of `botkit create` (docs/create.md) that the flags
// and config file leave open.
type Wizard struct {
	// Prompter asks; the wizard uses nothing else to talk to the user,
	// except ErrOut for the problems an answer causes.
	Prompter prompter.Prompter
	ErrOut   io.Writer
	// Target returns the directory a project of that name is written to;
	// nil skips the checks of the target.
	Target func(name string) string
	// Where are the arguments that placed the project (TARGET_DIR, or -o
	// DIR), repeated by the summary's command.
	Where []string
}

// RunWizard runs a Wizard with p and no target checks.
func RunWizard(ctx context.Context, p prompter.Prompter, errOut io.Writer, given scaffold.Partial) (scaffold.Partial, error) {
	return Wizard{Prompter: p, ErrOut: errOut}.Run(ctx, given)
}

// Run asks the open questions, in order, and returns given completed with
// the answers. Every answer is a value the matching flag accepts, so the
// result resolves and validates like a command line would.
//
// What scaffold.Undecided reports decides which questions are asked. A
// contradiction among the given values is reported before any question; an
// answer that contradicts a given value (or an earlier answer) is reported
// at once and its question asked again. A target that already holds a
// project is reported at the project name question, or before any question
// when the name is given.
//
// Interrupting (Ctrl-C, or ctx cancelled) returns an error that exits 130.
// Input that ends before every question is answered returns an error
// (exit 2) naming the flag that answers the open question.
func (wz Wizard) Run(ctx context.Context, given scaffold.Partial) (scaffold.Partial, error) {
	if err := ctx.Err(); err != nil {
		return given, err
	}
	if probs := given.Contradictions(); len(probs) > 0 {
		return given, problemsError(probs)
	}
	w := &wizard{ask: wz.Prompter.WithContext(ctx), target: wz.Target}
	if given.ProjectName != nil {
		if err := w.checkTarget(*given.ProjectName); err != nil {
			return given, cmdutil.UsageErrorf("%v", err)
		}
	}
	errOut := wz.ErrOut
	if errOut == nil {
		errOut = io.Discard
	}
	part := given
	steps := []func(*scaffold.Partial) error{
		w.askName,
		w.askBotType,
		w.askTransports,
		w.askDialModes,
		w.askMode,
		w.askServices,
		w.askFeatures,
		w.askDeployment,
	}
	for _, step := range steps {
		for {
			before := part
			if err := step(&part); err != nil {
				return given, err
			}
			probs := part.Contradictions()
			if len(probs) == 0 {
				break
			}
			// Nothing contradicted before this question: its answer did.
			for _, pr := range probs {
				fmt.Fprintf(errOut, "✗ %s\n", pr.Message)
			}
			fmt.Fprintln(errOut, "Choose again.")
			part = before
		}
	}
	return part, nil
}

func problemsError(probs []scaffold.Problem) error {
	msgs := make([]string, len(probs))
	for i, p := range probs {
		msgs[i] = p.Message
	}
	return cmdutil.Problems(msgs)
}

// wizard asks one question at a time, so each question can depend on the
// answers before it.
type wizard struct {
	ask    prompter.Prompter
	target func(name string) string
}

func open(p *scaffold.Partial, key string) bool { return scaffold.IsUndecided(*p, key) }

// checkTarget refuses a target that cannot take a project: not a
// directory, or already holding files every project writes.
func (w *wizard) checkTarget(name string) error {
	if w.target == nil || scaffold.ValidateProjectName(name) != nil {
		return nil
	}
	dir := w.target(name)
	if err := scaffold.CheckTarget(dir); err != nil {
		return err
	}
	if c := scaffold.Conflicts(dir, scaffold.CommonFiles()); len(c) > 0 {
		return fmt.Errorf("%s already holds %s; choose another name or directory", dir, strings.Join(c, ", "))
	}
	return nil
}

func (w *wizard) askName(p *scaffold.Partial) error {
	if !open(p, "project_name") {
		return nil
	}
	name, err := w.ask.Input("Project name", "--name", defaultProjectName, func(s string) error {
		if err := scaffold.ValidateProjectName(s); err != nil {
			return err
		}
		return w.checkTarget(s)
	})
	if err != nil {
		return err
	}
	p.ProjectName = &name
	return nil
}

func (w *wizard) askBotType(p *scaffold.Partial) error {
	web := []prompter.Option{
		opt("Web — React + Vite", kindReactVite),
		opt("Web — React + Next.js", kindReactNextJS),
		opt("Web — plain JavaScript", kindVanilla),
		opt("Mobile (web bot, no generated client)", kindMobile),
	}
	var opts []prompter.Option
	title, flag := "Bot type and client", "--bot-type and --client-framework"
	switch {
	case open(p, "bot_type"):
		opts = append([]prompter.Option{opt("Phone (telephony)", kindPhone)}, web...)
	case open(p, "client_framework"):
		opts, title, flag = web, "Client", "--client-framework"
	default:
		return nil
	}
	kind, err := w.ask.Select(title, flag, kindReactVite, opts)
	if err != nil {
		return err
	}
	set := func(dst **string, v string) {
		if *dst == nil && v != "" {
			*dst = &v
		}
	}
	var bt, framework, server string
	switch kind {
	case kindPhone:
		bt = "telephony"
	case kindReactVite:
		bt, framework, server = "web", "react", "vite"
	case kindReactNextJS:
		bt, framework, server = "web", "react", "nextjs"
	case kindVanilla:
		bt, framework = "web", "vanilla"
	case kindMobile:
		bt, framework = "web", "none"
	}
	set(&p.BotType, bt)
	set(&p.ClientFramework, framework)
	set(&p.ClientServer, server)
	return nil
}

// transportOptions lists the transports of a kind a user picks from: the
// listed variants stand for a base transport plus a mode, which the wizard
// asks separately. note is added to each label.
func transportOptions(kind scaffold.TransportKind, note string) []prompter.Option {
	var opts []prompter.Option
	for _, t := range scaffold.Transports() {
		if t.Kind != kind || t.VariantOf != "" {
			continue
		}
		opts = append(opts, opt(fmt.Sprintf("%s%s (%s)", t.Label, note, t.ID), t.ID))
	}
	return opts
}

func (w *wizard) askTransports(p *scaffold.Partial) error {
	if !open(p, "transports") {
		return nil
	}
	title, def := "Transport providers", defaultWebTrans
	opts := transportOptions(scaffold.TransportWeb, "")
	if scaffold.BotTypeOf(*p) == "telephony" {
		// Phone bots may add a web transport to try the bot in a browser.
		title, def = "Telephony providers (add a web transport to test in the browser)", defaultPhoneTrans
		opts = append(transportOptions(scaffold.TransportTelephony, ""), transportOptions(scaffold.TransportWeb, ", for local testing")...)
	}
	chosen, err := w.ask.MultiSelect(title, "--transport", []string{def}, opts, true)
	if err != nil {
		return err
	}
	p.Transports = chosen
	return nil
}

func (w *wizard) askDialModes(p *scaffold.Partial) error {
	opts := []prompter.Option{
		opt("Dial-in (people call the bot)", "dial-in"),
		opt("Dial-out (the bot places calls)", "dial-out"),
	}
	if open(p, "pstn_mode") {
		mode, err := w.ask.Select("Daily PSTN: dial-in or dial-out", "--pstn-mode", "dial-in", opts)
		if err != nil {
			return err
		}
		p.PSTNMode = &mode
	}
	if open(p, "sip_bridge_mode") {
		mode, err := w.ask.Select("Twilio + Daily SIP: dial-in or dial-out", "--sip-bridge-mode", "dial-in", opts)
		if err != nil {
			return err
		}
		p.SIPBridgeMode = &mode
	}
	return nil
}

func (w *wizard) askMode(p *scaffold.Partial) error {
	if !open(p, "mode") {
		return nil
	}
	opts := []prompter.Option{
		opt("Cascade (separate STT → LLM → TTS services)", "cascade"),
		opt("Realtime (one speech-to-speech service)", "realtime"),
	}
	m, err := w.ask.Select("Pipeline mode", "--mode", "cascade", opts)
	if err != nil {
		return err
	}
	p.Mode = &m
	return nil
}

// serviceOptions lists a category's services as "Label (id)".
func serviceOptions(c scaffold.Category) []prompter.Option {
	var opts []prompter.Option
	for _, s := range scaffold.ServicesIn(c) {
		opts = append(opts, opt(fmt.Sprintf("%s (%s)", s.Label, s.ID), s.ID))
	}
	return opts
}

func (w *wizard) askService(p *scaffold.Partial, key string, dst **string, c scaffold.Category, title, flag, def string) error {
	if !open(p, key) {
		return nil
	}
	id, err := w.ask.Select(title, flag, def, serviceOptions(c))
	if err != nil {
		return err
	}
	*dst = &id
	return nil
}

func (w *wizard) askServices(p *scaffold.Partial) error {
	if err := w.askService(p, "realtime_service", &p.RealtimeService, scaffold.CategoryRealtime, "Realtime service", "--realtime", defaultRealtime); err != nil {
		return err
	}
	if err := w.askService(p, "stt_service", &p.STTService, scaffold.CategorySTT, "Speech-to-text (STT) service", "--stt", defaultSTT); err != nil {
		return err
	}
	if err := w.askService(p, "llm_service", &p.LLMService, scaffold.CategoryLLM, "LLM service", "--llm", defaultLLM); err != nil {
		return err
	}
	return w.askService(p, "tts_service", &p.TTSService, scaffold.CategoryTTS, "Text-to-speech (TTS) service", "--tts", defaultTTS)
}

func (w *wizard) askFeatures(p *scaffold.Partial) error {
	type feature struct {
		key, label string
		dst        **bool // nil for the video avatar
	}
	all := []feature{
		{"recording", "Call recording", &p.Recording},
		{"transcription", "Transcription log", &p.Transcription},
		{"video_service", "Video avatar", nil},
		{"video_input", "Video input (user's camera)", &p.VideoInput},
		{"video_output", "Video output", &p.VideoOutput},
		{"enable_observability", "Observability (OpenTelemetry tracing)", &p.EnableObservability},
		{"eval", "Evals", &p.Eval},
	}
	var asked []feature
	var opts []prompter.Option
	var flags []string
	for _, f := range all {
		if !open(p, f.key) {
			continue
		}
		asked = append(asked, f)
		opts = append(opts, opt(f.label, f.key))
		field, _ := scaffold.LookupField(f.key)
		flags = append(flags, field.FlagName())
	}
	if len(asked) == 0 {
		return nil
	}
	chosen, err := w.ask.MultiSelect("Optional features", strings.Join(flags, ", "), nil, opts, false)
	if err != nil {
		return err
	}
	avatar := false
	for _, f := range asked {
		on := slices.Contains(chosen, f.key)
		if f.dst == nil {
			avatar = on
			continue
		}
		*f.dst = &on
	}
	if !avatar {
		return nil
	}
	if err := w.askService(p, "video_service", &p.VideoService, scaffold.CategoryVideo, "Video avatar service", "--video", ""); err != nil {
		return err
	}
	on := true // an avatar is video output
	p.VideoOutput = &on
	return nil
}

func (w *wizard) askDeployment(p *scaffold.Partial) error {
	if open(p, "deploy_to_cloud") {
		opts := []prompter.Option{
			opt("Cloud (adds a Dockerfile and a deploy config)", "cloud"),
			opt("Local only", "local"),
		}
		target, err := w.ask.Select("Deployment target", "--deploy-to-cloud or --no-deploy-to-cloud", "cloud", opts)
		if err != nil {
			return err
		}
		cloud := target == "cloud"
		p.DeployToCloud = &cloud
	}
	if !open(p, "enable_denoise") {
		return nil
	}
	denoise, err := w.ask.Confirm("Enable noise cancellation (Krisp, in the cloud only)?", "--enable-denoise or --no-enable-denoise", false)
	if err != nil {
		return err
	}
	p.EnableDenoise = &denoise
	return nil
}

func opt(label, value string) prompter.Option { return prompter.Option{Value: value, Label: label} }

// ConfirmTitle is the wizard's last question, after the summary.
const ConfirmTitle = "Create the project?"

// Confirm ends the wizard: it shows the summary of cfg (Summary) and asks
// whether to write the project to dir; Enter accepts. A "no" writes
// nothing and returns an error that exits 1, as every declined
// confirmation of botkit does (docs/design-decisions.md); Ctrl-C exits 130
// as at any question.
func (wz Wizard) Confirm(ctx context.Context, cfg scaffold.Config, dir string) error {
	errOut := wz.ErrOut
	if errOut == nil {
		errOut = io.Discard
	}
	fmt.Fprint(errOut, Summary(cfg, dir, wz.Where...))
	ok, err := wz.Prompter.WithContext(ctx).Confirm(ConfirmTitle, "--name", true)
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.WithCode(cmdutil.ExitError, errors.New("cancelled: nothing was written"))
	}
	return nil
}

// Summary lists what the project will be, one config key a line (the keys
// of --dry-run and config files; services with their labels, bools as
// yes/no, unset values left out), and the command that makes the same
// project without questions: where (TARGET_DIR, or -o DIR) and the flags
// of cfg, quoted for a POSIX shell where needed.
func Summary(cfg scaffold.Config, dir string, where ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nSummary: %s in %s\n", cfg.ProjectName, dir)
	for _, f := range scaffold.Fields() {
		v := f.ValueIn(cfg)
		switch {
		case f.Key == "project_name" || v == "":
			continue
		case f.Kind == scaffold.KindBool && v == "true":
			v = "yes"
		case f.Kind == scaffold.KindBool:
			v = "no"
		case f.Kind == scaffold.KindList:
			v = strings.ReplaceAll(v, ",", ", ")
		default:
			if s, ok := scaffold.LookupService(v); ok {
				v = fmt.Sprintf("%s (%s)", v, s.Label)
			}
		}
		fmt.Fprintf(&b, "  %-21s %s\n", f.Key, v)
	}
	args := append(slices.Clone(where), cfg.Args()...)
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	fmt.Fprintf(&b, "Without questions: botkit create %s\n\n", strings.Join(args, " "))
	return b.String()
}

var shellSafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./,:=@%+-]+$`) })

// shellQuote returns s as one word of a POSIX shell.
func shellQuote(s string) string {
	if shellSafe().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

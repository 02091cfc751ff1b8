package create

import (
	"context"
	"fmt"
	"slices"
	"strings"

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

// Optional features of the features question.
const (
	featRecording     = "recording"
	featTranscription = "transcription"
	featVideoAvatar   = "video-avatar"
	featVideoInput    = "video-input"
	featVideoOutput   = "video-output"
	featObservability = "observability"
	featEval          = "eval"
)

// RunWizard asks the questions of `botkit create` (DESIGN §4.1) that given
// leaves open, through p, and returns given completed with the answers.
// Every answer is a value the matching flag accepts, so the result resolves
// and validates like a command line would.
//
// Interrupting (Ctrl-C, or ctx cancelled) returns an error that exits 130.
// Input that ends before every question is answered returns an error
// (exit 2) naming the flag that answers the open question.
func RunWizard(ctx context.Context, p prompter.Prompter, given scaffold.Partial) (scaffold.Partial, error) {
	w := &wizard{ask: p.WithContext(ctx)}
	if err := ctx.Err(); err != nil {
		return given, err
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
		if err := step(&part); err != nil {
			return given, err
		}
	}
	return part, nil
}

// wizard asks one question at a time, so each question can depend on the
// answers before it.
type wizard struct {
	ask prompter.Prompter
}

// selectOne asks to pick one of opts; value holds the default on entry and
// the answer on return.
func (w *wizard) selectOne(title, flag string, opts []prompter.Option, value *string) error {
	v, err := w.ask.Select(title, flag, *value, opts)
	if err != nil {
		return err
	}
	*value = v
	return nil
}

// selectMany asks to pick any of opts; values holds the preselected values
// on entry and the answer on return. atLeastOne refuses an empty answer.
func (w *wizard) selectMany(title, flag string, opts []prompter.Option, values *[]string, atLeastOne bool) error {
	v, err := w.ask.MultiSelect(title, flag, *values, opts, atLeastOne)
	if err != nil {
		return err
	}
	*values = v
	return nil
}

func (w *wizard) askName(p *scaffold.Partial) error {
	if p.ProjectName != nil {
		return nil
	}
	name, err := w.ask.Input("Project name", "--name", defaultProjectName, scaffold.ValidateProjectName)
	if err != nil {
		return err
	}
	p.ProjectName = &name
	return nil
}

// botType returns the bot type that given settings decide, or "" when the
// wizard must ask.
func botType(p *scaffold.Partial) string {
	if p.BotType != nil {
		return *p.BotType
	}
	if len(p.Transports) > 0 {
		for _, id := range p.Transports {
			if t, ok := scaffold.LookupTransport(id); ok && t.Kind == scaffold.TransportTelephony {
				return "telephony"
			}
		}
		return "web"
	}
	if p.ClientFramework != nil || p.ClientServer != nil || p.VideoService != nil ||
		isTrue(p.VideoInput) || isTrue(p.VideoOutput) {
		return "web"
	}
	return ""
}

func isTrue(b *bool) bool { return b != nil && *b }

func (w *wizard) askBotType(p *scaffold.Partial) error {
	web := []prompter.Option{
		opt("Web — React + Vite", kindReactVite),
		opt("Web — React + Next.js", kindReactNextJS),
		opt("Web — plain JavaScript", kindVanilla),
		opt("Mobile (web bot, no generated client)", kindMobile),
	}
	var opts []prompter.Option
	title, flag := "Bot type and client", "--bot-type and --client-framework"
	switch botType(p) {
	case "":
		opts = append([]prompter.Option{opt("Phone (telephony)", kindPhone)}, web...)
	case "web":
		if p.ClientFramework != nil {
			return nil
		}
		opts, title, flag = web, "Client", "--client-framework"
	default:
		return nil // telephony bots have no client
	}
	kind := kindReactVite
	if err := w.selectOne(title, flag, opts, &kind); err != nil {
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
// asks separately.
func transportOptions(kind scaffold.TransportKind) []prompter.Option {
	var opts []prompter.Option
	for _, t := range scaffold.Transports() {
		if t.Kind != kind || t.VariantOf != "" {
			continue
		}
		opts = append(opts, opt(fmt.Sprintf("%s (%s)", t.Label, t.ID), t.ID))
	}
	return opts
}

func (w *wizard) askTransports(p *scaffold.Partial) error {
	if p.Transports != nil {
		return nil
	}
	kind, def := scaffold.TransportWeb, defaultWebTrans
	if botType(p) == "telephony" {
		kind, def = scaffold.TransportTelephony, defaultPhoneTrans
	}
	opts := transportOptions(kind)
	var chosen []string
	if slices.ContainsFunc(opts, func(o prompter.Option) bool { return o.Value == def }) {
		chosen = []string{def}
	}
	title := "Transport providers"
	if kind == scaffold.TransportTelephony {
		title = "Telephony providers"
	}
	if err := w.selectMany(title, "--transport", opts, &chosen, true); err != nil {
		return err
	}
	p.Transports = chosen
	return nil
}

func (w *wizard) askDialModes(p *scaffold.Partial) error {
	var pstn, sip bool
	for _, id := range p.Transports {
		if t, ok := scaffold.LookupTransport(id); ok {
			pstn = pstn || t.NeedsMode == "pstn"
			sip = sip || t.NeedsMode == "sip"
		}
	}
	opts := []prompter.Option{
		opt("Dial-in (people call the bot)", "dial-in"),
		opt("Dial-out (the bot places calls)", "dial-out"),
	}
	if pstn && p.PSTNMode == nil {
		mode := "dial-in"
		if err := w.selectOne("Daily PSTN: dial-in or dial-out", "--pstn-mode", opts, &mode); err != nil {
			return err
		}
		p.PSTNMode = &mode
	}
	if sip && p.SIPBridgeMode == nil {
		mode := "dial-in"
		if err := w.selectOne("Twilio + Daily SIP: dial-in or dial-out", "--sip-bridge-mode", opts, &mode); err != nil {
			return err
		}
		p.SIPBridgeMode = &mode
	}
	return nil
}

// mode returns the pipeline mode given settings decide, or "".
func mode(p *scaffold.Partial) string {
	switch {
	case p.Mode != nil:
		return *p.Mode
	case p.STTService != nil || p.LLMService != nil || p.TTSService != nil:
		return "cascade"
	case p.RealtimeService != nil:
		return "realtime"
	}
	return ""
}

func (w *wizard) askMode(p *scaffold.Partial) error {
	if mode(p) != "" {
		return nil
	}
	m := "cascade"
	opts := []prompter.Option{
		opt("Cascade (separate STT → LLM → TTS services)", "cascade"),
		opt("Realtime (one speech-to-speech service)", "realtime"),
	}
	if err := w.selectOne("Pipeline mode", "--mode", opts, &m); err != nil {
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

func (w *wizard) askService(dst **string, c scaffold.Category, title, flag, def string) error {
	if *dst != nil {
		return nil
	}
	id := def
	if err := w.selectOne(title, flag, serviceOptions(c), &id); err != nil {
		return err
	}
	*dst = &id
	return nil
}

func (w *wizard) askServices(p *scaffold.Partial) error {
	if mode(p) == "realtime" {
		return w.askService(&p.RealtimeService, scaffold.CategoryRealtime, "Realtime service", "--realtime", defaultRealtime)
	}
	if err := w.askService(&p.STTService, scaffold.CategorySTT, "Speech-to-text (STT) service", "--stt", defaultSTT); err != nil {
		return err
	}
	if err := w.askService(&p.LLMService, scaffold.CategoryLLM, "LLM service", "--llm", defaultLLM); err != nil {
		return err
	}
	return w.askService(&p.TTSService, scaffold.CategoryTTS, "Text-to-speech (TTS) service", "--tts", defaultTTS)
}

func (w *wizard) askFeatures(p *scaffold.Partial) error {
	web := botType(p) != "telephony"
	type feature struct {
		key, label, flag string
		dst              **bool // nil for the video avatar
		webOnly          bool
	}
	all := []feature{
		{featRecording, "Call recording", "--recording", &p.Recording, false},
		{featTranscription, "Transcription log", "--transcription", &p.Transcription, false},
		{featVideoAvatar, "Video avatar", "--video", nil, true},
		{featVideoInput, "Video input (user's camera)", "--video-input", &p.VideoInput, true},
		{featVideoOutput, "Video output", "--video-output", &p.VideoOutput, true},
		{featObservability, "Observability (OpenTelemetry tracing)", "--observability", &p.EnableObservability, false},
		{featEval, "Evals", "--eval", &p.Eval, false},
	}
	var asked []feature
	var opts []prompter.Option
	var flags []string
	for _, f := range all {
		if f.webOnly && !web {
			continue
		}
		if (f.dst != nil && *f.dst != nil) || (f.dst == nil && p.VideoService != nil) {
			continue
		}
		asked = append(asked, f)
		opts = append(opts, opt(f.label, f.key))
		flags = append(flags, f.flag)
	}
	if len(asked) == 0 {
		return nil
	}
	chosen := []string{}
	if err := w.selectMany("Optional features", strings.Join(flags, ", "), opts, &chosen, false); err != nil {
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
	if avatar {
		return w.askService(&p.VideoService, scaffold.CategoryVideo, "Video avatar service", "--video", "")
	}
	return nil
}

func (w *wizard) askDeployment(p *scaffold.Partial) error {
	if p.DeployToCloud == nil {
		target := "cloud"
		opts := []prompter.Option{
			opt("Cloud (adds a Dockerfile and a deploy config)", "cloud"),
			opt("Local only", "local"),
		}
		if err := w.selectOne("Deployment target", "--deploy-to-cloud or --no-deploy-to-cloud", opts, &target); err != nil {
			return err
		}
		cloud := target == "cloud"
		p.DeployToCloud = &cloud
	}
	if !*p.DeployToCloud || p.EnableDenoise != nil {
		return nil
	}
	denoise, err := w.ask.Confirm("Enable noise cancellation (Krisp)?", "--enable-denoise or --no-enable-denoise", false)
	if err != nil {
		return err
	}
	p.EnableDenoise = &denoise
	return nil
}

// NextSteps is the text printed after a project is created in dir: how to
// start the bot and, for web bots with a client, the client.
func NextSteps(c scaffold.Config, dir string) string {
	var b strings.Builder
	b.WriteString("Next steps:\n")
	cd := func(sub string) string {
		path := dir
		if sub != "" {
			if dir == "" || dir == "." {
				path = sub
			} else {
				path = strings.TrimRight(dir, "/") + "/" + sub
			}
		}
		return "cd " + shellQuote(path)
	}
	if dir != "" && dir != "." {
		fmt.Fprintf(&b, "  %s\n", cd(""))
	}
	b.WriteString("  cd server && uv sync\n")
	b.WriteString("  cp .env.example .env   # then fill in your API keys\n")
	run := "uv run bot.py"
	if r := firstRunner(c); r != "" {
		run += " --transport " + r
	}
	fmt.Fprintf(&b, "  %s\n", run)
	if c.BotType == "web" && (c.ClientFramework == "react" || c.ClientFramework == "vanilla") {
		b.WriteString("\nThen, in another terminal, the client:\n")
		fmt.Fprintf(&b, "  %s\n", cd("client"))
		b.WriteString("  npm install\n")
		b.WriteString("  npm run dev\n")
	}
	return b.String()
}

// firstRunner is the development runner's --transport value for the first
// transport of c.
func firstRunner(c scaffold.Config) string {
	for _, id := range c.Transports {
		if t, ok := scaffold.LookupTransport(id); ok && t.Runner != "" {
			return t.Runner
		}
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./~+@%:,=", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func opt(label, value string) prompter.Option { return prompter.Option{Value: value, Label: label} }

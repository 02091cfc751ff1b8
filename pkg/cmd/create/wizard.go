package create

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/charmbracelet/huh"
	"golang.org/x/term"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
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
// leaves open and returns given completed with the answers. Every answer is
// a value the matching flag accepts, so the result resolves and validates
// like a command line would.
//
// Prompts go to io.ErrOut and answers are read from io.In. With accessible
// set, huh's accessible mode asks one plain line prompt at a time (numbered
// menus, no redrawing), which screen readers and scripted input can follow.
//
// Interrupting (Ctrl-C, or ctx cancelled) returns an error that exits 130.
// Input that ends before every question is answered returns a usage error
// (exit 2) naming the flag that answers the open question.
func RunWizard(ctx context.Context, io *iostreams.IOStreams, accessible bool, given scaffold.Partial) (scaffold.Partial, error) {
	w := &wizard{ctx: ctx, ios: io, accessible: accessible}
	if accessible {
		w.in = newLineReader(io.In)
	}
	p := given
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
		if err := step(&p); err != nil {
			return given, err
		}
	}
	return p, nil
}

// wizard runs the questions one form at a time, so each question can depend
// on the answers before it.
type wizard struct {
	ctx        context.Context
	ios        *iostreams.IOStreams
	accessible bool
	in         *lineReader // accessible mode only
}

// question is one prompt of the wizard.
type question struct {
	title  string    // what is asked
	flag   string    // the flag(s) that answer it on the command line
	field  huh.Field // built with title
	answer func() string
}

// ask runs one question and reports interruption and end of input.
func (w *wizard) ask(q question) error {
	if err := w.ctx.Err(); err != nil {
		return interrupted(err)
	}
	form := huh.NewForm(huh.NewGroup(q.field)).WithOutput(w.ios.ErrOut)
	if !w.accessible {
		form = form.WithInput(w.ios.In)
		if !termHasWidth(w.ios.ErrOut) {
			// A terminal that reports no size (some containers) would
			// give huh's text input a negative width, which panics.
			form = form.WithWidth(80)
		}
		err := form.RunWithContext(w.ctx)
		if err != nil {
			if errors.Is(err, huh.ErrUserAborted) || w.ctx.Err() != nil {
				return interrupted(err)
			}
			return fmt.Errorf("%s: %w", q.title, err)
		}
		// The form clears itself when done; leave the answer on screen.
		fmt.Fprintf(w.ios.ErrOut, "%s: %s\n", q.title, q.answer())
		return nil
	}

	form = form.WithAccessible(true).WithInput(w.in).WithTheme(huh.ThemeBase())
	done := make(chan error, 1)
	go func() { done <- form.Run() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %w", q.title, err)
		}
	case <-w.ctx.Done():
		// The reader goroutine stays blocked on input; the process is ending.
		return interrupted(w.ctx.Err())
	}
	if w.in.ended() {
		return cmdutil.UsageErrorf("input ended before %q was answered; answer every question, or give %s", q.title, q.flag)
	}
	return nil
}

// termHasWidth reports whether out is a terminal that knows its width.
func termHasWidth(out io.Writer) bool {
	f, ok := out.(*os.File)
	if !ok {
		return false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	return err == nil && width > 0
}

func interrupted(err error) error {
	return cmdutil.WithCode(cmdutil.ExitInterrupted, fmt.Errorf("interrupted: %w", err))
}

// titled adds the default to a title in accessible mode, where huh does not
// show which choice an empty answer picks.
func (w *wizard) titled(title, def string) string {
	if w.accessible && def != "" {
		return fmt.Sprintf("%s (Enter for %s)", title, def)
	}
	return title
}

// selectOne asks to pick one of opts; value holds the default on entry and
// the answer on return.
func (w *wizard) selectOne(title, flag string, opts []huh.Option[string], value *string) error {
	def := ""
	for _, o := range opts {
		if o.Value == *value {
			def = o.Key
		}
	}
	if def == "" && len(opts) > 0 {
		*value = opts[0].Value
		def = opts[0].Key
	}
	if !w.accessible {
		// huh's full-screen select scrolls its list to the preselected
		// option, hiding the ones above it; the default goes first so that
		// every option shows. Accessible mode keeps the catalogue order.
		opts = defaultFirst(opts, *value)
	}
	s := huh.NewSelect[string]().Title(w.titled(title, def)).Value(value).Options(opts...)
	if len(opts) > 8 {
		s = s.Height(12).Description("Type / to filter")
	}
	return w.ask(question{title: title, flag: flag, field: s, answer: func() string { return keyOf(opts, *value) }})
}

// selectMany asks to pick any of opts; values holds the preselected values
// on entry and the answer on return. atLeastOne refuses an empty answer.
func (w *wizard) selectMany(title, flag string, opts []huh.Option[string], values *[]string, atLeastOne bool) error {
	m := huh.NewMultiSelect[string]().Value(values).Options(opts...).Filterable(true)
	if atLeastOne {
		m = m.Validate(func(v []string) error {
			// At end of input the field would ask again forever; ask()
			// reports the end of input instead.
			if len(v) == 0 && !w.inputEnded() {
				return errors.New("choose at least one")
			}
			return nil
		})
	}
	if len(opts) > 8 {
		m = m.Height(12)
	}
	shown := title
	if w.accessible {
		// huh prints no description in accessible mode.
		shown += " (enter a number to select or unselect it, 0 when done)"
	}
	m = m.Title(shown)
	return w.ask(question{title: title, flag: flag, field: m, answer: func() string {
		var keys []string
		for _, v := range *values {
			keys = append(keys, keyOf(opts, v))
		}
		if len(keys) == 0 {
			return "none"
		}
		return strings.Join(keys, ", ")
	}})
}

func (w *wizard) inputEnded() bool { return w.in != nil && w.in.ended() }

func keyOf(opts []huh.Option[string], value string) string {
	for _, o := range opts {
		if o.Value == value {
			return o.Key
		}
	}
	return value
}

func (w *wizard) askName(p *scaffold.Partial) error {
	if p.ProjectName != nil {
		return nil
	}
	// Empty means the default, shown as a placeholder so that typing
	// replaces it rather than appending to it.
	var name string
	title := "Project name"
	in := huh.NewInput().Title(w.titled(title, defaultProjectName)).Placeholder(defaultProjectName).Value(&name).
		Validate(func(s string) error {
			if s = strings.TrimSpace(s); s == "" {
				return nil
			}
			return scaffold.ValidateProjectName(s)
		})
	final := func() string { return cmp.Or(strings.TrimSpace(name), defaultProjectName) }
	if err := w.ask(question{title: title, flag: "--name", field: in, answer: final}); err != nil {
		return err
	}
	name = final()
	if err := scaffold.ValidateProjectName(name); err != nil {
		return cmdutil.UsageErrorf("--name: %v", err)
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
	web := []huh.Option[string]{
		huh.NewOption("Web — React + Vite", kindReactVite),
		huh.NewOption("Web — React + Next.js", kindReactNextJS),
		huh.NewOption("Web — plain JavaScript", kindVanilla),
		huh.NewOption("Mobile (web bot, no generated client)", kindMobile),
	}
	var opts []huh.Option[string]
	title, flag := "Bot type and client", "--bot-type and --client-framework"
	switch botType(p) {
	case "":
		opts = append([]huh.Option[string]{huh.NewOption("Phone (telephony)", kindPhone)}, web...)
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
func transportOptions(kind scaffold.TransportKind) []huh.Option[string] {
	var opts []huh.Option[string]
	for _, t := range scaffold.Transports() {
		if t.Kind != kind || t.VariantOf != "" {
			continue
		}
		opts = append(opts, huh.NewOption(fmt.Sprintf("%s (%s)", t.Label, t.ID), t.ID))
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
	if slices.ContainsFunc(opts, func(o huh.Option[string]) bool { return o.Value == def }) {
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
	opts := []huh.Option[string]{
		huh.NewOption("Dial-in (people call the bot)", "dial-in"),
		huh.NewOption("Dial-out (the bot places calls)", "dial-out"),
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
	opts := []huh.Option[string]{
		huh.NewOption("Cascade (separate STT → LLM → TTS services)", "cascade"),
		huh.NewOption("Realtime (one speech-to-speech service)", "realtime"),
	}
	if err := w.selectOne("Pipeline mode", "--mode", opts, &m); err != nil {
		return err
	}
	p.Mode = &m
	return nil
}

// serviceOptions lists a category's services as "Label (id)".
func serviceOptions(c scaffold.Category) []huh.Option[string] {
	var opts []huh.Option[string]
	for _, s := range scaffold.ServicesIn(c) {
		opts = append(opts, huh.NewOption(fmt.Sprintf("%s (%s)", s.Label, s.ID), s.ID))
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
	var opts []huh.Option[string]
	var flags []string
	for _, f := range all {
		if f.webOnly && !web {
			continue
		}
		if (f.dst != nil && *f.dst != nil) || (f.dst == nil && p.VideoService != nil) {
			continue
		}
		asked = append(asked, f)
		opts = append(opts, huh.NewOption(f.label, f.key))
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
		opts := []huh.Option[string]{
			huh.NewOption("Cloud (adds a Dockerfile and a deploy config)", "cloud"),
			huh.NewOption("Local only", "local"),
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
	denoise := false
	title := "Enable noise cancellation (Krisp)?"
	c := huh.NewConfirm().Title(title).Value(&denoise)
	if err := w.ask(question{title: title, flag: "--enable-denoise or --no-enable-denoise", field: c, answer: func() string {
		if denoise {
			return "yes"
		}
		return "no"
	}}); err != nil {
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

// lineReader hands out input one line per Read. huh's accessible prompts
// wrap the reader in a new bufio.Scanner for every prompt; a plain reader
// would let the first scanner swallow the answers to later questions. It
// also remembers when a prompt found the input exhausted, which huh does not
// report (it takes the default and carries on).
type lineReader struct {
	mu      sync.Mutex
	r       *bufio.Reader
	partial bool // bytes of an unfinished line were handed out
	eof     bool // a read found no more input
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReader(r)} }

func (l *lineReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(p) == 0 {
		return 0, nil
	}
	n := 0
	for n < len(p) {
		c, err := l.r.ReadByte()
		if err != nil {
			if n > 0 {
				l.partial = true
				return n, nil
			}
			if errors.Is(err, io.EOF) {
				// EOF that ends an unterminated last line answers it; EOF
				// at the start of a line leaves the question unanswered.
				if !l.partial {
					l.eof = true
				}
				l.partial = false
			}
			return 0, err
		}
		p[n] = c
		n++
		if c == '\n' {
			l.partial = false
			return n, nil
		}
	}
	l.partial = true
	return n, nil
}

func (l *lineReader) ended() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.eof
}

// defaultFirst returns opts with the option whose value is def moved to the
// front, the others in their order.
func defaultFirst(opts []huh.Option[string], def string) []huh.Option[string] {
	out := make([]huh.Option[string], 0, len(opts))
	for _, o := range opts {
		if o.Value == def {
			out = append(out, o)
		}
	}
	for _, o := range opts {
		if o.Value != def {
			out = append(out, o)
		}
	}
	return out
}

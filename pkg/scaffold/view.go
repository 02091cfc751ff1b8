package scaffold

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// view is what the server templates see: the config plus everything derived
// from the catalogue, so templates hold no logic beyond layout.
type view struct {
	Config
	Telephony  bool
	Cascade    bool
	STT        *Service
	LLM        *Service
	TTS        *Service
	Realtime   *Service
	Video      *Service
	Services   []Service    // in pipeline order
	Transports []Transport  // chosen transports, variants mapped to their base
	Params     []paramEntry // transport_params entries of bot.py
	Extras     []string     // pipecat-ai extras, sorted
	Python     string       // lowest Python version the project runs on
	EnvGroups  []envGroup   // .env.example sections
	Imports    []pyImport   // pipecat imports of bot.py
	SampleRate int          // 8000 when every transport is a telephony one, else 0 (service default)
	// PhoneArgs: a phone bot that also has web transports (for testing in
	// a browser) sets 8 kHz at run time, only when the session is a call:
	// the runner argument classes that mean a call.
	PhoneArgs []string
	// PlainWebSocket: such a phone bot also has the plain websocket web
	// transport, whose sessions are WebSocketRunnerArguments too.
	PlainWebSocket bool

	NeedsSession bool // an aiohttp.ClientSession is opened for services
	Denoise      bool // KrispVivaFilter on the input (cloud deployments only)
	VideoOut     bool // the transport sends video
	DailyPSTN    bool
	SIPBridge    bool
	DialIn       bool // the telephony-over-Daily transport answers calls
	DialOut      bool // the telephony-over-Daily transport places calls
	ServerModule bool // server/server.py (webhooks that start the bot)
	WebSocketTel bool // a Twilio/Telnyx/Plivo/Exotel media-stream transport
	RunnerArgs   []string
	RunCommand   string // the command that starts the bot (README, bot.py, next steps)
	ServesAll    bool   // RunCommand serves several transports (no --transport)
	SecretSet    string
	AgentName    string
	BaseImage    string       // the Dockerfile's FROM: PipecatBaseImage
	LocalOnly    string       // .env.example's heading of the keys only a local run reads
	DeploySteps  []DeployStep // the README's Deploy section, from the project's root
	// CallSteps and StartCall end the Deploy section: a session on the
	// platform, over SessionTransport ("" when the bot serves none of its transports).
	CallSteps        []DeployStep
	SessionTransport string
	StartCall        string
	// ProviderStream: where a telephony provider's media stream goes on
	// the platform ("" for a bot without one).
	ProviderStream string
}

type paramEntry struct {
	Key    string // create_transport key: daily, webrtc, twilio, ..., eval
	Class  string // DailyParams, TransportParams, FastAPIWebsocketParams, ...
	Fields []string
}

type envGroup struct {
	Title string
	Vars  []EnvVar
	// OnlyFor is the runner arguments of the transport whose variables
	// these are ("--transport daily"), when the bot has several: they are
	// needed only for that transport's sessions.
	OnlyFor string
	// LocalOnly: the last section, of the keys only a local run reads.
	LocalOnly bool
}

type pyImport struct {
	Module string
	Names  []string
}

// PipecatBaseImage is the base image of generated Dockerfiles, pinned:
// dailyco/pipecat-base 0.1.31 is the newest release of Pipecat Cloud's base
// image with a published changelog entry (2026-09-22); it serves the
// framework's 1.x releases this project's code is checked against
// (pipecat-ai 1.7.0: PipelineWorker, named so in the base since 0.1.21)
// and its default Python is 3.12.
const PipecatBaseImage = "dailyco/pipecat-base:0.1.31"

func newView(c Config) *view {
	v := &view{Config: c, Telephony: c.BotType == "telephony", Cascade: c.Mode == "cascade"}
	pick := func(id string) *Service {
		if id == "" {
			return nil
		}
		s, ok := LookupService(id)
		if !ok {
			return nil
		}
		return &s
	}
	if v.Cascade {
		v.STT, v.LLM, v.TTS = pick(c.STTService), pick(c.LLMService), pick(c.TTSService)
	} else {
		v.Realtime = pick(c.RealtimeService)
	}
	if !v.Telephony {
		v.Video = pick(c.VideoService)
	}
	for _, s := range []*Service{v.STT, v.LLM, v.TTS, v.Realtime, v.Video} {
		if s != nil {
			v.Services = append(v.Services, *s)
			if s.NeedsSession {
				v.NeedsSession = true
			}
		}
	}
	v.Denoise = c.EnableDenoise && c.DeployToCloud
	v.VideoOut = !v.Telephony && (c.VideoOutput || v.Video != nil)
	v.AgentName = AgentName(c.ProjectName)
	v.BaseImage = PipecatBaseImage
	v.LocalOnly = resources.LocalOnlyEnvHeading
	v.SecretSet = SecretSetName(c.ProjectName)
	v.DeploySteps = DeploySteps("", v.AgentName)
	v.SessionTransport = SessionTransport(runners(c))
	v.CallSteps = CallSteps(v.AgentName, v.SessionTransport)
	v.StartCall = StartCall(v.AgentName, v.SessionTransport, "   ")
	v.ProviderStream = ProviderStream(runners(c), v.AgentName)

	extras := map[string]bool{"runner": true, "silero": true}
	imports := importSet{}
	seenRunner := map[string]bool{}
	for _, t := range baseTransports(c) {
		v.Transports = append(v.Transports, t)
		for _, e := range t.Extras {
			extras[e] = true
		}
		switch t.NeedsMode {
		case "pstn":
			v.DailyPSTN = true
			v.DialIn, v.DialOut = c.PSTNMode == "dial-in", c.PSTNMode == "dial-out"
		case "sip":
			v.SIPBridge = true
			v.DialIn, v.DialOut = c.SIPBridgeMode == "dial-in", c.SIPBridgeMode == "dial-out"
		}
		if t.mediaStream() {
			v.WebSocketTel = true
		}
		if seenRunner[t.Runner] {
			continue
		}
		seenRunner[t.Runner] = true
		v.RunnerArgs = append(v.RunnerArgs, t.Runner)
		v.Params = append(v.Params, v.paramsFor(t, imports))
	}
	v.ServerModule = v.SIPBridge || (v.DailyPSTN && v.DialOut)
	if v.Telephony {
		// Phone audio is 8 kHz: for the whole pipeline when every
		// transport is a telephony one, else only in call sessions.
		phoneArgs := map[string]bool{}
		web := false
		for _, t := range v.Transports {
			switch {
			case t.Kind == TransportWeb:
				web = true
				v.PlainWebSocket = v.PlainWebSocket || t.Runner == "websocket"
			case t.Runner == "daily":
				phoneArgs["DailyRunnerArguments"] = true
			default:
				phoneArgs["WebSocketRunnerArguments"] = true
			}
		}
		if !web {
			v.SampleRate = 8000
		} else {
			for a := range phoneArgs {
				v.PhoneArgs = append(v.PhoneArgs, a)
				imports.add("pipecat.runner.types", a)
			}
			sort.Strings(v.PhoneArgs)
		}
	}
	if c.Eval {
		extras["evals"] = true
		extras["websocket"] = true
		// The runner's eval transport takes EvalTransportParams only (a
		// ValueError otherwise); WebsocketServerParams is deprecated.
		imports.add("pipecat.evals.transport", "EvalTransportParams")
		v.Params = append(v.Params, paramEntry{Key: "eval", Class: "EvalTransportParams", Fields: []string{"audio_in_enabled=True", "audio_out_enabled=True"}})
	}
	v.RunCommand = RunCommand(v.RunnerArgs)
	v.ServesAll = len(v.RunnerArgs) > 1 && ServesAll(v.RunnerArgs)
	if c.EnableObservability {
		extras["tracing"] = true
		imports.add("pipecat.utils.tracing.setup", "setup_tracing")
	}
	v.Python = defaultPython
	for _, s := range v.Services {
		if s.Python != "" && versionLess(v.Python, s.Python) {
			v.Python = s.Python
		}
		for _, e := range s.Extras {
			extras[e] = true
		}
		imports.add(s.Module, s.Class)
		for _, im := range s.Imports {
			imports.add(im.Module, im.Name)
		}
	}
	if c.Recording {
		imports.add("pipecat.processors.audio.audio_buffer_processor", "AudioBufferProcessor")
	}
	if c.Transcription {
		imports.add("pipecat.observers.loggers.transcription_log_observer", "TranscriptionLogObserver")
	}
	if c.VideoInput && !v.Telephony {
		imports.add("pipecat.runner.utils", "maybe_capture_participant_camera")
	}
	if v.STT != nil && v.STT.TurnDetection {
		imports.add("pipecat.turns.user_turn_strategies", "ExternalUserTurnStrategies")
	}
	if v.Cascade {
		imports.add("pipecat.audio.vad.silero", "SileroVADAnalyzer")
		imports.add("pipecat.processors.aggregators.llm_response_universal", "LLMUserAggregatorParams")
	}
	imports.add("pipecat.frames.frames", "LLMRunFrame")
	imports.add("pipecat.pipeline.pipeline", "Pipeline")
	imports.add("pipecat.pipeline.worker", "PipelineParams")
	imports.add("pipecat.pipeline.worker", "PipelineWorker")
	imports.add("pipecat.processors.aggregators.llm_context", "LLMContext")
	imports.add("pipecat.processors.aggregators.llm_response_universal", "LLMContextAggregatorPair")
	imports.add("pipecat.runner.types", "RunnerArguments")
	imports.add("pipecat.runner.utils", "create_transport")
	imports.add("pipecat.transports.base_transport", "BaseTransport")
	imports.add("pipecat.workers.runner", "WorkerRunner")
	v.Imports = imports.sorted()

	for e := range extras {
		v.Extras = append(v.Extras, e)
	}
	sort.Strings(v.Extras)
	v.EnvGroups = v.envGroups()
	return v
}

// paramsFor returns the transport_params entry for transport t.
func (v *view) paramsFor(t Transport, imports importSet) paramEntry {
	fields := []string{"audio_in_enabled=True", "audio_out_enabled=True"}
	if v.Denoise {
		fields = append(fields, "audio_in_filter=krisp_filter()")
	}
	if t.Kind == TransportWeb {
		if v.VideoInput {
			fields = append(fields, "video_in_enabled=True")
		}
		if v.VideoOut {
			fields = append(fields, "video_out_enabled=True", "video_out_is_live=True", "video_out_width=1280", "video_out_height=720")
		}
	}
	switch t.Runner {
	case "daily":
		imports.add("pipecat.transports.daily.transport", "DailyParams")
		return paramEntry{Key: "daily", Class: "DailyParams", Fields: fields}
	case "webrtc":
		imports.add("pipecat.transports.base_transport", "TransportParams")
		return paramEntry{Key: "webrtc", Class: "TransportParams", Fields: fields}
	case "websocket":
		// The runner sets no serializer on a plain websocket: the client
		// speaks Pipecat's protobuf frames, raw audio without WAV headers.
		imports.add("pipecat.transports.websocket.fastapi", "FastAPIWebsocketParams")
		imports.add("pipecat.serializers.protobuf", "ProtobufFrameSerializer")
		fields = append(fields, "add_wav_header=False", "serializer=ProtobufFrameSerializer()")
		return paramEntry{Key: "websocket", Class: "FastAPIWebsocketParams", Fields: fields}
	default:
		imports.add("pipecat.transports.websocket.fastapi", "FastAPIWebsocketParams")
		return paramEntry{Key: t.Runner, Class: "FastAPIWebsocketParams", Fields: fields}
	}
}

// envGroups lists every variable the generated code reads, grouped by the
// transport or service that reads it, each variable once.
func (v *view) envGroups() []envGroup {
	seen := map[string]bool{}
	var groups []envGroup
	var local []envGroup // keys only a local run reads: the last sections
	addFor := func(title, onlyFor string, vars []EnvVar) {
		g := envGroup{Title: title, OnlyFor: onlyFor}
		lg := envGroup{Title: title, OnlyFor: onlyFor, LocalOnly: true}
		for _, e := range vars {
			switch {
			case e.LocalOnly:
				lg.Vars = append(lg.Vars, e)
			case !seen[e.Name]:
				seen[e.Name] = true
				g.Vars = append(g.Vars, e)
			}
		}
		if len(g.Vars) > 0 {
			groups = append(groups, g)
		}
		if len(lg.Vars) > 0 {
			local = append(local, lg)
		}
	}
	add := func(title string, vars []EnvVar) { addFor(title, "", vars) }
	addLocal := func() {
		// A key some other part needs in every run is not local-only.
		for _, g := range local {
			vars := g.Vars[:0:0]
			for _, e := range g.Vars {
				if !seen[e.Name] {
					seen[e.Name] = true
					vars = append(vars, e)
				}
			}
			if len(vars) > 0 {
				g.Vars = vars
				groups = append(groups, g)
			}
		}
	}
	for _, t := range v.Transports {
		onlyFor := ""
		if len(v.RunnerArgs) > 1 {
			onlyFor = "--transport " + t.Runner
		}
		addFor("Transport: "+t.Label, onlyFor, t.Env)
	}
	for _, s := range v.Services {
		add(categoryTitle(s.Category)+": "+s.Label, s.Env)
	}
	if v.DailyPSTN && v.DialOut {
		add("Daily PSTN dial-out", []EnvVar{{Name: "DIALOUT_PHONE_NUMBER", Default: "+15555550100"}})
	}
	if v.SIPBridge {
		add("Twilio + Daily SIP bridge", []EnvVar{
			{Name: "TWILIO_ACCOUNT_SID", Secret: true},
			{Name: "TWILIO_AUTH_TOKEN", Secret: true},
		})
		if v.DialOut {
			add("Twilio + Daily SIP bridge", []EnvVar{
				{Name: "TWILIO_SIP_DOMAIN", Default: "example.sip.twilio.com"},
				{Name: "DIALOUT_PHONE_NUMBER", Default: "+15555550100"},
			})
		}
	}
	if v.ServerModule {
		add("Webhook server (server.py)", []EnvVar{{Name: "DAILY_API_KEY", Secret: true}, {Name: "SERVER_PORT", Default: "8080"}})
	}
	if v.Recording {
		add("Recording", []EnvVar{{Name: "RECORDINGS_DIR", Default: "recordings"}})
	}
	if v.Denoise {
		// Listed commented out: the development runner sets it.
		add("Noise cancellation (Krisp): off where ENV=local, which the development runner sets", []EnvVar{{Name: "ENV", Default: "local", Commented: true}})
	}
	if v.EnableObservability {
		add("Observability (OpenTelemetry)", []EnvVar{
			{Name: "ENABLE_TRACING", Default: "true"},
			{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Default: "http://localhost:4317"},
		})
	}
	addLocal()
	return groups
}

func categoryTitle(c Category) string {
	switch c {
	case CategorySTT:
		return "Speech-to-text"
	case CategoryLLM:
		return "LLM"
	case CategoryTTS:
		return "Text-to-speech"
	case CategoryRealtime:
		return "Realtime"
	case CategoryVideo:
		return "Video avatar"
	}
	return string(c)
}

type importSet map[string]map[string]bool

func (s importSet) add(module, name string) {
	if s[module] == nil {
		s[module] = map[string]bool{}
	}
	s[module][name] = true
}

func (s importSet) sorted() []pyImport {
	var out []pyImport
	for m, names := range s {
		var ns []string
		for n := range names {
			ns = append(ns, n)
		}
		// Python's isort order: CamelCase classes before functions, each sorted.
		slices.SortFunc(ns, func(a, b string) int { return strings.Compare(a, b) })
		out = append(out, pyImport{Module: m, Names: ns})
	}
	slices.SortFunc(out, func(a, b pyImport) int { return strings.Compare(a.Module, b.Module) })
	return out
}

// defaultPython is the lowest Python version of pipecat-ai 1.7.0.
const defaultPython = "3.11"

// versionLess compares dotted versions such as 3.11 and 3.12.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

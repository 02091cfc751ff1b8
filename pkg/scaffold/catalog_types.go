package scaffold

// Category is the role a service plays in a bot pipeline.
type Category string

// Service categories. Catalogue ids end in "_<category>".
const (
	CategorySTT      Category = "stt"
	CategoryLLM      Category = "llm"
	CategoryTTS      Category = "tts"
	CategoryRealtime Category = "realtime"
	CategoryVideo    Category = "video"
)

// EnvVar is one environment variable that generated code reads.
type EnvVar struct {
	// Name is the variable, e.g. DEEPGRAM_API_KEY.
	Name string
	// Default is written to .env.example and used as the os.getenv default for
	// non-secret settings (models, voices). Empty for secrets the user fills in.
	Default string
	// Secret marks credentials: never given a default in code.
	Secret bool
	// Commented: .env.example lists it commented out (set by a tool, not
	// by the user).
	Commented bool
	// LocalOnly: only a local run reads it (the development runner), a
	// deployed bot never does; .env.example lists it in its last section,
	// under resources.LocalOnlyEnvHeading, and preflight does not require
	// it in the secret set.
	LocalOnly bool
}

// Arg is one keyword argument passed to a service constructor.
type Arg struct {
	// Name is the Python keyword.
	Name string
	// Value is a Python expression. It may call os.getenv("X") for a variable
	// listed in the service's Env, refer to names listed in the service's
	// Imports, and use `session` (an aiohttp.ClientSession) when the service sets
	// NeedsSession.
	//
	// A value that is a call with keyword arguments (a settings object, say)
	// spans several lines in black's exploded style: "X(\n    k=v,\n)".
	// Continuation lines are indented relative to the argument, so a
	// generator indents every line after the first by the argument's own
	// indentation (Service.KwargLines does exactly that).
	Value string
	// Args holds the keyword arguments of such a call, for checks and docs;
	// Value already contains them. Empty for plain values.
	Args []Arg
}

// Import is a `from Module import Name` line a service needs besides its class.
type Import struct {
	Module string
	Name   string
}

// Service is one STT, LLM, TTS, realtime or video avatar provider of
// pipecat-ai, with everything needed to generate code for it.
type Service struct {
	ID       string   // e.g. deepgram_stt
	Label    string   // e.g. "Deepgram"
	Category Category // stt, llm, tts, realtime, video
	Extras   []string // pipecat-ai pip extras, e.g. ["deepgram"]; may be empty
	Module   string   // Python module, e.g. pipecat.services.deepgram.stt
	Class    string   // class name, e.g. DeepgramSTTService
	Args     []Arg    // constructor keyword arguments, in order
	Env      []EnvVar // every variable Args read, in order
	Imports  []Import // extra imports Args refer to
	// NeedsSession: the constructor takes an aiohttp.ClientSession (`session`).
	NeedsSession bool
	// TurnDetection: the STT service detects the end of the user's turn
	// itself, so the bot uses external user turn strategies instead of
	// deciding turns from voice activity alone.
	TurnDetection bool
	// SampleRate, when non-zero, is the audio rate the service requires.
	SampleRate int
	// Python, when set, is the lowest Python version the service's extras
	// install anything on (their requirements carry python_version
	// markers); the project requires it instead of the default.
	Python string
	// Deprecated, when set, says that the framework deprecates the
	// service (its module warns when imported) and what to do instead:
	// create warns when a project uses it.
	Deprecated string
}

// TransportKind groups transports for --list-options.
type TransportKind string

// Transport kinds.
const (
	TransportWeb       TransportKind = "web"
	TransportTelephony TransportKind = "telephony"
)

// Transport is one way a bot talks to its users.
type Transport struct {
	ID     string        // e.g. daily, smallwebrtc, twilio, daily_pstn
	Label  string        // e.g. "Daily (hosted WebRTC rooms)"
	Kind   TransportKind // web or telephony
	Extras []string      // pipecat-ai extras, e.g. ["daily"]
	// Runner is the development runner's -t value and the create_transport
	// key: daily, webrtc, twilio, telnyx, plivo, exotel.
	Runner string
	Env    []EnvVar // variables the runner or bot reads for this transport
	// NeedsMode: "pstn" for daily_pstn (--pstn-mode), "sip" for
	// twilio_daily_sip (--sip-bridge-mode), "" otherwise.
	NeedsMode string
	// FixedMode is set on the listed variants (twilio_daily_sip_dialin ->
	// "dial-in", twilio_daily_sip_dialout -> "dial-out").
	FixedMode string
	// Variant of: the base transport a listed variant stands for.
	VariantOf string
}

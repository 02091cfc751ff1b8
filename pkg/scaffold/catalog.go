package scaffold

import (
	"maps"
	"slices"
	"strings"
	"sync"
)

// The catalogue of `botkit create` (docs/create.md): every transport and every
// STT, LLM, TTS, realtime and video avatar service a generated project can
// use, with the pipecat-ai 1.7.0 import path, class, constructor arguments,
// pip extras and environment variables of each. It is the single source of
// truth for --list-options, validation, templates, .env.example,
// pyproject.toml and README; catalog_test.go checks every entry against the
// index of the real pipecat-ai 1.7.0 API.
//
// Conventions of the entries:
//   - Credentials are read with os.getenv("X") and no default (EnvVar.Secret).
//   - Models and voices are read with os.getenv("X", "default"), so a project
//     runs as generated and is tuned through .env.
//   - Runtime-updatable settings (model, voice) are passed the way pipecat
//     1.x asks for them: settings=<Provider>Settings(...). The older
//     constructor keywords model=, voice_id= and params= still exist in 1.7.0
//     but log deprecation warnings at start-up.
//   - Where a provider offers both, the streaming (websocket) class is used.
//   - Ids are the framework's own (pipecat-ai's `pipecat init` registry,
//     src/pipecat/cli/registry/service_metadata.py); testdata/
//     pipecat-registry-1.7.0.txt holds its ids and catalog_registry_test.go
//     compares. botkit's older ids are aliases (idAliases).
//   - Services that only run on-device with model files the user must supply
//     are left out; local models that download themselves on first use
//     (Whisper, Moonshine, Kokoro, Pocket TTS, Piper) are in. Every entry
//     runs with its environment variables filled in.

// idAliases maps botkit's earlier ids to the framework's ids that replaced
// them (docs/create.md): still accepted on the command line and in config
// files, with a note, and never listed. Resolve them with CanonicalID.
var idAliases = map[string]string{
	"aws_stt":                     "aws_transcribe_stt",
	"google_llm":                  "google_gemini_llm",
	"aws_tts":                     "aws_polly_tts",
	"google_gemini_tts":           "gemini_tts",
	"resembleai_tts":              "resemble_tts",
	"aws_nova_sonic_realtime":     "aws_nova_realtime",
	"gemini_live_vertex_realtime": "gemini_vertex_live_realtime",
}

// frameworkNames maps the framework's spellings that differ from the
// catalogue's ids to them (docs/create.md): `pipecat init`'s realtime id
// without its category suffix, and the development runner's transport
// names. Accepted like idAliases, never listed.
var frameworkNames = map[string]string{
	"ultravox": "ultravox_realtime", // pipecat init's id
	"webrtc":   "smallwebrtc",       // the runner's --transport webrtc
}

// CanonicalID returns the catalogue id an earlier id or the framework's
// name stands for, and whether id was such an alias; any other id comes
// back unchanged.
func CanonicalID(id string) (string, bool) {
	if to, ok := idAliases[id]; ok {
		return to, true
	}
	if to, ok := frameworkNames[id]; ok {
		return to, true
	}
	return id, false
}

// FrameworkName reports whether id is the framework's spelling of a
// catalogue id (not an earlier botkit id).
func FrameworkName(id string) bool {
	_, ok := frameworkNames[id]
	return ok
}

// Aliases returns the alias table: earlier id -> current id.
func Aliases() map[string]string { return maps.Clone(idAliases) }

// FrameworkNames returns the framework's names table: its name -> the
// catalogue id.
func FrameworkNames() map[string]string { return maps.Clone(frameworkNames) }

// catalogIndex is the catalogue, built once and never changed afterwards:
// every exported function hands out deep copies, so no caller can change
// what another sees.
type catalogIndex struct {
	services      []Service // ordered by category, then id
	serviceByID   map[string]int
	transports    []Transport // catalogue order: web first
	transportByID map[string]int
}

var catalog = sync.OnceValue(func() *catalogIndex {
	c := &catalogIndex{services: catalogServices(), transports: catalogTransports()}
	slices.SortStableFunc(c.services, func(a, b Service) int {
		if d := categoryRank(a.Category) - categoryRank(b.Category); d != 0 {
			return d
		}
		return strings.Compare(a.ID, b.ID)
	})
	c.serviceByID = make(map[string]int, len(c.services))
	for i, s := range c.services {
		c.serviceByID[s.ID] = i
	}
	c.transportByID = make(map[string]int, len(c.transports))
	for i, t := range c.transports {
		c.transportByID[t.ID] = i
	}
	return c
})

// Services returns every service of the catalogue, ordered by category (stt,
// llm, tts, realtime, video) and then by id. The slice is the caller's own.
func Services() []Service {
	all := catalog().services
	out := make([]Service, len(all))
	for i, s := range all {
		out[i] = s.clone()
	}
	return out
}

// ServicesIn returns the services of one category, ordered by id.
func ServicesIn(c Category) []Service {
	var out []Service
	for _, s := range catalog().services {
		if s.Category == c {
			out = append(out, s.clone())
		}
	}
	return out
}

// ServiceIDs returns the ids of one category, ordered.
func ServiceIDs(c Category) []string {
	var out []string
	for _, s := range catalog().services {
		if s.Category == c {
			out = append(out, s.ID)
		}
	}
	return out
}

// LookupService returns the service with the given id.
func LookupService(id string) (Service, bool) {
	c := catalog()
	i, ok := c.serviceByID[id]
	if !ok {
		return Service{}, false
	}
	return c.services[i].clone(), true
}

// Transports returns every transport in catalogue order: web ones first.
func Transports() []Transport {
	all := catalog().transports
	out := make([]Transport, len(all))
	for i, t := range all {
		out[i] = t.clone()
	}
	return out
}

// LookupTransport returns the transport with the given id.
func LookupTransport(id string) (Transport, bool) {
	c := catalog()
	i, ok := c.transportByID[id]
	if !ok {
		return Transport{}, false
	}
	return c.transports[i].clone(), true
}

// TransportIDs returns the ids of one kind of transport, in catalogue order.
func TransportIDs(kind TransportKind) []string {
	var out []string
	for _, t := range catalog().transports {
		if t.Kind == kind {
			out = append(out, t.ID)
		}
	}
	return out
}

// clone returns a deep copy of s.
func (s Service) clone() Service {
	s.Extras = slices.Clone(s.Extras)
	s.Args = cloneArgs(s.Args)
	s.Env = slices.Clone(s.Env)
	s.Imports = slices.Clone(s.Imports)
	return s
}

func cloneArgs(args []Arg) []Arg {
	if args == nil {
		return nil
	}
	out := make([]Arg, len(args))
	for i, a := range args {
		a.Args = cloneArgs(a.Args)
		out[i] = a
	}
	return out
}

// clone returns a deep copy of t.
func (t Transport) clone() Transport {
	t.Extras = slices.Clone(t.Extras)
	t.Env = slices.Clone(t.Env)
	return t
}

// KwargLines returns the keyword arguments of the service's constructor
// call, one source line each, each ending in a comma, without the call's own
// indentation: a generator writes them one per line, all indented by the
// same amount (8 spaces inside `async def bot`), which is how black formats
// the call. Multi-line values (settings objects) come out with their
// continuation lines already indented relative to the argument.
func (s Service) KwargLines() []string {
	var out []string
	for _, a := range s.Args {
		out = append(out, strings.Split(a.Name+"="+a.Value+",", "\n")...)
	}
	return out
}

// categoryRank is the position of a category in listings.
func categoryRank(c Category) int {
	switch c {
	case CategorySTT:
		return 0
	case CategoryLLM:
		return 1
	case CategoryTTS:
		return 2
	case CategoryRealtime:
		return 3
	case CategoryVideo:
		return 4
	}
	return 5
}

// getenv is the argument name=os.getenv("VAR").
func getenv(name, variable string) Arg {
	return Arg{Name: name, Value: `os.getenv("` + variable + `")`}
}

// getenvOr is the argument name=os.getenv("VAR", "default").
func getenvOr(name, variable, def string) Arg {
	return Arg{Name: name, Value: `os.getenv("` + variable + `", "` + def + `")`}
}

// sessionArg passes the bot's aiohttp.ClientSession.
func sessionArg(name string) Arg { return Arg{Name: name, Value: "session"} }

// call is the argument name=callee(args...), written out the way black
// formats a call with a trailing comma: one argument per line.
func call(name, callee string, args ...Arg) Arg {
	var b strings.Builder
	b.WriteString(callee + "(\n")
	for _, a := range args {
		for _, line := range strings.Split(a.Name+"="+a.Value+",", "\n") {
			b.WriteString("    " + line + "\n")
		}
	}
	b.WriteString(")")
	return Arg{Name: name, Value: b.String(), Args: args}
}

// secret is a credential: no default, never printed.
func secret(name string) EnvVar { return EnvVar{Name: name, Secret: true} }

// setting is a tunable with a working default.
func setting(name, def string) EnvVar { return EnvVar{Name: name, Default: def} }

// required is a non-secret value the user must fill in (an endpoint, a
// project, an avatar id) that has no sensible default.
func required(name string) EnvVar { return EnvVar{Name: name} }

func imp(module, name string) []Import { return []Import{{Module: module, Name: name}} }

// Default models and voices, named once where several services share them.
const (
	defaultOpenAIModel   = "gpt-4.1"
	defaultGoogleModel   = "gemini-2.5-flash"
	defaultAWSRegion     = "us-east-1"
	defaultGCPLocation   = "us-central1"
	defaultGeminiVoice   = "Charon"
	defaultCartesiaVoice = "71a7ad14-091c-4e8e-a314-022ece01c121" // "British Reading Lady"
)

// catalogServices builds the service catalogue (see catalogIndex).
func catalogServices() []Service {
	var s []Service
	s = append(s, sttServices()...)
	s = append(s, llmServices()...)
	s = append(s, ttsServices()...)
	s = append(s, realtimeServices()...)
	s = append(s, videoServices()...)
	return s
}

// apiKeyOnly is a service whose constructor needs nothing but an API key.
func apiKeyOnly(id, label string, cat Category, extra, module, class, keyVar string) Service {
	var extras []string
	if extra != "" {
		extras = []string{extra}
	}
	return Service{
		ID: id, Label: label, Category: cat, Extras: extras, Module: module, Class: class,
		Args: []Arg{getenv("api_key", keyVar)},
		Env:  []EnvVar{secret(keyVar)},
	}
}

func sttServices() []Service {
	const stt = CategorySTT
	return []Service{
		apiKeyOnly("assemblyai_stt", "AssemblyAI", stt, "assemblyai",
			"pipecat.services.assemblyai.stt", "AssemblyAISTTService", "ASSEMBLYAI_API_KEY"),
		{
			ID: "aws_transcribe_stt", Label: "AWS Transcribe", Category: stt, Extras: []string{"aws"},
			Module: "pipecat.services.aws.stt", Class: "AWSTranscribeSTTService",
			Args: []Arg{
				getenv("api_key", "AWS_SECRET_ACCESS_KEY"),
				getenv("aws_access_key_id", "AWS_ACCESS_KEY_ID"),
				getenvOr("region", "AWS_REGION", defaultAWSRegion),
			},
			Env: []EnvVar{secret("AWS_SECRET_ACCESS_KEY"), secret("AWS_ACCESS_KEY_ID"), setting("AWS_REGION", defaultAWSRegion)},
		},
		{
			ID: "azure_stt", Label: "Azure Speech", Category: stt, Extras: []string{"azure"},
			Module: "pipecat.services.azure.stt", Class: "AzureSTTService",
			Args: []Arg{getenv("api_key", "AZURE_SPEECH_API_KEY"), getenv("region", "AZURE_SPEECH_REGION")},
			Env:  []EnvVar{secret("AZURE_SPEECH_API_KEY"), required("AZURE_SPEECH_REGION")},
		},
		apiKeyOnly("cartesia_stt", "Cartesia", stt, "cartesia",
			"pipecat.services.cartesia.stt", "CartesiaSTTService", "CARTESIA_API_KEY"),
		withTurns(apiKeyOnly("cartesia_turns_stt", "Cartesia Turns", stt, "cartesia",
			"pipecat.services.cartesia.turns.stt", "CartesiaTurnsSTTService", "CARTESIA_API_KEY")),
		{
			ID: "deepgram_stt", Label: "Deepgram", Category: stt, Extras: []string{"deepgram"},
			Module: "pipecat.services.deepgram.stt", Class: "DeepgramSTTService",
			Args: []Arg{
				getenv("api_key", "DEEPGRAM_API_KEY"),
				call("settings", "DeepgramSTTSettings", getenvOr("model", "DEEPGRAM_STT_MODEL", "nova-3")),
			},
			Env:     []EnvVar{secret("DEEPGRAM_API_KEY"), setting("DEEPGRAM_STT_MODEL", "nova-3")},
			Imports: imp("pipecat.services.deepgram.stt", "DeepgramSTTSettings"),
		},
		{
			ID: "deepgram_flux_stt", Label: "Deepgram Flux", Category: stt, Extras: []string{"deepgram"},
			Module: "pipecat.services.deepgram.flux.stt", Class: "DeepgramFluxSTTService",
			Args: []Arg{
				getenv("api_key", "DEEPGRAM_API_KEY"),
				call("settings", "DeepgramFluxSTTSettings",
					getenvOr("model", "DEEPGRAM_FLUX_MODEL", "flux-general-en")),
			},
			Env:           []EnvVar{secret("DEEPGRAM_API_KEY"), setting("DEEPGRAM_FLUX_MODEL", "flux-general-en")},
			Imports:       imp("pipecat.services.deepgram.flux.stt", "DeepgramFluxSTTSettings"),
			TurnDetection: true,
		},
		withTurns(sageMaker(Service{
			ID: "deepgram_flux_sagemaker_stt", Label: "Deepgram Flux on Amazon SageMaker", Category: stt,
			Extras: []string{"deepgram", "sagemaker"},
			Module: "pipecat.services.deepgram.flux.sagemaker.stt", Class: "DeepgramFluxSageMakerSTTService",
		}, "DEEPGRAM_FLUX_SAGEMAKER_ENDPOINT")),
		sageMaker(Service{
			ID: "deepgram_sagemaker_stt", Label: "Deepgram on Amazon SageMaker", Category: stt,
			Extras: []string{"deepgram", "sagemaker"},
			Module: "pipecat.services.deepgram.sagemaker.stt", Class: "DeepgramSageMakerSTTService",
		}, "DEEPGRAM_SAGEMAKER_STT_ENDPOINT"),
		{
			ID: "elevenlabs_stt", Label: "ElevenLabs (Scribe)", Category: stt, Extras: []string{"elevenlabs"},
			Module: "pipecat.services.elevenlabs.stt", Class: "ElevenLabsSTTService",
			Args:         []Arg{getenv("api_key", "ELEVENLABS_API_KEY"), sessionArg("aiohttp_session")},
			Env:          []EnvVar{secret("ELEVENLABS_API_KEY")},
			NeedsSession: true,
		},
		apiKeyOnly("elevenlabs_realtime_stt", "ElevenLabs (Scribe realtime)", stt, "elevenlabs",
			"pipecat.services.elevenlabs.stt", "ElevenLabsRealtimeSTTService", "ELEVENLABS_API_KEY"),
		{
			ID: "fal_stt", Label: "fal (Wizper)", Category: stt, Extras: []string{"fal"},
			Module: "pipecat.services.fal.stt", Class: "FalSTTService",
			Args:         []Arg{getenv("api_key", "FAL_KEY"), sessionArg("aiohttp_session")},
			Env:          []EnvVar{secret("FAL_KEY")},
			NeedsSession: true,
		},
		apiKeyOnly("gladia_stt", "Gladia", stt, "gladia",
			"pipecat.services.gladia.stt", "GladiaSTTService", "GLADIA_API_KEY"),
		{
			// GOOGLE_CREDENTIALS holds a service account's JSON key; when it
			// is unset, Google's application default credentials apply.
			ID: "google_stt", Label: "Google Cloud Speech-to-Text", Category: stt, Extras: []string{"google"},
			Module: "pipecat.services.google.stt", Class: "GoogleSTTService",
			Args: []Arg{getenv("credentials", "GOOGLE_CREDENTIALS")},
			Env:  []EnvVar{secret("GOOGLE_CREDENTIALS")},
		},
		apiKeyOnly("gradium_stt", "Gradium", stt, "gradium",
			"pipecat.services.gradium.stt", "GradiumSTTService", "GRADIUM_API_KEY"),
		{
			ID: "groq_stt", Label: "Groq (Whisper)", Category: stt, Extras: []string{"groq"},
			Module: "pipecat.services.groq.stt", Class: "GroqSTTService",
			Args: []Arg{
				getenv("api_key", "GROQ_API_KEY"),
				call("settings", "GroqSTTSettings",
					getenvOr("model", "GROQ_STT_MODEL", "whisper-large-v3-turbo")),
			},
			Env:     []EnvVar{secret("GROQ_API_KEY"), setting("GROQ_STT_MODEL", "whisper-large-v3-turbo")},
			Imports: imp("pipecat.services.groq.stt", "GroqSTTSettings"),
		},
		apiKeyOnly("mistral_stt", "Mistral (Voxtral)", stt, "mistral",
			"pipecat.services.mistral.stt", "MistralSTTService", "MISTRAL_API_KEY"),
		{
			// Downloads the model on first use and runs on the bot's CPU.
			ID: "moonshine_stt", Label: "Moonshine (local)", Category: stt, Extras: []string{"moonshine"},
			Module: "pipecat.services.moonshine.stt", Class: "MoonshineSTTService",
			Args: []Arg{call("settings", "MoonshineSTTSettings",
				getenvOr("model", "MOONSHINE_MODEL", "small-streaming"))},
			Env:     []EnvVar{setting("MOONSHINE_MODEL", "small-streaming")},
			Imports: imp("pipecat.services.moonshine.stt", "MoonshineSTTSettings"),
		},
		apiKeyOnly("nvidia_stt", "NVIDIA Riva", stt, "nvidia",
			"pipecat.services.nvidia.stt", "NvidiaSTTService", "NVIDIA_API_KEY"),
		sageMaker(Service{
			ID: "nvidia_sagemaker_stt", Label: "NVIDIA Riva on Amazon SageMaker", Category: stt,
			Extras: []string{"aws", "sagemaker"},
			Module: "pipecat.services.nvidia.sagemaker.stt", Class: "NvidiaSageMakerSTTService",
		}, "NVIDIA_SAGEMAKER_STT_ENDPOINT"),
		{
			ID: "openai_stt", Label: "OpenAI (transcription)", Category: stt, Extras: []string{"openai"},
			Module: "pipecat.services.openai.stt", Class: "OpenAISTTService",
			Args: []Arg{
				getenv("api_key", "OPENAI_API_KEY"),
				call("settings", "OpenAISTTSettings",
					getenvOr("model", "OPENAI_STT_MODEL", "gpt-4o-transcribe")),
			},
			Env:     []EnvVar{secret("OPENAI_API_KEY"), setting("OPENAI_STT_MODEL", "gpt-4o-transcribe")},
			Imports: imp("pipecat.services.openai.stt", "OpenAISTTSettings"),
		},
		{
			ID: "openai_realtime_stt", Label: "OpenAI (realtime transcription)", Category: stt, Extras: []string{"openai"},
			Module: "pipecat.services.openai.stt", Class: "OpenAIRealtimeSTTService",
			Args: []Arg{
				getenv("api_key", "OPENAI_API_KEY"),
				call("settings", "OpenAIRealtimeSTTSettings",
					getenvOr("model", "OPENAI_STT_MODEL", "gpt-4o-transcribe")),
			},
			Env:     []EnvVar{secret("OPENAI_API_KEY"), setting("OPENAI_STT_MODEL", "gpt-4o-transcribe")},
			Imports: imp("pipecat.services.openai.stt", "OpenAIRealtimeSTTSettings"),
		},
		apiKeyOnly("sarvam_stt", "Sarvam", stt, "sarvam",
			"pipecat.services.sarvam.stt", "SarvamSTTService", "SARVAM_API_KEY"),
		apiKeyOnly("smallest_stt", "Smallest AI", stt, "smallest",
			"pipecat.services.smallest.stt", "SmallestSTTService", "SMALLEST_API_KEY"),
		apiKeyOnly("soniox_stt", "Soniox", stt, "soniox",
			"pipecat.services.soniox.stt", "SonioxSTTService", "SONIOX_API_KEY"),
		apiKeyOnly("speechmatics_stt", "Speechmatics", stt, "speechmatics",
			"pipecat.services.speechmatics.stt", "SpeechmaticsSTTService", "SPEECHMATICS_API_KEY"),
		apiKeyOnly("together_stt", "Together AI", stt, "together",
			"pipecat.services.together.stt", "TogetherSTTService", "TOGETHER_API_KEY"),
		{
			// faster-whisper on the bot's own CPU or GPU; the model is
			// downloaded on first use.
			ID: "whisper_stt", Label: "Whisper (local)", Category: stt, Extras: []string{"whisper"},
			Module: "pipecat.services.whisper.stt", Class: "WhisperSTTService",
			Args: []Arg{call("settings", "WhisperSTTSettings",
				getenvOr("model", "WHISPER_MODEL", "Systran/faster-distil-whisper-medium.en"))},
			Env:     []EnvVar{setting("WHISPER_MODEL", "Systran/faster-distil-whisper-medium.en")},
			Imports: imp("pipecat.services.whisper.stt", "WhisperSTTSettings"),
		},
		apiKeyOnly("xai_stt", "xAI", stt, "xai",
			"pipecat.services.xai.stt", "XAISTTService", "XAI_API_KEY"),
	}
}

// sageMaker adds the arguments of a model served from an Amazon SageMaker
// endpoint: the endpoint's name and its region. The AWS credentials come
// from the environment's usual chain (AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, a profile or a role), read by the AWS SDK itself.
func sageMaker(s Service, endpointVar string) Service {
	s.Args = append(s.Args, getenv("endpoint_name", endpointVar), getenvOr("region", "AWS_REGION", defaultAWSRegion))
	s.Env = append(s.Env, required(endpointVar), setting("AWS_REGION", defaultAWSRegion))
	s.Python = "3.12" // the sagemaker extra's SDK: python_version>='3.12'
	return s
}

// withTurns marks an STT service that detects the end of turns itself.
func withTurns(s Service) Service {
	s.TurnDetection = true
	return s
}

// keyAndModel is an LLM service configured by an API key and, when model is
// not empty, a default model read from modelVar.
func keyAndModel(id, label, extra, module, class, keyVar, settingsClass, modelVar, model string) Service {
	s := apiKeyOnly(id, label, CategoryLLM, extra, module, class, keyVar)
	if model != "" {
		s.Args = append(s.Args, call("settings", settingsClass, getenvOr("model", modelVar, model)))
		s.Env = append(s.Env, setting(modelVar, model))
		s.Imports = imp(module, settingsClass)
	}
	return s
}

func llmServices() []Service {
	const llm = CategoryLLM
	return []Service{
		keyAndModel("anthropic_llm", "Anthropic Claude", "anthropic",
			"pipecat.services.anthropic.llm", "AnthropicLLMService", "ANTHROPIC_API_KEY",
			"AnthropicLLMSettings", "ANTHROPIC_MODEL", "claude-sonnet-4-5"),
		{
			ID: "aws_bedrock_llm", Label: "AWS Bedrock", Category: llm, Extras: []string{"aws"},
			Module: "pipecat.services.aws.llm", Class: "AWSBedrockLLMService",
			Args: []Arg{
				getenv("aws_access_key", "AWS_ACCESS_KEY_ID"),
				getenv("aws_secret_key", "AWS_SECRET_ACCESS_KEY"),
				getenvOr("aws_region", "AWS_REGION", defaultAWSRegion),
				call("settings", "AWSBedrockLLMSettings",
					getenvOr("model", "AWS_BEDROCK_MODEL", "us.amazon.nova-pro-v1:0")),
			},
			Env: []EnvVar{
				secret("AWS_ACCESS_KEY_ID"), secret("AWS_SECRET_ACCESS_KEY"),
				setting("AWS_REGION", defaultAWSRegion), setting("AWS_BEDROCK_MODEL", "us.amazon.nova-pro-v1:0"),
			},
			Imports: imp("pipecat.services.aws.llm", "AWSBedrockLLMSettings"),
		},
		{
			// The model is the name of the Azure OpenAI deployment.
			ID: "azure_llm", Label: "Azure OpenAI", Category: llm, Extras: []string{"azure"},
			Module: "pipecat.services.azure.llm", Class: "AzureLLMService",
			Args: []Arg{
				getenv("api_key", "AZURE_OPENAI_API_KEY"),
				getenv("endpoint", "AZURE_OPENAI_ENDPOINT"),
				call("settings", "AzureLLMSettings", getenvOr("model", "AZURE_OPENAI_MODEL", defaultOpenAIModel)),
			},
			Env: []EnvVar{
				secret("AZURE_OPENAI_API_KEY"), required("AZURE_OPENAI_ENDPOINT"),
				setting("AZURE_OPENAI_MODEL", defaultOpenAIModel),
			},
			Imports: imp("pipecat.services.azure.llm", "AzureLLMSettings"),
		},
		keyAndModel("baseten_llm", "Baseten", "baseten",
			"pipecat.services.baseten.llm", "BasetenLLMService", "BASETEN_API_KEY", "", "", ""),
		keyAndModel("cerebras_llm", "Cerebras", "cerebras",
			"pipecat.services.cerebras.llm", "CerebrasLLMService", "CEREBRAS_API_KEY",
			"CerebrasLLMSettings", "CEREBRAS_MODEL", "gpt-oss-120b"),
		keyAndModel("crusoe_llm", "Crusoe", "crusoe",
			"pipecat.services.crusoe.llm", "CrusoeLLMService", "CRUSOE_API_KEY", "", "", ""),
		keyAndModel("deepseek_llm", "DeepSeek", "deepseek",
			"pipecat.services.deepseek.llm", "DeepSeekLLMService", "DEEPSEEK_API_KEY",
			"DeepSeekLLMSettings", "DEEPSEEK_MODEL", "deepseek-chat"),
		keyAndModel("fireworks_llm", "Fireworks AI", "fireworks",
			"pipecat.services.fireworks.llm", "FireworksLLMService", "FIREWORKS_API_KEY", "", "", ""),
		keyAndModel("google_gemini_llm", "Google Gemini", "google",
			"pipecat.services.google.llm", "GoogleLLMService", "GOOGLE_API_KEY",
			"GoogleLLMSettings", "GOOGLE_MODEL", defaultGoogleModel),
		{
			ID: "google_vertex_llm", Label: "Google Vertex AI (Gemini)", Category: llm, Extras: []string{"google"},
			Module: "pipecat.services.google.vertex.llm", Class: "GoogleVertexLLMService",
			Args: []Arg{
				getenv("credentials", "GOOGLE_CREDENTIALS"),
				getenv("project_id", "GOOGLE_CLOUD_PROJECT"),
				getenvOr("location", "GOOGLE_CLOUD_LOCATION", defaultGCPLocation),
				call("settings", "GoogleVertexLLMSettings", getenvOr("model", "GOOGLE_MODEL", defaultGoogleModel)),
			},
			Env: []EnvVar{
				secret("GOOGLE_CREDENTIALS"), required("GOOGLE_CLOUD_PROJECT"),
				setting("GOOGLE_CLOUD_LOCATION", defaultGCPLocation), setting("GOOGLE_MODEL", defaultGoogleModel),
			},
			Imports: imp("pipecat.services.google.vertex.llm", "GoogleVertexLLMSettings"),
		},
		keyAndModel("groq_llm", "Groq", "groq",
			"pipecat.services.groq.llm", "GroqLLMService", "GROQ_API_KEY",
			"GroqLLMSettings", "GROQ_MODEL", "llama-3.3-70b-versatile"),
		keyAndModel("inception_llm", "Inception (Mercury)", "inception",
			"pipecat.services.inception.llm", "InceptionLLMService", "INCEPTION_API_KEY", "", "", ""),
		keyAndModel("mistral_llm", "Mistral", "mistral",
			"pipecat.services.mistral.llm", "MistralLLMService", "MISTRAL_API_KEY",
			"MistralLLMSettings", "MISTRAL_MODEL", "mistral-small-latest"),
		keyAndModel("nebius_llm", "Nebius AI Studio", "nebius",
			"pipecat.services.nebius.llm", "NebiusLLMService", "NEBIUS_API_KEY", "", "", ""),
		keyAndModel("novita_llm", "Novita AI", "novita",
			"pipecat.services.novita.llm", "NovitaLLMService", "NOVITA_API_KEY", "", "", ""),
		keyAndModel("nvidia_llm", "NVIDIA NIM", "nvidia",
			"pipecat.services.nvidia.llm", "NvidiaLLMService", "NVIDIA_API_KEY",
			"NvidiaLLMSettings", "NVIDIA_MODEL", "meta/llama-3.3-70b-instruct"),
		{
			// A local or self-hosted Ollama server; the model must have been
			// pulled there (`ollama pull llama3.2`). Ollama has no pip extra
			// of its own: it speaks the OpenAI API.
			ID: "ollama_llm", Label: "Ollama (self-hosted)", Category: llm, Extras: []string{"openai"},
			Module: "pipecat.services.ollama.llm", Class: "OLLamaLLMService",
			Args: []Arg{
				getenvOr("base_url", "OLLAMA_BASE_URL", "http://localhost:11434/v1"),
				call("settings", "OllamaLLMSettings", getenvOr("model", "OLLAMA_MODEL", "llama3.2")),
			},
			Env:     []EnvVar{setting("OLLAMA_BASE_URL", "http://localhost:11434/v1"), setting("OLLAMA_MODEL", "llama3.2")},
			Imports: imp("pipecat.services.ollama.llm", "OllamaLLMSettings"),
		},
		{
			ID: "openai_llm", Label: "OpenAI", Category: llm, Extras: []string{"openai"},
			Module: "pipecat.services.openai.llm", Class: "OpenAILLMService",
			Args: []Arg{
				getenv("api_key", "OPENAI_API_KEY"),
				call("settings", "OpenAILLMSettings", getenvOr("model", "OPENAI_MODEL", defaultOpenAIModel)),
			},
			Env:     []EnvVar{secret("OPENAI_API_KEY"), setting("OPENAI_MODEL", defaultOpenAIModel)},
			Imports: imp("pipecat.services.openai.base_llm", "OpenAILLMSettings"),
		},
		keyAndModel("openai_responses_llm", "OpenAI (Responses API)", "openai",
			"pipecat.services.openai.responses.llm", "OpenAIResponsesLLMService", "OPENAI_API_KEY",
			"OpenAIResponsesLLMSettings", "OPENAI_MODEL", defaultOpenAIModel),
		keyAndModel("openrouter_llm", "OpenRouter", "openrouter",
			"pipecat.services.openrouter.llm", "OpenRouterLLMService", "OPENROUTER_API_KEY",
			"OpenRouterLLMSettings", "OPENROUTER_MODEL", "openai/gpt-4.1"),
		keyAndModel("perplexity_llm", "Perplexity", "perplexity",
			"pipecat.services.perplexity.llm", "PerplexityLLMService", "PERPLEXITY_API_KEY",
			"PerplexityLLMSettings", "PERPLEXITY_MODEL", "sonar"),
		keyAndModel("qwen_llm", "Qwen (Alibaba Cloud)", "qwen",
			"pipecat.services.qwen.llm", "QwenLLMService", "QWEN_API_KEY",
			"QwenLLMSettings", "QWEN_MODEL", "qwen-plus"),
		keyAndModel("sambanova_llm", "SambaNova", "sambanova",
			"pipecat.services.sambanova.llm", "SambaNovaLLMService", "SAMBANOVA_API_KEY",
			"SambaNovaLLMSettings", "SAMBANOVA_MODEL", "Meta-Llama-3.3-70B-Instruct"),
		keyAndModel("sarvam_llm", "Sarvam", "sarvam",
			"pipecat.services.sarvam.llm", "SarvamLLMService", "SARVAM_API_KEY", "", "", ""),
		keyAndModel("together_llm", "Together AI", "together",
			"pipecat.services.together.llm", "TogetherLLMService", "TOGETHER_API_KEY", "", "", ""),
		keyAndModel("xai_llm", "xAI Grok", "xai",
			"pipecat.services.xai.llm", "GrokLLMService", "XAI_API_KEY", "", "", ""),
	}
}

// withVoice adds settings=<settingsClass>(voice=os.getenv(voiceVar, voice))
// to a TTS service.
func withVoice(s Service, settingsClass, voiceVar, voice string) Service {
	s.Args = append(s.Args, call("settings", settingsClass, getenvOr("voice", voiceVar, voice)))
	s.Env = append(s.Env, setting(voiceVar, voice))
	s.Imports = append(s.Imports, imp(s.Module, settingsClass)...)
	return s
}

func ttsServices() []Service {
	const tts = CategoryTTS
	hume := apiKeyOnly("hume_tts", "Hume", tts, "hume",
		"pipecat.services.hume.tts", "HumeTTSService", "HUME_API_KEY")
	hume.SampleRate = 48000 // Hume streams 48 kHz PCM only.
	return []Service{
		apiKeyOnly("asyncai_tts", "Async", tts, "asyncai",
			"pipecat.services.asyncai.tts", "AsyncAITTSService", "ASYNCAI_API_KEY"),
		withVoice(Service{
			ID: "aws_polly_tts", Label: "AWS Polly", Category: tts, Extras: []string{"aws"},
			Module: "pipecat.services.aws.tts", Class: "AWSPollyTTSService",
			Args: []Arg{
				getenv("api_key", "AWS_SECRET_ACCESS_KEY"),
				getenv("aws_access_key_id", "AWS_ACCESS_KEY_ID"),
				getenvOr("region", "AWS_REGION", defaultAWSRegion),
			},
			Env: []EnvVar{secret("AWS_SECRET_ACCESS_KEY"), secret("AWS_ACCESS_KEY_ID"), setting("AWS_REGION", defaultAWSRegion)},
		}, "AWSPollyTTSSettings", "AWS_POLLY_VOICE", "Joanna"),
		withVoice(Service{
			ID: "azure_tts", Label: "Azure Speech", Category: tts, Extras: []string{"azure"},
			Module: "pipecat.services.azure.tts", Class: "AzureTTSService",
			Args: []Arg{getenv("api_key", "AZURE_SPEECH_API_KEY"), getenv("region", "AZURE_SPEECH_REGION")},
			Env:  []EnvVar{secret("AZURE_SPEECH_API_KEY"), required("AZURE_SPEECH_REGION")},
		}, "AzureTTSSettings", "AZURE_TTS_VOICE", "en-US-AriaNeural"),
		apiKeyOnly("camb_tts", "CAMB.AI", tts, "camb",
			"pipecat.services.camb.tts", "CambTTSService", "CAMB_API_KEY"),
		withVoice(apiKeyOnly("cartesia_tts", "Cartesia", tts, "cartesia",
			"pipecat.services.cartesia.tts", "CartesiaTTSService", "CARTESIA_API_KEY"),
			"CartesiaTTSSettings", "CARTESIA_VOICE", defaultCartesiaVoice),
		withVoice(apiKeyOnly("deepgram_tts", "Deepgram Aura", tts, "deepgram",
			"pipecat.services.deepgram.tts", "DeepgramTTSService", "DEEPGRAM_API_KEY"),
			"DeepgramTTSSettings", "DEEPGRAM_VOICE", "aura-2-helena-en"),
		apiKeyOnly("deepgram_flux_tts", "Deepgram Flux", tts, "deepgram",
			"pipecat.services.deepgram.flux.tts", "DeepgramFluxTTSService", "DEEPGRAM_API_KEY"),
		withVoice(sageMaker(Service{
			ID: "deepgram_sagemaker_tts", Label: "Deepgram Aura on Amazon SageMaker", Category: tts,
			Extras: []string{"deepgram", "sagemaker"},
			Module: "pipecat.services.deepgram.sagemaker.tts", Class: "DeepgramSageMakerTTSService",
		}, "DEEPGRAM_SAGEMAKER_TTS_ENDPOINT"), "DeepgramSageMakerTTSSettings", "DEEPGRAM_VOICE", "aura-2-helena-en"),
		{
			ID: "elevenlabs_tts", Label: "ElevenLabs", Category: tts, Extras: []string{"elevenlabs"},
			Module: "pipecat.services.elevenlabs.tts", Class: "ElevenLabsTTSService",
			Args: []Arg{
				getenv("api_key", "ELEVENLABS_API_KEY"),
				call("settings", "ElevenLabsTTSSettings",
					getenvOr("voice", "ELEVENLABS_VOICE", "21m00Tcm4TlvDq8ikWcM"),
					getenvOr("model", "ELEVENLABS_MODEL", "eleven_flash_v2_5")),
			},
			Env: []EnvVar{
				secret("ELEVENLABS_API_KEY"),
				setting("ELEVENLABS_VOICE", "21m00Tcm4TlvDq8ikWcM"), // "Rachel"
				setting("ELEVENLABS_MODEL", "eleven_flash_v2_5"),
			},
			Imports: imp("pipecat.services.elevenlabs.tts", "ElevenLabsTTSSettings"),
		},
		apiKeyOnly("fish_tts", "Fish Audio", tts, "fish",
			"pipecat.services.fish.tts", "FishAudioTTSService", "FISH_API_KEY"),
		withVoice(Service{
			ID: "google_tts", Label: "Google Cloud Text-to-Speech", Category: tts, Extras: []string{"google"},
			Module: "pipecat.services.google.tts", Class: "GoogleTTSService",
			Args: []Arg{getenv("credentials", "GOOGLE_CREDENTIALS")},
			Env:  []EnvVar{secret("GOOGLE_CREDENTIALS")},
		}, "GoogleTTSSettings", "GOOGLE_TTS_VOICE", "en-US-Chirp3-HD-Charon"),
		withVoice(Service{
			ID: "gemini_tts", Label: "Google Gemini TTS", Category: tts, Extras: []string{"google"},
			Module: "pipecat.services.google.tts", Class: "GeminiTTSService",
			Args: []Arg{getenv("credentials", "GOOGLE_CREDENTIALS")},
			Env:  []EnvVar{secret("GOOGLE_CREDENTIALS")},
		}, "GeminiTTSSettings", "GEMINI_TTS_VOICE", "Kore"),
		apiKeyOnly("gradium_tts", "Gradium", tts, "gradium",
			"pipecat.services.gradium.tts", "GradiumTTSService", "GRADIUM_API_KEY"),
		apiKeyOnly("groq_tts", "Groq", tts, "groq",
			"pipecat.services.groq.tts", "GroqTTSService", "GROQ_API_KEY"),
		hume,
		withVoice(apiKeyOnly("inworld_tts", "Inworld", tts, "inworld",
			"pipecat.services.inworld.tts", "InworldTTSService", "INWORLD_API_KEY"),
			"InworldTTSSettings", "INWORLD_VOICE", "Ashley"),
		withVoice(Service{
			// Kokoro (ONNX) on the bot's CPU; model and voices are
			// downloaded on first use.
			ID: "kokoro_tts", Label: "Kokoro (local)", Category: tts, Extras: []string{"kokoro"},
			Module: "pipecat.services.kokoro.tts", Class: "KokoroTTSService",
		}, "KokoroTTSSettings", "KOKORO_VOICE", "af_heart"),
		withVoice(apiKeyOnly("lmnt_tts", "LMNT", tts, "lmnt",
			"pipecat.services.lmnt.tts", "LmntTTSService", "LMNT_API_KEY"),
			"LmntTTSSettings", "LMNT_VOICE", "morgan"),
		withVoice(Service{
			// MiniMax has no pip extra: the service only needs aiohttp.
			ID: "minimax_tts", Label: "MiniMax", Category: tts,
			Module: "pipecat.services.minimax.tts", Class: "MiniMaxHttpTTSService",
			Args: []Arg{
				getenv("api_key", "MINIMAX_API_KEY"),
				getenv("group_id", "MINIMAX_GROUP_ID"),
				sessionArg("aiohttp_session"),
			},
			Env:          []EnvVar{secret("MINIMAX_API_KEY"), required("MINIMAX_GROUP_ID")},
			NeedsSession: true,
		}, "MiniMaxTTSSettings", "MINIMAX_VOICE", "Calm_Woman"),
		apiKeyOnly("mistral_tts", "Mistral (Voxtral)", tts, "mistral",
			"pipecat.services.mistral.tts", "MistralTTSService", "MISTRAL_API_KEY"),
		apiKeyOnly("neuphonic_tts", "Neuphonic", tts, "neuphonic",
			"pipecat.services.neuphonic.tts", "NeuphonicTTSService", "NEUPHONIC_API_KEY"),
		apiKeyOnly("nvidia_tts", "NVIDIA Riva", tts, "nvidia",
			"pipecat.services.nvidia.tts", "NvidiaTTSService", "NVIDIA_API_KEY"),
		withVoice(sageMaker(Service{
			ID: "nvidia_sagemaker_tts", Label: "NVIDIA Riva on Amazon SageMaker", Category: tts,
			Extras: []string{"aws", "sagemaker"},
			Module: "pipecat.services.nvidia.sagemaker.tts", Class: "NvidiaSageMakerTTSService",
		}, "NVIDIA_SAGEMAKER_TTS_ENDPOINT"), "NvidiaSageMakerTTSSettings", "NVIDIA_TTS_VOICE", "Magpie-Multilingual.EN-US.Aria"),
		{
			ID: "openai_tts", Label: "OpenAI", Category: tts, Extras: []string{"openai"},
			Module: "pipecat.services.openai.tts", Class: "OpenAITTSService",
			Args: []Arg{
				getenv("api_key", "OPENAI_API_KEY"),
				call("settings", "OpenAITTSSettings",
					getenvOr("voice", "OPENAI_TTS_VOICE", "alloy"),
					getenvOr("model", "OPENAI_TTS_MODEL", "gpt-4o-mini-tts")),
			},
			Env: []EnvVar{
				secret("OPENAI_API_KEY"),
				setting("OPENAI_TTS_VOICE", "alloy"),
				setting("OPENAI_TTS_MODEL", "gpt-4o-mini-tts"),
			},
			Imports:    imp("pipecat.services.openai.tts", "OpenAITTSSettings"),
			SampleRate: 24000, // OpenAI speech is 24 kHz PCM.
		},
		withVoice(Service{
			// Runs on the bot's own CPU; the voice model is downloaded on
			// first use, so it needs no account and no key.
			ID: "piper_tts", Label: "Piper (local)", Category: tts, Extras: []string{"piper"},
			Module: "pipecat.services.piper.tts", Class: "PiperTTSService",
		}, "PiperTTSSettings", "PIPER_VOICE", "en_US-ryan-high"),
		withVoice(Service{
			// Kyutai's Pocket TTS on the bot's CPU; no account, no key.
			ID: "pockettts_tts", Label: "Pocket TTS (local)", Category: tts, Extras: []string{"pocket-tts"},
			Module: "pipecat.services.pocket_tts.tts", Class: "PocketTTSService",
		}, "PocketTTSSettings", "POCKET_TTS_VOICE", "alba"),
		{
			// Resemble voices belong to the account: there is no default.
			ID: "resemble_tts", Label: "Resemble AI", Category: tts, Extras: []string{"resembleai"},
			Module: "pipecat.services.resembleai.tts", Class: "ResembleAITTSService",
			Args: []Arg{
				getenv("api_key", "RESEMBLE_API_KEY"),
				call("settings", "ResembleAITTSSettings", getenv("voice", "RESEMBLE_VOICE")),
			},
			Env:     []EnvVar{secret("RESEMBLE_API_KEY"), required("RESEMBLE_VOICE")},
			Imports: imp("pipecat.services.resembleai.tts", "ResembleAITTSSettings"),
		},
		apiKeyOnly("rime_tts", "Rime", tts, "rime",
			"pipecat.services.rime.tts", "RimeTTSService", "RIME_API_KEY"),
		apiKeyOnly("sarvam_tts", "Sarvam", tts, "sarvam",
			"pipecat.services.sarvam.tts", "SarvamTTSService", "SARVAM_API_KEY"),
		apiKeyOnly("smallest_tts", "Smallest AI", tts, "smallest",
			"pipecat.services.smallest.tts", "SmallestTTSService", "SMALLEST_API_KEY"),
		apiKeyOnly("soniox_tts", "Soniox", tts, "soniox",
			"pipecat.services.soniox.tts", "SonioxTTSService", "SONIOX_API_KEY"),
		{
			ID: "speechmatics_tts", Label: "Speechmatics", Category: tts, Extras: []string{"speechmatics"},
			Module: "pipecat.services.speechmatics.tts", Class: "SpeechmaticsTTSService",
			Args:         []Arg{getenv("api_key", "SPEECHMATICS_API_KEY"), sessionArg("aiohttp_session")},
			Env:          []EnvVar{secret("SPEECHMATICS_API_KEY")},
			NeedsSession: true,
		},
		apiKeyOnly("together_tts", "Together AI", tts, "together",
			"pipecat.services.together.tts", "TogetherTTSService", "TOGETHER_API_KEY"),
		apiKeyOnly("xai_tts", "xAI", tts, "xai",
			"pipecat.services.xai.tts", "XAITTSService", "XAI_API_KEY"),
		withVoice(Service{
			// A Coqui XTTS streaming server the user runs (it has no pip
			// extra: the service only needs aiohttp). The voice is one of
			// the server's studio speakers.
			ID: "xtts_tts", Label: "XTTS (Coqui, self-hosted)", Category: tts,
			Module: "pipecat.services.xtts.tts", Class: "XTTSService",
			Args: []Arg{
				getenvOr("base_url", "XTTS_BASE_URL", "http://localhost:8000"),
				sessionArg("aiohttp_session"),
			},
			Env:          []EnvVar{setting("XTTS_BASE_URL", "http://localhost:8000")},
			NeedsSession: true,
			// Still in the framework's registry (pipecat init offers it).
			Deprecated: "pipecat-ai 1.7.0 deprecates pipecat.services.xtts.tts, with no replacement (the bot runs and logs a DeprecationWarning); a hosted TTS service is the lasting choice",
		}, "XTTSTTSSettings", "XTTS_VOICE", "Claribel Dervla"),
	}
}

func realtimeServices() []Service {
	const rt = CategoryRealtime
	return []Service{
		{
			ID: "aws_nova_realtime", Label: "AWS Nova Sonic", Category: rt, Extras: []string{"aws-nova-sonic"},
			Module: "pipecat.services.aws.nova_sonic.llm", Class: "AWSNovaSonicLLMService",
			Args: []Arg{
				getenv("secret_access_key", "AWS_SECRET_ACCESS_KEY"),
				getenv("access_key_id", "AWS_ACCESS_KEY_ID"),
				getenvOr("region", "AWS_REGION", defaultAWSRegion),
				call("settings", "AWSNovaSonicLLMSettings", getenvOr("voice", "AWS_NOVA_SONIC_VOICE", "tiffany")),
			},
			Env: []EnvVar{
				secret("AWS_SECRET_ACCESS_KEY"), secret("AWS_ACCESS_KEY_ID"),
				setting("AWS_REGION", defaultAWSRegion), setting("AWS_NOVA_SONIC_VOICE", "tiffany"),
			},
			Imports: imp("pipecat.services.aws.nova_sonic.llm", "AWSNovaSonicLLMSettings"),
			Python:  "3.12", // the aws-nova-sonic extra's SDK: python_version>='3.12'
		},
		{
			// AZURE_OPENAI_REALTIME_URL is the deployment's wss:// realtime
			// endpoint, including api-version and deployment.
			ID: "azure_realtime", Label: "Azure OpenAI Realtime", Category: rt, Extras: []string{"openai"},
			Module: "pipecat.services.azure.realtime.llm", Class: "AzureRealtimeLLMService",
			Args: []Arg{
				getenv("api_key", "AZURE_OPENAI_API_KEY"),
				getenv("base_url", "AZURE_OPENAI_REALTIME_URL"),
			},
			Env: []EnvVar{secret("AZURE_OPENAI_API_KEY"), required("AZURE_OPENAI_REALTIME_URL")},
		},
		{
			ID: "gemini_live_realtime", Label: "Google Gemini Live", Category: rt, Extras: []string{"google"},
			Module: "pipecat.services.google.gemini_live.llm", Class: "GeminiLiveLLMService",
			Args: []Arg{
				getenv("api_key", "GOOGLE_API_KEY"),
				call("settings", "GeminiLiveLLMSettings", getenvOr("voice", "GEMINI_LIVE_VOICE", defaultGeminiVoice)),
			},
			Env:     []EnvVar{secret("GOOGLE_API_KEY"), setting("GEMINI_LIVE_VOICE", defaultGeminiVoice)},
			Imports: imp("pipecat.services.google.gemini_live.llm", "GeminiLiveLLMSettings"),
		},
		{
			ID: "gemini_vertex_live_realtime", Label: "Google Gemini Live on Vertex AI", Category: rt,
			Extras: []string{"google"},
			Module: "pipecat.services.google.gemini_live.vertex.llm", Class: "GeminiLiveVertexLLMService",
			Args: []Arg{
				getenv("credentials", "GOOGLE_CREDENTIALS"),
				getenv("project_id", "GOOGLE_CLOUD_PROJECT"),
				getenvOr("location", "GOOGLE_CLOUD_LOCATION", defaultGCPLocation),
				call("settings", "GeminiLiveVertexLLMSettings",
					getenvOr("voice", "GEMINI_LIVE_VOICE", defaultGeminiVoice)),
			},
			Env: []EnvVar{
				secret("GOOGLE_CREDENTIALS"), required("GOOGLE_CLOUD_PROJECT"),
				setting("GOOGLE_CLOUD_LOCATION", defaultGCPLocation), setting("GEMINI_LIVE_VOICE", defaultGeminiVoice),
			},
			Imports: imp("pipecat.services.google.gemini_live.vertex.llm", "GeminiLiveVertexLLMSettings"),
		},
		apiKeyOnly("inworld_realtime", "Inworld Realtime", rt, "inworld",
			"pipecat.services.inworld.realtime.llm", "InworldRealtimeLLMService", "INWORLD_API_KEY"),
		{
			ID: "openai_realtime", Label: "OpenAI Realtime", Category: rt, Extras: []string{"openai"},
			Module: "pipecat.services.openai.realtime.llm", Class: "OpenAIRealtimeLLMService",
			Args: []Arg{
				getenv("api_key", "OPENAI_API_KEY"),
				call("settings", "OpenAIRealtimeLLMSettings",
					getenvOr("model", "OPENAI_REALTIME_MODEL", "gpt-realtime")),
			},
			Env:     []EnvVar{secret("OPENAI_API_KEY"), setting("OPENAI_REALTIME_MODEL", "gpt-realtime")},
			Imports: imp("pipecat.services.openai.realtime.llm", "OpenAIRealtimeLLMSettings"),
		},
		{
			// Ultravox takes its key inside the connection parameters: a
			// one-shot call created by the bot itself.
			ID: "ultravox_realtime", Label: "Ultravox", Category: rt, Extras: []string{"ultravox"},
			Module: "pipecat.services.ultravox.llm", Class: "UltravoxRealtimeLLMService",
			Args:    []Arg{call("params", "OneShotInputParams", getenv("api_key", "ULTRAVOX_API_KEY"))},
			Env:     []EnvVar{secret("ULTRAVOX_API_KEY")},
			Imports: imp("pipecat.services.ultravox.llm", "OneShotInputParams"),
		},
		apiKeyOnly("xai_realtime", "xAI Grok Voice", rt, "xai",
			"pipecat.services.xai.realtime.llm", "GrokRealtimeLLMService", "XAI_API_KEY"),
	}
}

func videoServices() []Service {
	const video = CategoryVideo
	return []Service{
		{
			ID: "heygen_video", Label: "HeyGen", Category: video, Extras: []string{"heygen"},
			Module: "pipecat.services.heygen.video", Class: "HeyGenVideoService",
			Args:         []Arg{getenv("api_key", "HEYGEN_API_KEY"), sessionArg("session")},
			Env:          []EnvVar{secret("HEYGEN_API_KEY")},
			NeedsSession: true,
		},
		{
			ID: "simli_video", Label: "Simli", Category: video, Extras: []string{"simli"},
			Module: "pipecat.services.simli.video", Class: "SimliVideoService",
			Args: []Arg{getenv("api_key", "SIMLI_API_KEY"), getenv("face_id", "SIMLI_FACE_ID")},
			Env:  []EnvVar{secret("SIMLI_API_KEY"), required("SIMLI_FACE_ID")},
		},
		{
			ID: "tavus_video", Label: "Tavus", Category: video, Extras: []string{"tavus"},
			Module: "pipecat.services.tavus.video", Class: "TavusVideoService",
			Args: []Arg{
				getenv("api_key", "TAVUS_API_KEY"),
				getenv("replica_id", "TAVUS_REPLICA_ID"),
				sessionArg("session"),
			},
			Env:          []EnvVar{secret("TAVUS_API_KEY"), required("TAVUS_REPLICA_ID")},
			NeedsSession: true,
		},
	}
}

// catalogTransports builds the transport list afresh on every call.
func catalogTransports() []Transport {
	daily := []EnvVar{secret("DAILY_API_KEY")}
	twilio := []EnvVar{secret("TWILIO_ACCOUNT_SID"), secret("TWILIO_AUTH_TOKEN")}
	dailyTwilio := []EnvVar{secret("DAILY_API_KEY"), secret("TWILIO_ACCOUNT_SID"), secret("TWILIO_AUTH_TOKEN")}
	websocket := []string{"websocket"}
	return []Transport{
		// The runner creates a room with the key for a local session; a
		// deployed bot is given its room by the platform.
		{ID: "daily", Label: "Daily (hosted WebRTC rooms)", Kind: TransportWeb,
			Extras: []string{"daily"}, Runner: "daily", Env: []EnvVar{{Name: "DAILY_API_KEY", Secret: true, LocalOnly: true}}},
		{ID: "smallwebrtc", Label: "SmallWebRTC (peer-to-peer WebRTC)", Kind: TransportWeb,
			Extras: []string{"webrtc"}, Runner: "webrtc"},
		// Pipecat's protobuf frames over a plain websocket (/ws), for
		// clients of the user's own; the generated web clients speak
		// daily and smallwebrtc.
		{ID: "websocket", Label: "WebSocket (protobuf frames)", Kind: TransportWeb,
			Extras: slices.Clone(websocket), Runner: "websocket"},
		// The runner's telephony serializers read these to hang up calls.
		{ID: "twilio", Label: "Twilio (media streams)", Kind: TransportTelephony,
			Extras: websocket, Runner: "twilio", Env: twilio},
		{ID: "telnyx", Label: "Telnyx (media streaming)", Kind: TransportTelephony,
			Extras: slices.Clone(websocket), Runner: "telnyx", Env: []EnvVar{secret("TELNYX_API_KEY")}},
		{ID: "plivo", Label: "Plivo (audio streams)", Kind: TransportTelephony,
			Extras: slices.Clone(websocket), Runner: "plivo",
			Env: []EnvVar{secret("PLIVO_AUTH_ID"), secret("PLIVO_AUTH_TOKEN")}},
		{ID: "exotel", Label: "Exotel (voicebot streams)", Kind: TransportTelephony,
			Extras: slices.Clone(websocket), Runner: "exotel"},
		{ID: "daily_pstn", Label: "Daily PSTN (phone numbers on Daily)", Kind: TransportTelephony,
			Extras: []string{"daily"}, Runner: "daily", Env: slices.Clone(daily), NeedsMode: "pstn"},
		{ID: "daily_pstn_dialin", Label: "Daily PSTN (dial-in)", Kind: TransportTelephony,
			Extras: []string{"daily"}, Runner: "daily", Env: slices.Clone(daily),
			FixedMode: "dial-in", VariantOf: "daily_pstn"},
		{ID: "daily_pstn_dialout", Label: "Daily PSTN (dial-out)", Kind: TransportTelephony,
			Extras: []string{"daily"}, Runner: "daily", Env: slices.Clone(daily),
			FixedMode: "dial-out", VariantOf: "daily_pstn"},
		{ID: "twilio_daily_sip", Label: "Twilio + Daily SIP", Kind: TransportTelephony,
			Extras: []string{"daily"}, Runner: "daily", Env: dailyTwilio, NeedsMode: "sip"},
		{ID: "twilio_daily_sip_dialin", Label: "Twilio + Daily SIP (dial-in)", Kind: TransportTelephony,
			Extras: []string{"daily"}, Runner: "daily", Env: slices.Clone(dailyTwilio),
			FixedMode: "dial-in", VariantOf: "twilio_daily_sip"},
		{ID: "twilio_daily_sip_dialout", Label: "Twilio + Daily SIP (dial-out)", Kind: TransportTelephony,
			Extras: []string{"daily"}, Runner: "daily", Env: slices.Clone(dailyTwilio),
			FixedMode: "dial-out", VariantOf: "twilio_daily_sip"},
	}
}

// DeprecatedServices returns the services of c that the framework
// deprecates (Service.Deprecated), in the config's field order.
func DeprecatedServices(c Config) []Service {
	var out []Service
	for _, id := range []string{c.STTService, c.LLMService, c.TTSService, c.RealtimeService, c.VideoService} {
		if s, ok := LookupService(id); ok && s.Deprecated != "" {
			out = append(out, s)
		}
	}
	return out
}

package scaffold

// Partial is a configuration where every field may be unset: what a config
// file or the command line says. Nil means "not given".
type Partial struct {
	ProjectName         *string
	BotType             *string
	Transports          []string // nil: not given
	Mode                *string
	STTService          *string
	LLMService          *string
	TTSService          *string
	RealtimeService     *string
	VideoService        *string
	ClientFramework     *string
	ClientServer        *string
	PSTNMode            *string
	SIPBridgeMode       *string
	Recording           *bool
	Transcription       *bool
	VideoInput          *bool
	VideoOutput         *bool
	DeployToCloud       *bool
	EnableDenoise       *bool
	EnableObservability *bool
	Eval                *bool
	AgentsGuide         *bool
}

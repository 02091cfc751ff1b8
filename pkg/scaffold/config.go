package scaffold

// Config is the resolved configuration of a project to generate: the keys of
// the JSON config file and of `botkit create --dry-run` (docs/create.md).
// Optional services that are unset are empty strings here and null in JSON.
type Config struct {
	ProjectName         string   `json:"project_name"`
	BotType             string   `json:"bot_type"` // web | telephony
	Transports          []string `json:"transports"`
	Mode                string   `json:"mode"` // cascade | realtime
	STTService          string   `json:"stt_service"`
	LLMService          string   `json:"llm_service"`
	TTSService          string   `json:"tts_service"`
	RealtimeService     string   `json:"realtime_service"`
	VideoService        string   `json:"video_service"`
	ClientFramework     string   `json:"client_framework"` // react | vanilla | none | ""
	ClientServer        string   `json:"client_server"`    // vite | nextjs | ""
	PSTNMode            string   `json:"pstn_mode"`        // dial-in | dial-out | ""
	SIPBridgeMode       string   `json:"sip_bridge_mode"`  // dial-in | dial-out | ""
	Recording           bool     `json:"recording"`
	Transcription       bool     `json:"transcription"`
	VideoInput          bool     `json:"video_input"`
	VideoOutput         bool     `json:"video_output"`
	DeployToCloud       bool     `json:"deploy_to_cloud"`
	EnableDenoise       bool     `json:"enable_denoise"`
	EnableObservability bool     `json:"enable_observability"`
	Eval                bool     `json:"eval"`
	AgentsGuide         bool     `json:"agents_guide"`
}

// File is one file of a generated project, relative to the project root
// (slash-separated).
type File struct {
	Path string
	Mode uint32 // 0 means 0644
	Data []byte
}

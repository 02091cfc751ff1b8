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
}

// Over returns p with every field that o sets replaced by o's value: o wins.
func (p Partial) Over(o Partial) Partial {
	s := func(dst **string, src *string) {
		if src != nil {
			v := *src
			*dst = &v
		}
	}
	b := func(dst **bool, src *bool) {
		if src != nil {
			v := *src
			*dst = &v
		}
	}
	s(&p.ProjectName, o.ProjectName)
	s(&p.BotType, o.BotType)
	if o.Transports != nil {
		p.Transports = append([]string{}, o.Transports...)
	}
	s(&p.Mode, o.Mode)
	s(&p.STTService, o.STTService)
	s(&p.LLMService, o.LLMService)
	s(&p.TTSService, o.TTSService)
	s(&p.RealtimeService, o.RealtimeService)
	s(&p.VideoService, o.VideoService)
	s(&p.ClientFramework, o.ClientFramework)
	s(&p.ClientServer, o.ClientServer)
	s(&p.PSTNMode, o.PSTNMode)
	s(&p.SIPBridgeMode, o.SIPBridgeMode)
	b(&p.Recording, o.Recording)
	b(&p.Transcription, o.Transcription)
	b(&p.VideoInput, o.VideoInput)
	b(&p.VideoOutput, o.VideoOutput)
	b(&p.DeployToCloud, o.DeployToCloud)
	b(&p.EnableDenoise, o.EnableDenoise)
	b(&p.EnableObservability, o.EnableObservability)
	b(&p.Eval, o.Eval)
	return p
}

// PartialOf returns the partial that sets every field of c (the inverse of
// Resolve for a complete config).
func PartialOf(c Config) Partial {
	str := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	bl := func(v bool) *bool { return &v }
	p := Partial{
		ProjectName:         str(c.ProjectName),
		BotType:             str(c.BotType),
		Mode:                str(c.Mode),
		STTService:          str(c.STTService),
		LLMService:          str(c.LLMService),
		TTSService:          str(c.TTSService),
		RealtimeService:     str(c.RealtimeService),
		VideoService:        str(c.VideoService),
		ClientFramework:     str(c.ClientFramework),
		ClientServer:        str(c.ClientServer),
		PSTNMode:            str(c.PSTNMode),
		SIPBridgeMode:       str(c.SIPBridgeMode),
		Recording:           bl(c.Recording),
		Transcription:       bl(c.Transcription),
		VideoInput:          bl(c.VideoInput),
		VideoOutput:         bl(c.VideoOutput),
		DeployToCloud:       bl(c.DeployToCloud),
		EnableDenoise:       bl(c.EnableDenoise),
		EnableObservability: bl(c.EnableObservability),
		Eval:                bl(c.Eval),
	}
	if c.Transports != nil {
		p.Transports = append([]string{}, c.Transports...)
	}
	return p
}

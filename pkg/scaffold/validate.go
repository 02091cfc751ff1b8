package scaffold

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Allowed values of the enumerated options.
var (
	botTypes         = []string{"web", "telephony"}
	modes            = []string{"cascade", "realtime"}
	clientFrameworks = []string{"react", "vanilla", "none"}
	clientServers    = []string{"vite", "nextjs"}
	dialModes        = []string{"dial-in", "dial-out"}
)

// BotTypes returns the valid bot types.
func BotTypes() []string { return slices.Clone(botTypes) }

var projectNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ValidateProjectName checks a project name: letters, digits, '-', '_', '.';
// no path separators; not "." or "..".
func ValidateProjectName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("project name is empty")
	case name == "." || name == "..":
		return fmt.Errorf("project name %q is not allowed", name)
	case len(name) > 100:
		return fmt.Errorf("project name is longer than 100 characters")
	case !projectNameRE.MatchString(name):
		return fmt.Errorf("project name %q may hold only letters, digits, '-', '_' and '.'", name)
	}
	return nil
}

// Resolve fills in defaults and inferred values (DESIGN §4.1): deployment to
// the cloud defaults to on; the bot type is telephony when any transport is a
// telephony one, else web; the mode is cascade when any of stt/llm/tts is
// given, realtime when a realtime service is; react defaults to the vite dev
// server; a SIP-bridge variant transport implies its mode.
func Resolve(p Partial) Config {
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	bl := func(b *bool, def bool) bool {
		if b == nil {
			return def
		}
		return *b
	}
	c := Config{
		ProjectName:         str(p.ProjectName),
		BotType:             str(p.BotType),
		Transports:          slices.Clone(p.Transports),
		Mode:                str(p.Mode),
		STTService:          str(p.STTService),
		LLMService:          str(p.LLMService),
		TTSService:          str(p.TTSService),
		RealtimeService:     str(p.RealtimeService),
		VideoService:        str(p.VideoService),
		ClientFramework:     str(p.ClientFramework),
		ClientServer:        str(p.ClientServer),
		PSTNMode:            str(p.PSTNMode),
		SIPBridgeMode:       str(p.SIPBridgeMode),
		Recording:           bl(p.Recording, false),
		Transcription:       bl(p.Transcription, false),
		VideoInput:          bl(p.VideoInput, false),
		VideoOutput:         bl(p.VideoOutput, false),
		DeployToCloud:       bl(p.DeployToCloud, true),
		EnableDenoise:       bl(p.EnableDenoise, false),
		EnableObservability: bl(p.EnableObservability, false),
		Eval:                bl(p.Eval, false),
	}
	if c.Transports == nil {
		c.Transports = []string{}
	}
	if c.BotType == "" && len(c.Transports) > 0 {
		c.BotType = "web"
		for _, id := range c.Transports {
			if t, ok := LookupTransport(id); ok && t.Kind == TransportTelephony {
				c.BotType = "telephony"
			}
		}
	}
	if c.Mode == "" {
		cascade := c.STTService != "" || c.LLMService != "" || c.TTSService != ""
		realtime := c.RealtimeService != ""
		switch {
		case cascade && !realtime:
			c.Mode = "cascade"
		case realtime && !cascade:
			c.Mode = "realtime"
		}
	}
	if c.ClientFramework == "react" && c.ClientServer == "" {
		c.ClientServer = "vite"
	}
	if c.SIPBridgeMode == "" {
		for _, id := range c.Transports {
			if t, ok := LookupTransport(id); ok && t.FixedMode != "" {
				c.SIPBridgeMode = t.FixedMode
			}
		}
	}
	return c
}

// Validate returns every problem of c, one sentence each, naming the flag
// and config key at fault. An empty result means c can be generated.
func Validate(c Config) []string {
	var probs []string
	add := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	oneOf := func(flag, key, val string, valid []string) bool {
		if val != "" && !slices.Contains(valid, val) {
			add("%s (%s): invalid value %q; valid: %s", flag, key, val, strings.Join(valid, ", "))
			return false
		}
		return true
	}

	if c.ProjectName == "" {
		add("--name (project_name): missing project name; give --name, a TARGET_DIR or project_name in --config")
	} else if err := ValidateProjectName(c.ProjectName); err != nil {
		add("--name (project_name): %v", err)
	}
	oneOf("--bot-type", "bot_type", c.BotType, botTypes)
	oneOf("--mode", "mode", c.Mode, modes)
	oneOf("--client-framework", "client_framework", c.ClientFramework, clientFrameworks)
	oneOf("--client-server", "client_server", c.ClientServer, clientServers)
	pstnOK := oneOf("--pstn-mode", "pstn_mode", c.PSTNMode, dialModes)
	sipOK := oneOf("--sip-bridge-mode", "sip_bridge_mode", c.SIPBridgeMode, dialModes)

	// Transports.
	if len(c.Transports) == 0 {
		add("--transport (transports): missing transport; valid: %s", strings.Join(allTransportIDs(), ", "))
	}
	var hasPSTN, hasSIP bool
	seen := map[string]bool{}
	overDaily := 0
	for _, id := range c.Transports {
		if seen[id] {
			add("--transport (transports): %q is given twice", id)
			continue
		}
		seen[id] = true
		t, ok := LookupTransport(id)
		if !ok {
			add("--transport (transports): unknown transport %q; valid: %s", id, strings.Join(allTransportIDs(), ", "))
			continue
		}
		switch {
		case c.BotType == "web" && t.Kind == TransportTelephony:
			add("--transport (transports): %q is a telephony transport, but --bot-type (bot_type) is web", id)
		case c.BotType == "telephony" && t.Kind == TransportWeb:
			add("--transport (transports): %q is a web transport, but --bot-type (bot_type) is telephony", id)
		}
		base := t.ID
		if t.VariantOf != "" {
			base = t.VariantOf
			if c.SIPBridgeMode != "" && sipOK && c.SIPBridgeMode != t.FixedMode {
				add("--sip-bridge-mode (sip_bridge_mode): %q contradicts transport %q", c.SIPBridgeMode, id)
			}
		}
		if bt, ok := LookupTransport(base); ok {
			switch bt.NeedsMode {
			case "pstn":
				hasPSTN = true
			case "sip":
				hasSIP = true
			}
			if t.Kind == TransportTelephony && bt.Runner == "daily" {
				overDaily++
			}
		}
	}
	if overDaily > 1 {
		add("--transport (transports): daily_pstn and twilio_daily_sip both run over Daily; choose one")
	}
	if hasPSTN && c.PSTNMode == "" {
		add("--pstn-mode (pstn_mode): transport daily_pstn needs --pstn-mode dial-in or dial-out")
	}
	if !hasPSTN && c.PSTNMode != "" && pstnOK {
		add("--pstn-mode (pstn_mode): given without the daily_pstn transport")
	}
	if hasSIP && c.SIPBridgeMode == "" {
		add("--sip-bridge-mode (sip_bridge_mode): transport twilio_daily_sip needs --sip-bridge-mode dial-in or dial-out")
	}
	if !hasSIP && c.SIPBridgeMode != "" && sipOK {
		add("--sip-bridge-mode (sip_bridge_mode): given without the twilio_daily_sip transport")
	}

	// Services.
	cascade := []struct {
		flag, key, id string
		cat           Category
	}{
		{"--stt", "stt_service", c.STTService, CategorySTT},
		{"--llm", "llm_service", c.LLMService, CategoryLLM},
		{"--tts", "tts_service", c.TTSService, CategoryTTS},
	}
	checkID := func(flag, key, id string, cat Category) {
		if id == "" {
			return
		}
		s, ok := LookupService(id)
		if !ok || s.Category != cat {
			add("%s (%s): unknown %s service %q; valid: %s", flag, key, cat, id, strings.Join(ServiceIDs(cat), ", "))
		}
	}
	for _, s := range cascade {
		checkID(s.flag, s.key, s.id, s.cat)
	}
	checkID("--realtime", "realtime_service", c.RealtimeService, CategoryRealtime)
	checkID("--video", "video_service", c.VideoService, CategoryVideo)
	anyCascade := c.STTService != "" || c.LLMService != "" || c.TTSService != ""
	switch c.Mode {
	case "cascade":
		for _, s := range cascade {
			if s.id == "" {
				add("%s (%s): missing %s service for cascade mode; valid: %s", s.flag, s.key, strings.ToUpper(string(s.cat)), strings.Join(ServiceIDs(s.cat), ", "))
			}
		}
		if c.RealtimeService != "" {
			add("--realtime (realtime_service): a realtime service cannot be used in cascade mode")
		}
	case "realtime":
		if c.RealtimeService == "" {
			add("--realtime (realtime_service): missing realtime service for realtime mode; valid: %s", strings.Join(ServiceIDs(CategoryRealtime), ", "))
		}
		if anyCascade {
			add("--stt/--llm/--tts (stt_service/llm_service/tts_service): cascade services cannot be used in realtime mode")
		}
	case "":
		if anyCascade && c.RealtimeService != "" {
			add("--mode (mode): cannot mix cascade services (--stt/--llm/--tts) with --realtime; choose one pipeline")
		} else if !anyCascade && c.RealtimeService == "" {
			add("--stt/--llm/--tts or --realtime: missing services; give --stt, --llm and --tts (cascade) or --realtime")
		}
	}

	// Web-only options on telephony bots.
	if c.BotType == "telephony" {
		if c.VideoService != "" {
			add("--video (video_service): video avatars are for web bots, not telephony")
		}
		if c.VideoInput {
			add("--video-input (video_input): video input is for web bots, not telephony")
		}
		if c.VideoOutput {
			add("--video-output (video_output): video output is for web bots, not telephony")
		}
		if c.ClientFramework != "" && c.ClientFramework != "none" {
			add("--client-framework (client_framework): telephony bots have no web client")
		}
		if c.ClientServer != "" {
			add("--client-server (client_server): telephony bots have no web client")
		}
	}
	if c.ClientServer != "" && c.ClientFramework != "react" && c.BotType != "telephony" {
		add("--client-server (client_server): only applies with --client-framework react")
	}
	if c.EnableDenoise && !c.DeployToCloud {
		add("--enable-denoise (enable_denoise): noise cancellation needs cloud deployment (--deploy-to-cloud)")
	}
	return probs
}

func allTransportIDs() []string {
	var ids []string
	for _, t := range Transports() {
		ids = append(ids, t.ID)
	}
	return ids
}

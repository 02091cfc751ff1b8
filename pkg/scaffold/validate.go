package scaffold

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/botkit-dev/botkit/internal/suggest"
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

var projectNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+$`) })

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
	case !projectNameRE().MatchString(name):
		return fmt.Errorf("project name %q may hold only letters, digits, '-', '_' and '.'", name)
	}
	return nil
}

// Resolve fills in defaults and inferred values (docs/create.md): the defaults
// of the field table; the bot type and mode of BotTypeOf and ModeOf; react
// defaults to the vite dev server; a SIP-bridge variant transport implies
// its mode; a video avatar implies video output unless that was given.
func Resolve(p Partial) Config {
	c := fill(p)
	c.BotType = BotTypeOf(p)
	c.Mode = ModeOf(p)
	if c.ClientFramework == "react" && c.ClientServer == "" {
		c.ClientServer = "vite"
	}
	for _, id := range c.Transports {
		t, ok := LookupTransport(id)
		if !ok || t.FixedMode == "" {
			continue
		}
		if mode := modeOf(&c, t); mode != nil && *mode == "" {
			*mode = t.FixedMode
		}
	}
	if c.VideoService != "" && p.VideoOutput == nil {
		c.VideoOutput = true
	}
	return c
}

// modeOf returns the dial-mode field of c that listed variant t fixes:
// pstn_mode for the daily_pstn variants, sip_bridge_mode for the
// twilio_daily_sip ones; nil when t is no variant.
func modeOf(c *Config, t Transport) *string {
	base, ok := LookupTransport(t.VariantOf)
	if !ok {
		return nil
	}
	switch base.NeedsMode {
	case "pstn":
		return &c.PSTNMode
	case "sip":
		return &c.SIPBridgeMode
	}
	return nil
}

// Problem is one thing wrong with a config.
type Problem struct {
	// Keys are the config keys involved; the first is the one at fault.
	Keys []string
	// Missing: a value is missing (a question not yet answered), rather
	// than values that contradict each other or are invalid.
	Missing bool
	// Message is one sentence naming the flag and the config key.
	Message string
}

func (p Problem) String() string { return p.Message }

// Validate returns every problem of c, one sentence each, naming the flag
// and config key at fault. An empty result means c can be generated.
func Validate(c Config) []string {
	var out []string
	for _, p := range Check(c) {
		out = append(out, p.Message)
	}
	return out
}

// Check returns every problem of c.
func Check(c Config) []Problem {
	var probs []Problem
	add := func(missing bool, keys []string, format string, args ...any) {
		msg := flagKey(keys[0]) + ": " + fmt.Sprintf(format, args...)
		probs = append(probs, Problem{Keys: keys, Missing: missing, Message: msg})
	}
	keys := func(k ...string) []string { return k }
	oneOf := func(key, val string, valid []string) bool {
		if val != "" && !slices.Contains(valid, val) {
			add(false, keys(key), "invalid value %q; valid: %s", val, strings.Join(valid, ", "))
			return false
		}
		return true
	}

	if c.ProjectName == "" {
		add(true, keys("project_name"), "missing project name; give --name, a TARGET_DIR or project_name in --config")
	} else if err := ValidateProjectName(c.ProjectName); err != nil {
		add(false, keys("project_name"), "%v", err)
	}
	oneOf("bot_type", c.BotType, botTypes)
	oneOf("mode", c.Mode, modes)
	oneOf("client_framework", c.ClientFramework, clientFrameworks)
	oneOf("client_server", c.ClientServer, clientServers)
	pstnOK := oneOf("pstn_mode", c.PSTNMode, dialModes)
	sipOK := oneOf("sip_bridge_mode", c.SIPBridgeMode, dialModes)

	// Transports.
	if len(c.Transports) == 0 {
		add(true, keys("transports"), "missing transport; valid: %s", strings.Join(allTransportIDs(), ", "))
	}
	var hasPSTN, hasSIP bool
	var overDaily []string // telephony transports that run over Daily
	webDaily := false
	seen := map[string]bool{}
	for _, id := range c.Transports {
		if seen[id] {
			add(false, keys("transports"), "%q is given twice", id)
			continue
		}
		seen[id] = true
		t, ok := LookupTransport(id)
		if !ok {
			add(false, keys("transports"), "unknown transport %q%s; valid: %s", id, suggest.DidYouMean(id, allTransportIDs()), strings.Join(allTransportIDs(), ", "))
			continue
		}
		if c.BotType == "web" && t.Kind == TransportTelephony {
			add(false, keys("transports", "bot_type"), "%q is a telephony transport, but --bot-type (bot_type) is web", id)
		}
		if t.Kind == TransportWeb && t.Runner == "daily" {
			webDaily = true
		}
		base := t.ID
		if t.VariantOf != "" {
			base = t.VariantOf
			if mode := modeOf(&c, t); mode != nil && *mode != "" && *mode != t.FixedMode {
				key, valid := "sip_bridge_mode", sipOK
				if mode == &c.PSTNMode {
					key, valid = "pstn_mode", pstnOK
				}
				if valid {
					add(false, keys(key, "transports"), "%q contradicts transport %q", *mode, id)
				}
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
				overDaily = append(overDaily, id)
			}
		}
	}
	if len(overDaily) > 1 {
		add(false, keys("transports"), "%s all run over Daily; choose one", strings.Join(quoteAll(overDaily), " and "))
	}
	if len(overDaily) > 0 && webDaily {
		add(false, keys("transports"), "%q and \"daily\" would both be the runner's daily transport; test a Daily phone bot in the browser with smallwebrtc", overDaily[0])
	}
	if hasPSTN && c.PSTNMode == "" {
		add(true, keys("pstn_mode", "transports"), "transport daily_pstn needs --pstn-mode dial-in or dial-out")
	}
	if !hasPSTN && c.PSTNMode != "" && pstnOK {
		add(false, keys("pstn_mode", "transports"), "given without the daily_pstn transport")
	}
	if hasSIP && c.SIPBridgeMode == "" {
		add(true, keys("sip_bridge_mode", "transports"), "transport twilio_daily_sip needs --sip-bridge-mode dial-in or dial-out")
	}
	if !hasSIP && c.SIPBridgeMode != "" && sipOK {
		add(false, keys("sip_bridge_mode", "transports"), "given without the twilio_daily_sip transport")
	}

	// Services.
	cascade := []struct {
		key, id string
		cat     Category
	}{
		{"stt_service", c.STTService, CategorySTT},
		{"llm_service", c.LLMService, CategoryLLM},
		{"tts_service", c.TTSService, CategoryTTS},
	}
	checkID := func(key, id string, cat Category) {
		if id == "" {
			return
		}
		s, ok := LookupService(id)
		if !ok || s.Category != cat {
			add(false, keys(key), "unknown %s service %q%s; valid: %s", cat, id, suggest.DidYouMean(id, ServiceIDs(cat)), strings.Join(ServiceIDs(cat), ", "))
		}
	}
	for _, s := range cascade {
		checkID(s.key, s.id, s.cat)
	}
	checkID("realtime_service", c.RealtimeService, CategoryRealtime)
	checkID("video_service", c.VideoService, CategoryVideo)
	anyCascade := c.STTService != "" || c.LLMService != "" || c.TTSService != ""
	switch c.Mode {
	case "cascade":
		for _, s := range cascade {
			if s.id == "" {
				add(true, keys(s.key, "mode"), "missing %s service for cascade mode; valid: %s", strings.ToUpper(string(s.cat)), strings.Join(ServiceIDs(s.cat), ", "))
			}
		}
		if c.RealtimeService != "" {
			add(false, keys("realtime_service", "mode"), "a realtime service cannot be used in cascade mode")
		}
	case "realtime":
		if c.RealtimeService == "" {
			add(true, keys("realtime_service", "mode"), "missing realtime service for realtime mode; valid: %s", strings.Join(ServiceIDs(CategoryRealtime), ", "))
		}
		if anyCascade {
			probs = append(probs, Problem{Keys: keys("stt_service", "llm_service", "tts_service", "mode"),
				Message: "--stt/--llm/--tts (stt_service/llm_service/tts_service): cascade services cannot be used in realtime mode"})
		}
	case "":
		if anyCascade && c.RealtimeService != "" {
			probs = append(probs, Problem{Keys: keys("realtime_service", "stt_service", "llm_service", "tts_service"),
				Message: "--mode (mode): cannot mix cascade services (--stt/--llm/--tts) with --realtime; choose one pipeline"})
		} else if !anyCascade && c.RealtimeService == "" {
			probs = append(probs, Problem{Keys: keys("mode"), Missing: true,
				Message: "--stt/--llm/--tts or --realtime: missing services; give --stt, --llm and --tts (cascade) or --realtime"})
		}
	}

	// Web-only options on telephony bots.
	if c.BotType == "telephony" {
		if c.VideoService != "" {
			add(false, keys("video_service", "bot_type"), "video avatars are for web bots, not telephony")
		}
		if c.VideoInput {
			add(false, keys("video_input", "bot_type"), "video input is for web bots, not telephony")
		}
		if c.VideoOutput && c.VideoService == "" {
			add(false, keys("video_output", "bot_type"), "video output is for web bots, not telephony")
		}
		if c.ClientFramework != "" && c.ClientFramework != "none" {
			add(false, keys("client_framework", "bot_type"), "telephony bots have no web client")
		}
		if c.ClientServer != "" {
			add(false, keys("client_server", "bot_type"), "telephony bots have no web client")
		}
	}
	if c.VideoService != "" && !c.VideoOutput {
		add(false, keys("video_output", "video_service"), "a video avatar (--video %s) sends video; drop --no-video-output", c.VideoService)
	}
	if c.BotType != "telephony" && c.ClientFramework != "" && c.ClientFramework != "none" &&
		len(c.Transports) > 0 && onlyWebTransports(c.Transports) && !hasClientTransport(c.Transports) {
		add(false, keys("client_framework", "transports"), "the generated web clients connect over daily or smallwebrtc; add one of them, or give --client-framework none and a client of your own for %s", strings.Join(c.Transports, ", "))
	}
	if c.ClientServer != "" && c.ClientFramework != "react" && c.BotType != "telephony" {
		add(false, keys("client_server", "client_framework"), "only applies with --client-framework react")
	}
	if c.EnableDenoise && !c.DeployToCloud {
		add(false, keys("enable_denoise", "deploy_to_cloud"), "noise cancellation needs cloud deployment (--deploy-to-cloud)")
	}
	return probs
}

func quoteAll(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.Quote(id)
	}
	return out
}

func allTransportIDs() []string {
	var ids []string
	for _, t := range Transports() {
		ids = append(ids, t.ID)
	}
	return ids
}

// KeyValues returns the values config key accepts, from the catalogue and
// the lists above (nil: any value of its type). The ProjectConfig JSON
// Schema's enums come from it.
func KeyValues(key string) []string {
	if values := keyValues(key); values != nil {
		return values()
	}
	return nil
}

// Enumerated reports whether config key accepts only the values KeyValues
// lists, without building the catalogue: the create command asks it for
// every flag when it is constructed, which every botkit run does.
func Enumerated(key string) bool { return keyValues(key) != nil }

// keyValues returns the function that lists the values of key (nil: the key
// is not enumerated).
func keyValues(key string) func() []string {
	clone := func(s []string) func() []string { return func() []string { return slices.Clone(s) } }
	services := func(c Category) func() []string { return func() []string { return ServiceIDs(c) } }
	switch key {
	case "bot_type":
		return BotTypes
	case "mode":
		return clone(modes)
	case "client_framework":
		return clone(clientFrameworks)
	case "client_server":
		return clone(clientServers)
	case "pstn_mode", "sip_bridge_mode":
		return clone(dialModes)
	case "transports":
		return func() []string { return append(TransportIDs(TransportWeb), TransportIDs(TransportTelephony)...) }
	case "stt_service":
		return services(CategorySTT)
	case "llm_service":
		return services(CategoryLLM)
	case "tts_service":
		return services(CategoryTTS)
	case "realtime_service":
		return services(CategoryRealtime)
	case "video_service":
		return services(CategoryVideo)
	}
	return nil
}

// hasClientTransport reports whether a generated web client can connect
// over one of the transports.
func hasClientTransport(ids []string) bool {
	return slices.ContainsFunc(ids, func(id string) bool {
		_, ok := webClientTransport(id)
		return ok
	})
}

// onlyWebTransports reports whether every id is a known web transport (the
// others are reported on their own).
func onlyWebTransports(ids []string) bool {
	return !slices.ContainsFunc(ids, func(id string) bool {
		t, ok := LookupTransport(id)
		return !ok || t.Kind != TransportWeb
	})
}

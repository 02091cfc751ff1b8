package scaffold

import "strings"

// FieldKind is the type of a config field's value.
type FieldKind int

// Field kinds.
const (
	KindString FieldKind = iota // a string; optional services are null when unset
	KindBool                    // a --x / --no-x pair on the command line
	KindList                    // a list of ids (transports)
)

// Field is one of the config file's fields (docs/create.md, "Config files"): its key in config
// files and --dry-run output, its command-line flag and help, its default,
// and how to reach it in a Config and a Partial. Fields() is the one table
// that decoding, --dry-run output, defaults, flag registration and the
// wizard's open questions all go through.
type Field struct {
	Key     string // config key
	Flag    string // long flag, without dashes; bools also get --no-<Flag>
	Short   string // one-letter flag, or ""
	Usage   string // flag help
	Kind    FieldKind
	Default bool // a bool's value when not given

	cfgStr  func(*Config) *string
	cfgBool func(*Config) *bool
	str     func(*Partial) **string
	bl      func(*Partial) **bool
}

// FlagName returns "--flag" of the field.
func (f Field) FlagName() string { return "--" + f.Flag }

// IsSet reports whether p gives the field.
func (f Field) IsSet(p Partial) bool {
	switch f.Kind {
	case KindString:
		return *f.str(&p) != nil
	case KindBool:
		return *f.bl(&p) != nil
	}
	return p.Transports != nil
}

// SetString sets a string field in p.
func (f Field) SetString(p *Partial, v string) { *f.str(p) = &v }

// SetBool sets a bool field in p.
func (f Field) SetBool(p *Partial, v bool) { *f.bl(p) = &v }

// SetList sets the list field in p.
func (f Field) SetList(p *Partial, v []string) { p.Transports = append([]string{}, v...) }

var fieldTable = []Field{
	strField("project_name", "name", "n", "project name; makes the command non-interactive",
		func(c *Config) *string { return &c.ProjectName }, func(p *Partial) **string { return &p.ProjectName }),
	strField("bot_type", "bot-type", "b", "web or telephony (default: telephony when any transport is, else web)",
		func(c *Config) *string { return &c.BotType }, func(p *Partial) **string { return &p.BotType }),
	{Key: "transports", Flag: "transport", Short: "t", Usage: "transport id; repeatable or comma-separated", Kind: KindList},
	strField("mode", "mode", "m", "cascade or realtime (default: inferred from the services)",
		func(c *Config) *string { return &c.Mode }, func(p *Partial) **string { return &p.Mode }),
	strField("stt_service", "stt", "", "speech-to-text service (cascade)",
		func(c *Config) *string { return &c.STTService }, func(p *Partial) **string { return &p.STTService }),
	strField("llm_service", "llm", "", "LLM service (cascade)",
		func(c *Config) *string { return &c.LLMService }, func(p *Partial) **string { return &p.LLMService }),
	strField("tts_service", "tts", "", "text-to-speech service (cascade)",
		func(c *Config) *string { return &c.TTSService }, func(p *Partial) **string { return &p.TTSService }),
	strField("realtime_service", "realtime", "", "realtime speech-to-speech service",
		func(c *Config) *string { return &c.RealtimeService }, func(p *Partial) **string { return &p.RealtimeService }),
	strField("video_service", "video", "", "video avatar service (web bots; implies --video-output)",
		func(c *Config) *string { return &c.VideoService }, func(p *Partial) **string { return &p.VideoService }),
	strField("client_framework", "client-framework", "", "web client: react, vanilla or none",
		func(c *Config) *string { return &c.ClientFramework }, func(p *Partial) **string { return &p.ClientFramework }),
	strField("client_server", "client-server", "", "dev server of the react client: vite (default) or nextjs",
		func(c *Config) *string { return &c.ClientServer }, func(p *Partial) **string { return &p.ClientServer }),
	strField("pstn_mode", "pstn-mode", "", "dial-in or dial-out, for the daily_pstn transport",
		func(c *Config) *string { return &c.PSTNMode }, func(p *Partial) **string { return &p.PSTNMode }),
	strField("sip_bridge_mode", "sip-bridge-mode", "", "dial-in or dial-out, for the twilio_daily_sip transport",
		func(c *Config) *string { return &c.SIPBridgeMode }, func(p *Partial) **string { return &p.SIPBridgeMode }),
	boolField("recording", "recording", "record conversations to WAV files", false,
		func(c *Config) *bool { return &c.Recording }, func(p *Partial) **bool { return &p.Recording }),
	boolField("transcription", "transcription", "log conversation transcripts", false,
		func(c *Config) *bool { return &c.Transcription }, func(p *Partial) **bool { return &p.Transcription }),
	boolField("video_input", "video-input", "receive the user's camera (web bots)", false,
		func(c *Config) *bool { return &c.VideoInput }, func(p *Partial) **bool { return &p.VideoInput }),
	boolField("video_output", "video-output", "send video (web bots; on with a --video avatar)", false,
		func(c *Config) *bool { return &c.VideoOutput }, func(p *Partial) **bool { return &p.VideoOutput }),
	boolField("deploy_to_cloud", "deploy-to-cloud", "generate the Dockerfile and cloud deployment config (default true)", true,
		func(c *Config) *bool { return &c.DeployToCloud }, func(p *Partial) **bool { return &p.DeployToCloud }),
	boolField("enable_denoise", "enable-denoise", "Krisp noise cancellation when deployed (needs cloud deployment)", false,
		func(c *Config) *bool { return &c.EnableDenoise }, func(p *Partial) **bool { return &p.EnableDenoise }),
	boolField("enable_observability", "observability", "OpenTelemetry tracing", false,
		func(c *Config) *bool { return &c.EnableObservability }, func(p *Partial) **bool { return &p.EnableObservability }),
	boolField("eval", "eval", "eval transport and starter scenarios in server/evals/", false,
		func(c *Config) *bool { return &c.Eval }, func(p *Partial) **bool { return &p.Eval }),
	boolField("agents_guide", "agents-guide", "AGENTS.md (and CLAUDE.md) for AI coding agents, written from the project (default true)", true,
		func(c *Config) *bool { return &c.AgentsGuide }, func(p *Partial) **bool { return &p.AgentsGuide }),
}

func strField(key, flag, short, usage string, c func(*Config) *string, p func(*Partial) **string) Field {
	return Field{Key: key, Flag: flag, Short: short, Usage: usage, Kind: KindString, cfgStr: c, str: p}
}

func boolField(key, flag, usage string, def bool, c func(*Config) *bool, p func(*Partial) **bool) Field {
	return Field{Key: key, Flag: flag, Usage: usage, Kind: KindBool, Default: def, cfgBool: c, bl: p}
}

// Fields returns the config fields in documented order.
func Fields() []Field { return append([]Field(nil), fieldTable...) }

// LookupField returns the field with config key key.
func LookupField(key string) (Field, bool) {
	for _, f := range fieldTable {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// ConfigKeys returns the keys of the flat config file in documented order.
func ConfigKeys() []string {
	keys := make([]string, len(fieldTable))
	for i, f := range fieldTable {
		keys[i] = f.Key
	}
	return keys
}

// ConfigKey is one key of the flat config file and its JSON type:
// "string", "boolean" or "array" (of strings).
type ConfigKey struct {
	Key  string
	Type string
}

// ConfigKeyTypes returns every config key with its type, in documented
// order (the JSON Schema of ProjectConfig is derived from it).
func ConfigKeyTypes() []ConfigKey {
	out := make([]ConfigKey, len(fieldTable))
	for i, f := range fieldTable {
		t := "string"
		switch f.Kind {
		case KindBool:
			t = "boolean"
		case KindList:
			t = "array"
		}
		out[i] = ConfigKey{Key: f.Key, Type: t}
	}
	return out
}

// flagKey is how problems name a field: "--stt (stt_service)".
func flagKey(key string) string {
	f, ok := LookupField(key)
	if !ok {
		return key
	}
	return f.FlagName() + " (" + key + ")"
}

// Over returns p with every field that o sets replaced by o's value: o wins.
func (p Partial) Over(o Partial) Partial {
	for _, f := range fieldTable {
		switch f.Kind {
		case KindString:
			if v := *f.str(&o); v != nil {
				f.SetString(&p, *v)
			}
		case KindBool:
			if v := *f.bl(&o); v != nil {
				f.SetBool(&p, *v)
			}
		case KindList:
			if o.Transports != nil {
				f.SetList(&p, o.Transports)
			}
		}
	}
	return p
}

// PartialOf returns the partial that sets every field of c (the inverse of
// Resolve for a complete config); empty strings stay unset.
func PartialOf(c Config) Partial {
	var p Partial
	for _, f := range fieldTable {
		switch f.Kind {
		case KindString:
			if v := *f.cfgStr(&c); v != "" {
				f.SetString(&p, v)
			}
		case KindBool:
			f.SetBool(&p, *f.cfgBool(&c))
		case KindList:
			if c.Transports != nil {
				f.SetList(&p, c.Transports)
			}
		}
	}
	return p
}

// fill copies what p gives into a Config, with the defaults of the table
// for what it does not.
func fill(p Partial) Config {
	var c Config
	for _, f := range fieldTable {
		switch f.Kind {
		case KindString:
			if v := *f.str(&p); v != nil {
				*f.cfgStr(&c) = *v
			}
		case KindBool:
			*f.cfgBool(&c) = f.Default
			if v := *f.bl(&p); v != nil {
				*f.cfgBool(&c) = *v
			}
		case KindList:
			c.Transports = append([]string{}, p.Transports...)
		}
	}
	return c
}

// ValueIn returns the field's value in c as its flag takes it: a string
// ("" when unset), the transports comma-separated, a bool "true"/"false".
func (f Field) ValueIn(c Config) string {
	switch f.Kind {
	case KindString:
		return *f.cfgStr(&c)
	case KindBool:
		if *f.cfgBool(&c) {
			return "true"
		}
		return "false"
	}
	return strings.Join(c.Transports, ",")
}

// Args returns the flags of `botkit create` that make c without a question:
// every string and list that is set, and each bool that differs from its
// default (--x or --no-x), in documented order.
func (c Config) Args() []string {
	var args []string
	for _, f := range fieldTable {
		v := f.ValueIn(c)
		switch {
		case f.Kind == KindBool && (v == "true") != f.Default:
			if v == "true" {
				args = append(args, f.FlagName())
			} else {
				args = append(args, "--no-"+f.Flag)
			}
		case f.Kind != KindBool && v != "":
			args = append(args, f.FlagName(), v)
		}
	}
	return args
}

package scaffold

import (
	"bytes"
	"encoding/json"

	"github.com/botkit-dev/botkit/internal/yamlnode"
)

// MarshalJSON writes the config with its keys in documented order and unset
// optional values as null (docs/create.md).
func (c Config) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range fieldTable {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		buf.Write(k)
		buf.WriteByte(':')
		var v any
		switch f.Kind {
		case KindString:
			if s := *f.cfgStr(&c); s != "" {
				v = s
			}
		case KindBool:
			v = *f.cfgBool(&c)
		case KindList:
			v = c.Transports
			if c.Transports == nil {
				v = []string{}
			}
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// JSON returns the config as indented JSON, as `create --dry-run` prints it.
func (c Config) JSON() ([]byte, error) {
	raw, err := c.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// ManifestYAML returns the config as a ProjectConfig manifest that
// `create -c` reads back to the identical config.
func (c Config) ManifestYAML() ([]byte, error) {
	raw, err := c.MarshalJSON()
	if err != nil {
		return nil, err
	}
	spec := map[string]any{}
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, err
	}
	delete(spec, "project_name")
	doc := map[string]any{
		"apiVersion": APIVersion,
		"kind":       KindProjectConfig,
		"metadata":   map[string]any{"name": c.ProjectName},
		"spec":       spec,
	}
	return yamlnode.Marshal(doc)
}

// Options is the listing of every valid option value (`--list-options`).
type Options struct {
	BotType    []string            `json:"bot_type"`
	Transports map[string][]string `json:"transports"`
	STT        []string            `json:"stt"`
	LLM        []string            `json:"llm"`
	TTS        []string            `json:"tts"`
	Realtime   []string            `json:"realtime"`
	Video      []string            `json:"video"`
	// The enumerations besides the catalogue's ids, under their config keys.
	Mode            []string `json:"mode"`
	ClientFramework []string `json:"client_framework"`
	ClientServer    []string `json:"client_server"`
	PSTNMode        []string `json:"pstn_mode"`
	SIPBridgeMode   []string `json:"sip_bridge_mode"`
}

// ListOptions returns every valid option value, from the catalogue and
// KeyValues (the one list of each enumeration).
func ListOptions() Options {
	return Options{
		BotType: BotTypes(),
		Transports: map[string][]string{
			"web":       TransportIDs(TransportWeb),
			"telephony": TransportIDs(TransportTelephony),
		},
		STT:      ServiceIDs(CategorySTT),
		LLM:      ServiceIDs(CategoryLLM),
		TTS:      ServiceIDs(CategoryTTS),
		Realtime: ServiceIDs(CategoryRealtime),
		Video:    ServiceIDs(CategoryVideo),

		Mode:            KeyValues("mode"),
		ClientFramework: KeyValues("client_framework"),
		ClientServer:    KeyValues("client_server"),
		PSTNMode:        KeyValues("pstn_mode"),
		SIPBridgeMode:   KeyValues("sip_bridge_mode"),
	}
}

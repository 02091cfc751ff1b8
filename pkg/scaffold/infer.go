package scaffold

import "slices"

// BotTypeOf returns the bot type p gives or implies (docs/create.md), or ""
// when nothing decides it yet: --bot-type; else telephony when any
// transport is a telephony one, web when transports are given and all are
// web ones; else web when a web-only option (a client, video) is given.
func BotTypeOf(p Partial) string {
	if p.BotType != nil {
		return *p.BotType
	}
	if len(p.Transports) > 0 {
		for _, id := range p.Transports {
			if t, ok := LookupTransport(id); ok && t.Kind == TransportTelephony {
				return "telephony"
			}
		}
		return "web"
	}
	isTrue := func(b *bool) bool { return b != nil && *b }
	if p.ClientFramework != nil || p.ClientServer != nil || (p.VideoService != nil && *p.VideoService != "") ||
		isTrue(p.VideoInput) || isTrue(p.VideoOutput) {
		return "web"
	}
	return ""
}

// ModeOf returns the pipeline mode p gives or implies, or "": --mode; else
// cascade when any of stt/llm/tts is given and no realtime service,
// realtime when a realtime service is given and no cascade one.
func ModeOf(p Partial) string {
	if p.Mode != nil {
		return *p.Mode
	}
	cascade := p.STTService != nil || p.LLMService != nil || p.TTSService != nil
	realtime := p.RealtimeService != nil
	switch {
	case cascade && !realtime:
		return "cascade"
	case realtime && !cascade:
		return "realtime"
	}
	return ""
}

// needsMode reports whether p's transports need --pstn-mode ("pstn") or
// --sip-bridge-mode ("sip").
func needsMode(p Partial, which string) bool {
	for _, id := range p.Transports {
		t, ok := LookupTransport(id)
		if !ok {
			continue
		}
		if t.VariantOf != "" {
			continue // a listed variant fixes its mode
		}
		if t.NeedsMode == which {
			return true
		}
	}
	return false
}

// Undecided returns the config keys whose value p neither gives nor
// implies and that matter given what p decides, in the order the wizard
// asks them (docs/create.md). client_server is decided with client_framework;
// video_output follows video_service when that is an avatar.
func Undecided(p Partial) []string {
	var keys []string
	add := func(key string, open bool) {
		if open {
			keys = append(keys, key)
		}
	}
	bt := BotTypeOf(p)
	add("project_name", p.ProjectName == nil)
	add("bot_type", bt == "")
	add("client_framework", bt != "telephony" && p.ClientFramework == nil)
	add("transports", p.Transports == nil)
	add("pstn_mode", needsMode(p, "pstn") && p.PSTNMode == nil)
	add("sip_bridge_mode", needsMode(p, "sip") && p.SIPBridgeMode == nil)
	mode := ModeOf(p)
	add("mode", mode == "")
	add("realtime_service", mode == "realtime" && p.RealtimeService == nil)
	for _, k := range []struct {
		key string
		v   *string
	}{{"stt_service", p.STTService}, {"llm_service", p.LLMService}, {"tts_service", p.TTSService}} {
		add(k.key, mode == "cascade" && k.v == nil)
	}
	web := bt != "telephony"
	add("recording", p.Recording == nil)
	add("transcription", p.Transcription == nil)
	add("video_service", web && p.VideoService == nil)
	add("video_input", web && p.VideoInput == nil)
	add("video_output", web && p.VideoOutput == nil && (p.VideoService == nil || *p.VideoService == ""))
	add("enable_observability", p.EnableObservability == nil)
	add("eval", p.Eval == nil)
	add("deploy_to_cloud", p.DeployToCloud == nil)
	add("enable_denoise", (p.DeployToCloud == nil || *p.DeployToCloud) && p.EnableDenoise == nil)
	return keys
}

// IsUndecided reports whether key is among Undecided(p).
func IsUndecided(p Partial, key string) bool { return slices.Contains(Undecided(p), key) }

// Contradictions returns the problems of p that no answer to an undecided
// question can remove: contradictions and invalid values among the keys p
// already decides. Missing values are not problems here.
func (p Partial) Contradictions() []Problem {
	open := Undecided(p)
	var out []Problem
	for _, pr := range Check(Resolve(p)) {
		if pr.Missing {
			continue
		}
		decided := true
		for _, k := range pr.Keys {
			if slices.Contains(open, k) {
				decided = false
			}
		}
		if decided {
			out = append(out, pr)
		}
	}
	return out
}

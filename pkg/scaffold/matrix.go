package scaffold

import (
	"fmt"
	"strings"
)

// cascadePartial returns a valid web cascade partial to vary.
func cascadePartial() Partial {
	return Partial{
		Transports: []string{"smallwebrtc"},
		STTService: sp("deepgram_stt"),
		LLMService: sp("openai_llm"),
		TTSService: sp("cartesia_tts"),
	}
}

// Matrix returns one config per catalogue id, transport, dial mode and
// feature, named, each valid: the projects the tests generate and check
// (pkg/scaffold's Pipecat and client checks, botkit init's guide).
func Matrix() (map[string]Config, error) {
	out := map[string]Config{}
	var bad []string
	add := func(name string, p Partial) {
		p.ProjectName = sp(name)
		c := Resolve(p)
		if probs := Validate(c); len(probs) > 0 {
			bad = append(bad, fmt.Sprintf("%s: %v", name, probs))
		}
		out[name] = c
	}
	for _, s := range ServicesIn(CategorySTT) {
		p := cascadePartial()
		p.STTService = sp(s.ID)
		add("stt-"+s.ID, p)
	}
	for _, s := range ServicesIn(CategoryLLM) {
		p := cascadePartial()
		p.LLMService = sp(s.ID)
		add("llm-"+s.ID, p)
	}
	for _, s := range ServicesIn(CategoryTTS) {
		p := cascadePartial()
		p.TTSService = sp(s.ID)
		add("tts-"+s.ID, p)
	}
	for _, s := range ServicesIn(CategoryRealtime) {
		add("realtime-"+s.ID, Partial{Transports: []string{"daily"}, RealtimeService: sp(s.ID)})
	}
	for _, s := range ServicesIn(CategoryVideo) {
		p := cascadePartial()
		p.VideoService = sp(s.ID)
		add("video-"+s.ID, p)
	}
	for _, tr := range Transports() {
		p := cascadePartial()
		p.Transports = []string{tr.ID}
		switch {
		case tr.NeedsMode == "pstn":
			for _, m := range []string{"dial-in", "dial-out"} {
				q := p
				q.PSTNMode = sp(m)
				add("transport-"+tr.ID+"-"+m, q)
			}
		case tr.NeedsMode == "sip":
			for _, m := range []string{"dial-in", "dial-out"} {
				q := p
				q.SIPBridgeMode = sp(m)
				add("transport-"+tr.ID+"-"+m, q)
			}
		default:
			add("transport-"+tr.ID, p)
		}
	}
	all := cascadePartial()
	all.Transports = []string{"smallwebrtc", "daily"}
	all.VideoService = sp("tavus_video")
	all.ClientFramework = sp("react")
	for _, b := range []**bool{&all.Recording, &all.Transcription, &all.VideoInput, &all.VideoOutput, &all.EnableDenoise, &all.EnableObservability, &all.Eval} {
		*b = bp(true)
	}
	add("all-features-web", all)
	tel := Partial{
		Transports:          []string{"twilio", "telnyx", "plivo", "exotel"},
		RealtimeService:     sp("openai_realtime"),
		Recording:           bp(true),
		Transcription:       bp(true),
		EnableDenoise:       bp(true),
		EnableObservability: bp(true),
		Eval:                bp(true),
	}
	add("all-features-telephony-realtime", tel)
	rt := Partial{Transports: []string{"smallwebrtc"}, RealtimeService: sp("gemini_live_realtime"), VideoInput: bp(true), Recording: bp(true), DeployToCloud: bp(false)}
	if _, ok := LookupService("gemini_live_realtime"); ok {
		add("realtime-video-input-local", rt)
	}
	sip := cascadePartial()
	sip.Transports = []string{"twilio_daily_sip_dialin"}
	sip.Recording, sip.Eval = bp(true), bp(true)
	add("sip-variant-dialin-features", sip)
	// Phone bots with web transports for testing in a browser.
	mixed := cascadePartial()
	mixed.Transports = []string{"twilio", "exotel", "smallwebrtc", "daily"}
	mixed.EnableDenoise, mixed.Recording = bp(true), bp(true)
	add("telephony-with-web-transports", mixed)
	mixedWS := cascadePartial()
	mixedWS.Transports = []string{"twilio", "websocket"}
	add("telephony-with-websocket", mixedWS)
	mixedDaily := cascadePartial()
	mixedDaily.Transports, mixedDaily.PSTNMode = []string{"daily_pstn", "telnyx", "smallwebrtc"}, sp("dial-out")
	add("telephony-daily-with-webrtc", mixedDaily)
	if len(bad) > 0 {
		return nil, fmt.Errorf("invalid matrix configs: %s", strings.Join(bad, "; "))
	}
	return out, nil
}

func sp(s string) *string { return &s }
func bp(b bool) *bool     { return &b }

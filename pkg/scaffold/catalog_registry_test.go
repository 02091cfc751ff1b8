package scaffold

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

// registryFile holds the ids of pipecat-ai's own scaffolding registry
// (`pipecat init`) at the release the catalogue targets; its header says
// where they were read.
const registryFile = "testdata/pipecat-registry-1.7.0.txt"

// botkitOnly are catalogue ids the framework's registry does not list:
// services of pipecat-ai 1.7.0 botkit offers besides, and the transports
// botkit spells as a base plus --pstn-mode / --sip-bridge-mode.
var botkitOnly = []string{
	"daily_pstn", "twilio_daily_sip",
	"smallest_stt", "together_stt",
	"nebius_llm",
	"speechmatics_tts", "together_tts",
	"inworld_realtime",
}

// registryIDs reads registryFile: section name -> ids.
func registryIDs(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(registryFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
		case section == "":
			t.Fatalf("%s: id %q before any section", registryFile, line)
		default:
			out[section] = append(out[section], line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCatalogFollowsPipecatRegistry holds the catalogue to the framework's
// registry: every id there is a catalogue id of the same kind (never an
// alias), and every catalogue id is either there or one of botkitOnly. When
// the next release's ids replace the committed list, the failures say what
// moved.
func TestCatalogFollowsPipecatRegistry(t *testing.T) {
	reg := registryIDs(t)
	sections := map[string]func(string) bool{
		"webrtc_transports":    transportOf(TransportWeb),
		"telephony_transports": transportOf(TransportTelephony),
		"stt_services":         serviceOf(CategorySTT),
		"llm_services":         serviceOf(CategoryLLM),
		"tts_services":         serviceOf(CategoryTTS),
		"realtime_services":    serviceOf(CategoryRealtime),
		"video_services":       serviceOf(CategoryVideo),
	}
	inRegistry := map[string]bool{}
	for section, ids := range reg {
		has, ok := sections[section]
		if !ok {
			t.Errorf("%s: section [%s] is new: give its ids a place in the catalogue", registryFile, section)
			continue
		}
		for _, id := range ids {
			// The framework's few ids of another shape (ultravox, no
			// category suffix) are accepted as they are and stand for
			// the catalogue's id.
			if to, ok := FrameworkNames()[id]; ok {
				id = to
			} else if to, ok := CanonicalID(id); ok {
				t.Errorf("registry id %s is an alias (of %s) in the catalogue", id, to)
			}
			inRegistry[id] = true
			if !has(id) {
				t.Errorf("registry id %s ([%s]) is not in the catalogue", id, section)
			}
		}
	}
	for section := range sections {
		if len(reg[section]) == 0 {
			t.Errorf("%s: no ids in [%s]", registryFile, section)
		}
	}

	var ours []string
	for _, tr := range Transports() {
		ours = append(ours, tr.ID)
	}
	for _, s := range Services() {
		ours = append(ours, s.ID)
	}
	for _, id := range ours {
		if !inRegistry[id] && !slices.Contains(botkitOnly, id) {
			t.Errorf("catalogue id %s is not in the framework's registry: rename it to the registry's id (keep the old one in idAliases) or list it in botkitOnly", id)
		}
	}
	for _, id := range botkitOnly {
		if inRegistry[id] {
			t.Errorf("%s is in botkitOnly but the registry has it now", id)
		}
		if !slices.Contains(ours, id) {
			t.Errorf("%s is in botkitOnly but not in the catalogue", id)
		}
	}
}

func transportOf(kind TransportKind) func(string) bool {
	return func(id string) bool {
		t, ok := LookupTransport(id)
		return ok && t.Kind == kind
	}
}

func serviceOf(c Category) func(string) bool {
	return func(id string) bool {
		s, ok := LookupService(id)
		return ok && s.Category == c
	}
}

// TestAliasesNameCatalogueIDs: every alias stands for a catalogue id of
// the same kind, is no catalogue id itself, and is never listed.
func TestAliasesNameCatalogueIDs(t *testing.T) {
	aliases := Aliases()
	if len(aliases) != 7 {
		t.Errorf("%d aliases, want the 7 ids botkit renamed to the framework's", len(aliases))
	}
	listed := map[string]bool{}
	for _, key := range ConfigKeys() {
		for _, v := range KeyValues(key) {
			listed[v] = true
		}
	}
	for name, to := range FrameworkNames() {
		if _, ok := LookupTransport(to); ok {
			if _, clash := LookupTransport(name); clash || listed[name] {
				t.Errorf("framework name %s is a transport id or listed", name)
			}
			continue // the runner's transport name
		}
		aliases[name] = to
	}
	for old, to := range aliases {
		if _, ok := LookupService(old); ok {
			t.Errorf("alias %s is also a catalogue id", old)
		}
		if listed[old] {
			t.Errorf("alias %s is listed", old)
		}
		s, ok := LookupService(to)
		if !ok {
			t.Errorf("alias %s stands for %s, which is not in the catalogue", old, to)
			continue
		}
		if suffix := "_" + string(s.Category); !strings.HasSuffix(old, suffix) && !FrameworkName(old) {
			t.Errorf("alias %s stands for %s, a %s service", old, to, s.Category)
		}
	}
}

// TestRenameAliases: earlier ids in a partial become the framework's ids,
// each reported with its field; current ids are left alone.
func TestRenameAliases(t *testing.T) {
	p := Partial{
		Transports: []string{"smallwebrtc"},
		STTService: sp("aws_stt"),
		LLMService: sp("google_gemini_llm"),
		TTSService: sp("aws_tts"),
	}
	got := RenameAliases(&p)
	if len(got) != 2 || got[0].Field.Key != "stt_service" || got[0].Old != "aws_stt" || got[0].New != "aws_transcribe_stt" ||
		got[1].Field.FlagName() != "--tts" || got[1].New != "aws_polly_tts" {
		t.Errorf("RenameAliases = %+v", got)
	}
	if *p.STTService != "aws_transcribe_stt" || *p.LLMService != "google_gemini_llm" || *p.TTSService != "aws_polly_tts" {
		t.Errorf("renamed partial = %s %s %s", *p.STTService, *p.LLMService, *p.TTSService)
	}
	// The framework's names: pipecat init's ultravox, the runner's webrtc.
	rt := Partial{Transports: []string{"webrtc"}, RealtimeService: sp("ultravox")}
	RenameAliases(&rt)
	if *rt.RealtimeService != "ultravox_realtime" || rt.Transports[0] != "smallwebrtc" {
		t.Errorf("framework names: realtime %s, transports %v", *rt.RealtimeService, rt.Transports)
	}
	if probs := Validate(Resolve(Partial{ProjectName: sp("x"), Transports: rt.Transports, RealtimeService: rt.RealtimeService})); len(probs) > 0 {
		t.Errorf("ultravox: %v", probs)
	}
}

package create_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/cmd/create"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// runWizard drives the wizard in accessible mode, the way a user at a screen
// reader (or a script) answers it: one line per prompt. It returns the
// result, everything written to stderr, and the error. Nothing may be
// written to stdout.
func runWizard(t *testing.T, given scaffold.Partial, lines ...string) (scaffold.Partial, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	ios.In = strings.NewReader(strings.Join(lines, "\n") + "\n")
	p, err := create.RunWizard(context.Background(), prompter.New(ios, true), ios.ErrOut, given)
	if out.Len() > 0 {
		t.Errorf("the wizard wrote to stdout: %q", out.String())
	}
	return p, errOut.String(), err
}

// serviceNum is the menu number of a catalogue service: menus list the
// catalogue in its order. checkMenu confirms the user saw that number.
func serviceNum(t *testing.T, c scaffold.Category, id string) string {
	t.Helper()
	i := slices.IndexFunc(scaffold.ServicesIn(c), func(s scaffold.Service) bool { return s.ID == id })
	if i < 0 {
		t.Fatalf("service %s is not in the catalogue", id)
	}
	return strconv.Itoa(i + 1)
}

func transportNum(t *testing.T, kind scaffold.TransportKind, id string) string {
	t.Helper()
	n := 0
	for _, tr := range scaffold.Transports() {
		if tr.Kind != kind || tr.VariantOf != "" {
			continue
		}
		n++
		if tr.ID == id {
			return strconv.Itoa(n)
		}
	}
	t.Fatalf("transport %s is not offered", id)
	return ""
}

// checkMenu asserts the transcript showed option number num as the entry
// for id, so the scripted answer picked what the test meant.
func checkMenu(t *testing.T, transcript, num, id string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + num + `\.\s+(✓\s+)?[^\n]*\(` + regexp.QuoteMeta(id) + `\)$`)
	if !re.MatchString(transcript) {
		t.Errorf("transcript has no menu entry %s. ... (%s):\n%s", num, id, transcript)
	}
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return strconv.Quote(*p)
}

func bl(p *bool) string {
	if p == nil {
		return "<nil>"
	}
	return strconv.FormatBool(*p)
}

// wantPartial compares every field of got with want.
func wantPartial(t *testing.T, got, want scaffold.Partial) {
	t.Helper()
	check := func(name, g, w string) {
		t.Helper()
		if g != w {
			t.Errorf("%s = %s, want %s", name, g, w)
		}
	}
	check("ProjectName", str(got.ProjectName), str(want.ProjectName))
	check("BotType", str(got.BotType), str(want.BotType))
	check("Transports", fmt.Sprintf("%q", got.Transports), fmt.Sprintf("%q", want.Transports))
	if (got.Transports == nil) != (want.Transports == nil) {
		t.Errorf("Transports nil = %v, want %v", got.Transports == nil, want.Transports == nil)
	}
	check("Mode", str(got.Mode), str(want.Mode))
	check("STTService", str(got.STTService), str(want.STTService))
	check("LLMService", str(got.LLMService), str(want.LLMService))
	check("TTSService", str(got.TTSService), str(want.TTSService))
	check("RealtimeService", str(got.RealtimeService), str(want.RealtimeService))
	check("VideoService", str(got.VideoService), str(want.VideoService))
	check("ClientFramework", str(got.ClientFramework), str(want.ClientFramework))
	check("ClientServer", str(got.ClientServer), str(want.ClientServer))
	check("PSTNMode", str(got.PSTNMode), str(want.PSTNMode))
	check("SIPBridgeMode", str(got.SIPBridgeMode), str(want.SIPBridgeMode))
	check("Recording", bl(got.Recording), bl(want.Recording))
	check("Transcription", bl(got.Transcription), bl(want.Transcription))
	check("VideoInput", bl(got.VideoInput), bl(want.VideoInput))
	check("VideoOutput", bl(got.VideoOutput), bl(want.VideoOutput))
	check("DeployToCloud", bl(got.DeployToCloud), bl(want.DeployToCloud))
	check("EnableDenoise", bl(got.EnableDenoise), bl(want.EnableDenoise))
	check("EnableObservability", bl(got.EnableObservability), bl(want.EnableObservability))
	check("Eval", bl(got.Eval), bl(want.Eval))
}

// wantValid asserts the answers make a config that generates.
func wantValid(t *testing.T, p scaffold.Partial) scaffold.Config {
	t.Helper()
	c := scaffold.Resolve(p)
	if probs := scaffold.Validate(c); len(probs) > 0 {
		t.Errorf("the wizard's answers do not validate:\n%s", strings.Join(probs, "\n"))
	}
	return c
}

func s(v string) *string { return &v }
func b(v bool) *bool     { return &v }

// wantAsked asserts each prompt appears in the transcript, in this order.
func wantAsked(t *testing.T, transcript string, prompts ...string) {
	t.Helper()
	at := 0
	for _, p := range prompts {
		i := strings.Index(transcript[at:], p)
		if i < 0 {
			t.Errorf("prompt %q not asked (after offset %d):\n%s", p, at, transcript)
			return
		}
		at += i + len(p)
	}
}

func wantNotAsked(t *testing.T, transcript string, prompts ...string) {
	t.Helper()
	for _, p := range prompts {
		if strings.Contains(transcript, p) {
			t.Errorf("prompt %q was asked but should not be:\n%s", p, transcript)
		}
	}
}

func TestWizardFullWebRun(t *testing.T) {
	daily := transportNum(t, scaffold.TransportWeb, "daily")
	stt := serviceNum(t, scaffold.CategorySTT, "assemblyai_stt")
	tts := serviceNum(t, scaffold.CategoryTTS, "elevenlabs_tts")
	video := serviceNum(t, scaffold.CategoryVideo, "tavus_video")
	p, out, err := runWizard(t, scaffold.Partial{},
		"bad/name", // refused: re-asked
		"voice-bot",
		"3",        // Web — React + Next.js
		daily, "0", // add daily to the preselected smallwebrtc
		"",           // pipeline mode: default cascade
		stt, "", tts, // LLM: default
		"1", "3", "6", "0", // recording, video avatar, observability
		video,
		"",  // deployment: default cloud
		"y", // noise cancellation
	)
	if err != nil {
		t.Fatalf("RunWizard: %v\n%s", err, out)
	}
	wantAsked(t, out,
		"Project name (Enter for pipecat-bot)",
		"may hold only letters", // the refusal of bad/name
		"Bot type and client",
		"Transport providers",
		"Pipeline mode (Enter for Cascade",
		"Speech-to-text (STT) service",
		"LLM service (Enter for OpenAI (openai_llm))",
		"Text-to-speech (TTS) service",
		"Optional features",
		"Video avatar service",
		"Deployment target",
		"Enable noise cancellation (Krisp, in the cloud only)?",
	)
	checkMenu(t, out, daily, "daily")
	checkMenu(t, out, stt, "assemblyai_stt")
	checkMenu(t, out, tts, "elevenlabs_tts")
	checkMenu(t, out, video, "tavus_video")
	for _, want := range []string{"1. Phone (telephony)", "3. Web — React + Next.js", "5. Mobile (web bot, no generated client)", "1.   Call recording", "3.   Video avatar", "6.   Observability"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	wantNotAsked(t, out, "dial-in or dial-out", "Realtime service")
	wantPartial(t, p, scaffold.Partial{
		ProjectName:         s("voice-bot"),
		BotType:             s("web"),
		Transports:          []string{"daily", "smallwebrtc"},
		Mode:                s("cascade"),
		STTService:          s("assemblyai_stt"),
		LLMService:          s("openai_llm"),
		TTSService:          s("elevenlabs_tts"),
		VideoService:        s("tavus_video"),
		ClientFramework:     s("react"),
		ClientServer:        s("nextjs"),
		Recording:           b(true),
		Transcription:       b(false),
		VideoInput:          b(false),
		VideoOutput:         b(true), // an avatar is video output
		DeployToCloud:       b(true),
		EnableDenoise:       b(true),
		EnableObservability: b(true),
		Eval:                b(false),
	})
	wantValid(t, p)
}

// Pressing Enter at every question gives the documented defaults, and they
// make a working bot.
func TestWizardDefaults(t *testing.T) {
	p, out, err := runWizard(t, scaffold.Partial{}, "", "", "0", "", "", "", "", "0", "", "")
	if err != nil {
		t.Fatalf("RunWizard: %v\n%s", err, out)
	}
	wantPartial(t, p, scaffold.Partial{
		ProjectName:         s("pipecat-bot"),
		BotType:             s("web"),
		Transports:          []string{"smallwebrtc"},
		Mode:                s("cascade"),
		STTService:          s("deepgram_stt"),
		LLMService:          s("openai_llm"),
		TTSService:          s("cartesia_tts"),
		ClientFramework:     s("react"),
		ClientServer:        s("vite"),
		Recording:           b(false),
		Transcription:       b(false),
		VideoInput:          b(false),
		VideoOutput:         b(false),
		DeployToCloud:       b(true),
		EnableDenoise:       b(false),
		EnableObservability: b(false),
		Eval:                b(false),
	})
	wantValid(t, p)
}

func TestWizardTelephonyDailyPSTN(t *testing.T) {
	twilio := transportNum(t, scaffold.TransportTelephony, "twilio")
	pstn := transportNum(t, scaffold.TransportTelephony, "daily_pstn")
	p, out, err := runWizard(t, scaffold.Partial{},
		"phone-bot",
		"1",               // Phone (telephony)
		twilio, pstn, "0", // swap the preselected twilio for daily_pstn
		"2",            // dial-out
		"", "", "", "", // cascade with the default services
		"0", // no optional features
		"2", // local only
	)
	if err != nil {
		t.Fatalf("RunWizard: %v\n%s", err, out)
	}
	checkMenu(t, out, pstn, "daily_pstn")
	wantAsked(t, out, "Telephony providers", "Daily PSTN: dial-in or dial-out", "Pipeline mode", "Optional features", "Deployment target")
	// Web-only questions and the variants are not offered to a phone bot,
	// and noise cancellation is only asked for cloud deployments.
	wantNotAsked(t, out, "Video", "(twilio_daily_sip_dialin)", "Twilio + Daily SIP: dial-in", "noise cancellation", "Client")
	// Web transports are offered for testing the phone bot in a browser.
	if !strings.Contains(out, ", for local testing (smallwebrtc)") {
		t.Errorf("the phone path does not offer web transports:\n%s", out)
	}
	wantPartial(t, p, scaffold.Partial{
		ProjectName:         s("phone-bot"),
		BotType:             s("telephony"),
		Transports:          []string{"daily_pstn"},
		Mode:                s("cascade"),
		STTService:          s("deepgram_stt"),
		LLMService:          s("openai_llm"),
		TTSService:          s("cartesia_tts"),
		PSTNMode:            s("dial-out"),
		Recording:           b(false),
		Transcription:       b(false),
		DeployToCloud:       b(false),
		EnableObservability: b(false),
		Eval:                b(false),
	})
	wantValid(t, p)
}

func TestWizardTelephonySIPBridgeGivenTransport(t *testing.T) {
	// --transport twilio_daily_sip given: only its mode is asked about it.
	p, out, err := runWizard(t, scaffold.Partial{ProjectName: s("sip"), Transports: []string{"twilio_daily_sip"}},
		"", // dial-in
		"", "", "", "", "0", "", "",
	)
	if err != nil {
		t.Fatalf("RunWizard: %v\n%s", err, out)
	}
	wantAsked(t, out, "Twilio + Daily SIP: dial-in or dial-out (Enter for Dial-in")
	wantNotAsked(t, out, "Bot type", "Client", "providers", "Daily PSTN")
	if str(p.SIPBridgeMode) != `"dial-in"` || p.BotType != nil || p.PSTNMode != nil {
		t.Errorf("SIPBridgeMode=%s BotType=%s PSTNMode=%s", str(p.SIPBridgeMode), str(p.BotType), str(p.PSTNMode))
	}
	wantValid(t, p)
}

func TestWizardRealtime(t *testing.T) {
	gemini := serviceNum(t, scaffold.CategoryRealtime, "gemini_live_realtime")
	p, out, err := runWizard(t, scaffold.Partial{},
		"rt-bot",
		"4", // Web — plain JavaScript
		"0", // keep smallwebrtc
		"2", // realtime
		gemini,
		"4", "5", "7", "0", // video input, video output, evals
		"1", // cloud
		"",  // no noise cancellation
	)
	if err != nil {
		t.Fatalf("RunWizard: %v\n%s", err, out)
	}
	checkMenu(t, out, gemini, "gemini_live_realtime")
	wantAsked(t, out, "Pipeline mode", "Realtime service", "Optional features", "Deployment target", "noise cancellation")
	wantNotAsked(t, out, "Speech-to-text", "LLM service", "Text-to-speech", "Video avatar service")
	wantPartial(t, p, scaffold.Partial{
		ProjectName:         s("rt-bot"),
		BotType:             s("web"),
		Transports:          []string{"smallwebrtc"},
		Mode:                s("realtime"),
		RealtimeService:     s("gemini_live_realtime"),
		ClientFramework:     s("vanilla"),
		Recording:           b(false),
		Transcription:       b(false),
		VideoInput:          b(true),
		VideoOutput:         b(true),
		DeployToCloud:       b(true),
		EnableDenoise:       b(false),
		EnableObservability: b(false),
		Eval:                b(true),
	})
	wantValid(t, p)
}

func TestWizardSkipsQuestionsFlagsAnswer(t *testing.T) {
	given := scaffold.Partial{
		ProjectName:   s("given-bot"),
		Transports:    []string{"daily"},
		STTService:    s("deepgram_stt"),
		LLMService:    s("anthropic_llm"),
		TTSService:    s("cartesia_tts"),
		Recording:     b(false),
		VideoService:  s("simli_video"),
		DeployToCloud: b(false),
	}
	p, out, err := runWizard(t, given,
		"",       // client: React + Vite
		"1", "0", // features: the first offered, Transcription
	)
	if err != nil {
		t.Fatalf("RunWizard: %v\n%s", err, out)
	}
	wantAsked(t, out, "Client (Enter for Web — React + Vite)", "Optional features")
	wantNotAsked(t, out,
		"Project name", "Bot type", "Phone (telephony)", "Transport providers", "Pipeline mode",
		"Speech-to-text", "LLM service", "Text-to-speech", "Realtime service",
		"Call recording", "Video avatar", "Deployment target", "noise cancellation",
	)
	if !strings.Contains(out, "1.   Transcription log") {
		t.Errorf("features menu should start with Transcription log after the given recording:\n%s", out)
	}
	wantPartial(t, p, scaffold.Partial{
		ProjectName:         s("given-bot"),
		Transports:          []string{"daily"},
		STTService:          s("deepgram_stt"),
		LLMService:          s("anthropic_llm"),
		TTSService:          s("cartesia_tts"),
		VideoService:        s("simli_video"),
		ClientFramework:     s("react"),
		ClientServer:        s("vite"),
		BotType:             s("web"),
		Recording:           b(false),
		Transcription:       b(true),
		VideoInput:          b(false),
		VideoOutput:         nil, // implied by the avatar
		DeployToCloud:       b(false),
		EnableObservability: b(false),
		Eval:                b(false),
	})
	wantValid(t, p)
}

// Everything given: the wizard asks nothing and reads nothing.
func TestWizardNothingToAsk(t *testing.T) {
	given := scaffold.PartialOf(scaffold.Config{
		ProjectName: "x", BotType: "telephony", Transports: []string{"twilio"}, Mode: "realtime",
		RealtimeService: "openai_realtime", DeployToCloud: true,
	})
	ios, _, _, errOut := iostreams.Test()
	ios.In = strings.NewReader("")
	p, err := create.RunWizard(context.Background(), prompter.New(ios, true), ios.ErrOut, given)
	if err != nil {
		t.Fatalf("RunWizard: %v", err)
	}
	if errOut.Len() > 0 {
		t.Errorf("asked questions although every answer was given:\n%s", errOut)
	}
	wantPartial(t, p, given)
}

func TestWizardEndOfInput(t *testing.T) {
	for _, tc := range []struct {
		name     string
		input    string
		wantFlag string
	}{
		{"before the name", "", "--name"},
		{"after the bot type", "my-bot\n1\n", "--transport"},
		{"after the services", "my-bot\n2\n0\n\n\n\n\n", "--recording"},
		{"at the dial mode", "p\n1\n" + transportNum(t, scaffold.TransportTelephony, "twilio") + "\n" +
			transportNum(t, scaffold.TransportTelephony, "daily_pstn") + "\n0\n", "--pstn-mode"}, // twilio off, daily_pstn on
	} {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			ios.In = strings.NewReader(tc.input)
			doneC := make(chan error, 1)
			go func() {
				_, err := create.RunWizard(context.Background(), prompter.New(ios, true), ios.ErrOut, scaffold.Partial{})
				doneC <- err
			}()
			err := testenv.Within(t, "the wizard to return at end of input", doneC)
			if err == nil {
				t.Fatalf("no error at end of input; stderr:\n%s", errOut)
			}
			if code := cmdutil.ExitCode(err); code != cmdutil.ExitUsage {
				t.Errorf("exit code %d, want %d (%v)", code, cmdutil.ExitUsage, err)
			}
			if !strings.Contains(err.Error(), "input ended") || !strings.Contains(err.Error(), tc.wantFlag) {
				t.Errorf("error %q should say the input ended and name %s", err, tc.wantFlag)
			}
			if out.Len() > 0 {
				t.Errorf("stdout: %q", out)
			}
		})
	}
}

// A last answer without a newline still counts.
func TestWizardLastLineWithoutNewline(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	ios.In = strings.NewReader("no-newline")
	p, err := create.RunWizard(context.Background(), prompter.New(ios, true), ios.ErrOut, scaffold.Partial{
		BotType: s("web"), ClientFramework: s("none"), Transports: []string{"daily"}, Mode: s("realtime"),
		RealtimeService: s("openai_realtime"), Recording: b(false), Transcription: b(false), VideoService: s(""),
		VideoInput: b(false), VideoOutput: b(false), EnableObservability: b(false), Eval: b(false),
		DeployToCloud: b(false),
	})
	if err != nil {
		t.Fatalf("RunWizard: %v\n%s", err, errOut)
	}
	if str(p.ProjectName) != `"no-newline"` {
		t.Errorf("ProjectName = %s", str(p.ProjectName))
	}
}

func TestWizardInterrupted(t *testing.T) {
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ios, _, _, _ := iostreams.Test()
		_, err := create.RunWizard(ctx, prompter.New(ios, true), ios.ErrOut, scaffold.Partial{})
		if code := cmdutil.ExitCode(err); code != cmdutil.ExitInterrupted {
			t.Errorf("exit code %d, want 130 (%v)", code, err)
		}
	})
	t.Run("cancelled while waiting for an answer", func(t *testing.T) {
		// Input that never comes, as at a terminal where nobody types.
		r, w := io.Pipe()
		defer w.Close()
		ios, _, _, _ := iostreams.Test()
		ios.In = r
		ios.ErrOut = io.Discard // the blocked prompt goroutine may still write
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := create.RunWizard(ctx, prompter.New(ios, true), ios.ErrOut, scaffold.Partial{})
		if code := cmdutil.ExitCode(err); code != cmdutil.ExitInterrupted {
			t.Errorf("exit code %d, want 130 (%v)", code, err)
		}
	})
}

func TestNextSteps(t *testing.T) {
	web := scaffold.Config{ProjectName: "my-bot", BotType: "web", Transports: []string{"smallwebrtc", "daily"}, ClientFramework: "react", ClientServer: "vite"}
	got := scaffold.NextSteps(web, "my-bot")
	for _, want := range []string{
		"cd my-bot\n",
		"cd server && uv sync\n",
		"cp .env.example .env",
		// Two transports and a client that picks one: the runner serves both.
		"uv run bot.py\n",
		"cd my-bot/client\n",
		"npm install\n",
		"npm run dev\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("NextSteps lacks %q:\n%s", want, got)
		}
	}

	phone := scaffold.Config{ProjectName: "p", BotType: "telephony", Transports: []string{"twilio_daily_sip_dialout"}}
	got = scaffold.NextSteps(phone, "dir with space")
	if !strings.Contains(got, "cd 'dir with space'\n") || !strings.Contains(got, "--transport daily\n") {
		t.Errorf("phone NextSteps:\n%s", got)
	}
	if strings.Contains(got, "npm") {
		t.Errorf("a telephony bot has no client:\n%s", got)
	}

	// A project made for the cloud ends with the deploy and how to watch
	// the agent, from the directory create wrote.
	cloud := web
	cloud.DeployToCloud = true
	got = scaffold.NextSteps(cloud, "my-bot")
	for _, want := range []string{"botkit preflight my-bot ", "botkit deploy my-bot ", "botkit cloud agents status my-bot ", "botkit cloud agents logs my-bot -f "} {
		if !strings.Contains(got, "\n  "+want) {
			t.Errorf("cloud NextSteps lacks %q:\n%s", want, got)
		}
	}
	// Then how to point the client at the deployed agent.
	for _, want := range []string{"\n  VITE_AGENT_NAME=my-bot\n", "VITE_PUBLIC_KEY=", "keys create --name web --allowed-origin http://localhost:5173"} {
		if !strings.Contains(got, want) {
			t.Errorf("cloud NextSteps lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(scaffold.NextSteps(web, "my-bot"), "botkit deploy") {
		t.Errorf("NextSteps of a project not made for the cloud speak of deploying")
	}

	mobile := scaffold.Config{ProjectName: "m", BotType: "web", Transports: []string{"daily"}, ClientFramework: "none"}
	got = scaffold.NextSteps(mobile, ".")
	if strings.Contains(got, "npm") || strings.Contains(got, "cd .\n") {
		t.Errorf("mobile NextSteps in the current dir:\n%s", got)
	}
}

type answer = prompter.Answer

// A cross-field conflict is reported at the question that causes it, and
// that question is asked again; nothing after it is asked before.
func TestWizardConflictAtItsQuestion(t *testing.T) {
	fake := prompter.NewFake(t,
		answer{Match: "--transport", Value: []string{"daily_pstn", "twilio_daily_sip"}},
		answer{Match: "--transport", Value: []string{"daily_pstn", "smallwebrtc"}},
		answer{Match: "--pstn-mode", Value: "dial-in"},
		answer{Match: "--mode", Value: prompter.Default},
		answer{Match: "--stt", Value: prompter.Default},
		answer{Match: "--llm", Value: prompter.Default},
		answer{Match: "--tts", Value: prompter.Default},
		answer{Match: "Optional features", Value: []string{}},
		answer{Match: "Deployment target", Value: "local"},
	)
	var errOut strings.Builder
	p, err := create.RunWizard(context.Background(), fake, &errOut, scaffold.Partial{ProjectName: s("p"), BotType: s("telephony")})
	if err != nil {
		t.Fatal(err)
	}
	asked := fake.Asked()
	if asked[0].Flag != "--transport" || asked[1].Flag != "--transport" {
		t.Errorf("the transport question was not asked again at once: %+v", asked[:2])
	}
	if !strings.Contains(errOut.String(), `"daily_pstn" and "twilio_daily_sip" all run over Daily`) {
		t.Errorf("conflict not reported, or not naming the transports given:\n%s", errOut.String())
	}
	if got := fmt.Sprint(p.Transports); got != "[daily_pstn smallwebrtc]" {
		t.Errorf("transports %s", got)
	}
	wantValid(t, p)
}

// A contradiction among the given values fails before any question; one
// between a given value and an answer is reported at that answer.
func TestWizardGivenContradictions(t *testing.T) {
	_, err := create.RunWizard(context.Background(), prompter.NewFake(t), io.Discard,
		scaffold.Partial{EnableDenoise: b(true), DeployToCloud: b(false)})
	if code := cmdutil.ExitCode(err); code != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--enable-denoise") {
		t.Errorf("exit %d: %v", code, err)
	}

	fake := prompter.NewFake(t,
		answer{Match: "Deployment target", Value: "local"},
		answer{Match: "Deployment target", Value: "cloud"},
	)
	var errOut strings.Builder
	given := complete()
	given.DeployToCloud, given.EnableDenoise = nil, b(true)
	p, err := create.RunWizard(context.Background(), fake, &errOut, given)
	if err != nil || !*p.DeployToCloud {
		t.Fatalf("%v %v", err, p.DeployToCloud)
	}
	if !strings.Contains(errOut.String(), "noise cancellation needs cloud deployment") {
		t.Errorf("stderr:\n%s", errOut.String())
	}
}

// complete returns a web bot's partial that leaves no question open.
func complete() scaffold.Partial {
	p := scaffold.PartialOf(create.QuickstartConfig("q"))
	p.ClientFramework, p.VideoService = s("none"), s("")
	return p
}

// A target that already holds a project is refused at the name question
// (or before any question when the name is given).
func TestWizardTargetConflictAtName(t *testing.T) {
	wd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(wd, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"taken/README.md": "mine", "afile": "x"} {
		if err := os.WriteFile(filepath.Join(wd, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	target := func(name string) string { return filepath.Join(wd, name) }

	ios, _, _, errOut := iostreams.Test()
	ios.In = strings.NewReader("taken\nafile\nfree\n")
	given := complete()
	given.ProjectName = nil
	p, err := create.Wizard{Prompter: prompter.New(ios, true), ErrOut: ios.ErrOut, Target: target}.Run(context.Background(), given)
	if err != nil {
		t.Fatal(err)
	}
	if *p.ProjectName != "free" {
		t.Errorf("name %q", *p.ProjectName)
	}
	for _, want := range []string{filepath.Join(wd, "taken") + " already holds README.md", filepath.Join(wd, "afile") + ": exists and is not a directory"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}

	given.ProjectName = s("taken")
	given.Recording = nil // a question is left, but it is not asked
	_, err = create.Wizard{Prompter: prompter.NewFake(t), Target: target}.Run(context.Background(), given)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "taken already holds README.md") {
		t.Errorf("given name: %v", err)
	}
}

// In accessible mode an empty line accepts the transports shown preselected.
func TestWizardEmptyLineAcceptsPreselected(t *testing.T) {
	given := complete()
	given.Transports = nil
	p, out, err := runWizard(t, given, "")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if fmt.Sprint(p.Transports) != "[smallwebrtc]" {
		t.Errorf("transports %v\n%s", p.Transports, out)
	}
}

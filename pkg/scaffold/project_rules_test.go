package scaffold

import (
	"regexp"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/resources"
)

func generateMap(t *testing.T, p Partial) map[string]string {
	t.Helper()
	c := Resolve(p)
	if probs := Validate(c); len(probs) > 0 {
		t.Fatal(probs)
	}
	g, err := NewGenerator()
	if err != nil {
		t.Fatal(err)
	}
	files, err := g.Generate(c)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		out[f.Path] = string(f.Data)
	}
	return out
}

// Agent and secret-set names are valid platform names for every valid
// project name, and every template and README uses the same ones.
func TestPlatformNamesFromAnyProjectName(t *testing.T) {
	for _, name := range []string{"My_Bot.v2", ".hidden", "x.-", "___", "-a-", "a..b__c", strings.Repeat("a", 68), strings.Repeat("ab_", 30), "UPPER", "9"} {
		if err := ValidateProjectName(name); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		agent, set := AgentName(name), SecretSetName(name)
		for _, n := range []string{agent, set} {
			if err := resources.ValidateName(n); err != nil {
				t.Errorf("project %q gives %q: %v", name, n, err)
			}
		}
		p := cascade(name)
		files := generateMap(t, p)
		if !strings.Contains(files["server/cloud-deploy.toml"], `secret_set = "`+set+`"`) || !strings.Contains(files["server/cloud-deploy.toml"], `agent_name = "`+agent+`"`) {
			t.Errorf("%q: cloud-deploy.toml:\n%s", name, files["server/cloud-deploy.toml"])
		}
		for _, path := range []string{"README.md", "server/.env.example"} {
			if !strings.Contains(files[path], "botkit cloud secrets set "+set+" --file server/.env") {
				t.Errorf("%q: %s lacks the secrets command for %s", name, path, set)
			}
		}
	}
	if AgentName("My_Bot.v2") != "my-bot-v2" || SecretSetName("My_Bot.v2") != "my-bot-v2-secrets" {
		t.Errorf("got %q %q", AgentName("My_Bot.v2"), SecretSetName("My_Bot.v2"))
	}
}

func FuzzPlatformNames(f *testing.F) {
	for _, s := range []string{"My_Bot.v2", ".hidden", "x.-", strings.Repeat("z", 100), "a-_-.b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidateProjectName(name) != nil {
			return
		}
		if err := resources.ValidateName(SecretSetName(name)); err != nil {
			t.Errorf("%q: %v", name, err)
		}
		if err := resources.ValidateName(AgentName(name)); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	})
}

// Noise cancellation is built only when not local: no module-level import
// of the Krisp filter, the filter built only where ENV is not "local".
func TestDenoiseOnlyWhenNotLocal(t *testing.T) {
	p := cascade("nc")
	p.EnableDenoise = bp(true)
	files := generateMap(t, p)
	bot := files["server/bot.py"]
	if regexp.MustCompile(`(?m)^from pipecat\.audio\.filters\.krisp_viva_filter`).MatchString(bot) {
		t.Error("bot.py imports KrispVivaFilter at module level: a local run fails")
	}
	if !strings.Contains(bot, `if os.getenv("ENV") == "local":`+"\n        return None") || !strings.Contains(bot, "audio_in_filter=krisp_filter()") {
		t.Errorf("bot.py does not skip the filter locally:\n%s", bot)
	}
	if !strings.Contains(files["server/.env.example"], "# ENV=local") || !strings.Contains(files["README.md"], "`ENV=local`) runs without the filter") {
		t.Error(".env.example or README does not say the filter is off locally")
	}
}

// A phone bot may carry web transports for testing; 8 kHz only for calls.
func TestPhoneBotWithWebTransport(t *testing.T) {
	p := cascade("phone")
	p.BotType, p.Transports = sp("telephony"), []string{"twilio", "smallwebrtc"}
	files := generateMap(t, p)
	bot := files["server/bot.py"]
	for _, want := range []string{`"twilio": lambda: FastAPIWebsocketParams(`, `"webrtc": lambda: TransportParams(`,
		"if isinstance(runner_args, WebSocketRunnerArguments):", "**rates,"} {
		if !strings.Contains(bot, want) {
			t.Errorf("bot.py lacks %q", want)
		}
	}
	if strings.Contains(bot, "            audio_in_sample_rate=8000,") {
		t.Error("the browser session is forced to 8 kHz")
	}
	// The plain websocket (a client of your own on /ws-client) arrives
	// as WebSocketRunnerArguments too, but is no call: it keeps its rates.
	p.Transports = []string{"twilio", "websocket"}
	ws := generateMap(t, p)["server/bot.py"]
	for _, want := range []string{"if isinstance(runner_args, WebSocketRunnerArguments):",
		`if getattr(runner_args, "transport_type", None) == "websocket":`, `"websocket": lambda: FastAPIWebsocketParams(`} {
		if !strings.Contains(ws, want) {
			t.Errorf("twilio + websocket: bot.py lacks %q", want)
		}
	}
	p.Transports = []string{"twilio", "smallwebrtc"}
	// Without -b: inferred telephony, also allowed.
	p.BotType = nil
	if c := Resolve(p); c.BotType != "telephony" || len(Validate(c)) > 0 {
		t.Errorf("%s %v", c.BotType, Validate(c))
	}
	// A pure phone bot keeps 8 kHz for the whole pipeline.
	p.Transports = []string{"twilio"}
	if bot := generateMap(t, p)["server/bot.py"]; !strings.Contains(bot, "            audio_in_sample_rate=8000,") {
		t.Error("a phone-only bot lost its 8 kHz pipeline")
	}
	// Telephony transports on a web bot stay refused.
	p.BotType, p.Transports = sp("web"), []string{"twilio", "smallwebrtc"}
	if probs := Validate(Resolve(p)); len(probs) != 1 || !strings.Contains(probs[0], "is a telephony transport") {
		t.Errorf("%v", probs)
	}
}

func TestInstructionsThatWork(t *testing.T) {
	p := cascade("local")
	p.DeployToCloud = bp(false)
	env := generateMap(t, p)["server/.env.example"]
	if strings.Contains(env, "secret set") || strings.Contains(env, "botkit cloud") {
		t.Errorf("a local-only bot's .env.example talks about a deployed secret set:\n%s", env)
	}
	p = cascade("ex")
	p.Transports = []string{"exotel"}
	readme := generateMap(t, p)["README.md"]
	if !strings.Contains(readme, "Voicebot applet") || !strings.Contains(readme, "wss://YOUR_PUBLIC_HOST/ws") {
		t.Errorf("Exotel setup:\n%s", readme)
	}
	exo := readme[strings.Index(readme, "(`exotel`)"):]
	exo = exo[:strings.Index(exo, "\n")]
	if strings.Contains(exo, "voice webhook") {
		t.Errorf("Exotel uses no webhook: %s", exo)
	}
}

// A video avatar implies video output; turning it off is an error.
func TestAvatarImpliesVideoOutput(t *testing.T) {
	p := cascade("av")
	p.VideoService = sp("tavus_video")
	c := Resolve(p)
	if !c.VideoOutput {
		t.Error("video_output is false with an avatar")
	}
	js, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"video_output": true`) {
		t.Errorf("dry-run:\n%s", js)
	}
	p.VideoOutput = bp(false)
	if probs := Validate(Resolve(p)); len(probs) != 1 || !strings.Contains(probs[0], "--video-output (video_output)") {
		t.Errorf("%v", probs)
	}
}

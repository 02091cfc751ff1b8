package scaffold

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func webConfig(framework, server string, transports ...string) Config {
	return Config{
		ProjectName:     "voice-bot",
		BotType:         "web",
		Transports:      transports,
		Mode:            "cascade",
		ClientFramework: framework,
		ClientServer:    server,
	}
}

func clientFileMap(t *testing.T, cfg Config) map[string]string {
	t.Helper()
	files, err := ClientFiles(cfg)
	if err != nil {
		t.Fatalf("ClientFiles(%+v): %v", cfg, err)
	}
	m := map[string]string{}
	for _, f := range files {
		if _, dup := m[f.Path]; dup {
			t.Errorf("%s generated twice", f.Path)
		}
		m[f.Path] = string(f.Data)
	}
	return m
}

func TestClientFilesNoClient(t *testing.T) {
	for name, cfg := range map[string]Config{
		"framework none":        webConfig("none", "", "daily"),
		"framework unset":       webConfig("", "", "smallwebrtc"),
		"telephony bot":         {ProjectName: "phone", BotType: "telephony", Transports: []string{"twilio"}},
		"telephony with client": {ProjectName: "phone", BotType: "telephony", Transports: []string{"twilio"}, ClientFramework: "react", ClientServer: "vite"},
	} {
		t.Run(name, func(t *testing.T) {
			files, err := ClientFiles(cfg)
			if err != nil || files != nil {
				t.Errorf("ClientFiles = %d files, %v; want nil, nil", len(files), err)
			}
			if got := ClientReadme(cfg); got != "" {
				t.Errorf("ClientReadme = %q, want empty", got)
			}
		})
	}
}

func TestClientFilesRejectsBadOptions(t *testing.T) {
	for name, tc := range map[string]struct {
		cfg  Config
		want string
	}{
		"vanilla on nextjs":     {webConfig("vanilla", "nextjs", "daily"), `client_server "nextjs"`},
		"unknown server":        {webConfig("react", "webpack", "daily"), `client_server "webpack"`},
		"unknown framework":     {webConfig("svelte", "", "daily"), `client_framework "svelte"`},
		"no web transport":      {webConfig("react", "vite", "twilio"), "needs a web transport"},
		"no transport at all":   {webConfig("vanilla", ""), "needs a web transport"},
		"telephony among tools": {webConfig("react", "nextjs", "plivo", "exotel"), "[plivo exotel]"},
	} {
		t.Run(name, func(t *testing.T) {
			files, err := ClientFiles(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ClientFiles = %d files, %v; want an error containing %q", len(files), err, tc.want)
			}
		})
	}
}

func TestClientFilesLayout(t *testing.T) {
	common := []string{"client/.gitignore", "client/env.example", "client/package.json"}
	viteReact := append(slices.Clone(common),
		"client/index.html", "client/tsconfig.json", "client/vite.config.ts",
		"client/src/VoiceApp.tsx", "client/src/config.ts", "client/src/main.tsx",
		"client/src/transports.ts", "client/src/vite-env.d.ts", "client/src/voice-app.css")
	next := append(slices.Clone(common),
		"client/next.config.ts", "client/tsconfig.json",
		"client/app/ClientOnly.tsx", "client/app/VoiceApp.tsx", "client/app/api/bot.ts",
		"client/app/api/start/route.ts", "client/app/config.ts", "client/app/icon.svg",
		"client/app/layout.tsx", "client/app/page.tsx", "client/app/transports.ts", "client/app/voice-app.css")
	nextOffer := "client/app/api/sessions/[sessionId]/api/offer/route.ts"
	vanilla := append(slices.Clone(common),
		"client/index.html", "client/vite.config.js",
		"client/src/main.js", "client/src/platform.js", "client/src/styles.css", "client/src/transports.js")

	for name, tc := range map[string]struct {
		cfg   Config
		paths []string
	}{
		"react default server is vite": {webConfig("react", "", "daily"), viteReact},
		"react vite":                   {webConfig("react", "vite", "smallwebrtc", "daily"), viteReact},
		"nextjs daily":                 {webConfig("react", "nextjs", "daily"), next},
		// SmallWebRTC's offer goes through the Next.js server too.
		"nextjs smallwebrtc": {webConfig("react", "nextjs", "smallwebrtc"), append(slices.Clone(next), nextOffer)},
		"vanilla":            {webConfig("vanilla", "", "smallwebrtc"), vanilla},
		"vanilla vite":       {webConfig("vanilla", "vite", "daily", "smallwebrtc"), vanilla},
	} {
		t.Run(name, func(t *testing.T) {
			files := clientFileMap(t, tc.cfg)
			got := slices.Sorted(maps.Keys(files))
			want := slices.Sorted(slices.Values(tc.paths))
			if !slices.Equal(got, want) {
				t.Errorf("files:\n got %q\nwant %q", got, want)
			}
			for p, data := range files {
				if strings.Contains(data, "[[") || strings.Contains(data, "<no value>") {
					t.Errorf("%s: unrendered template text", p)
				}
				if !strings.HasSuffix(data, "\n") {
					t.Errorf("%s: no final newline", p)
				}
			}
		})
	}
}

// transportSource is the client file that lists the transports.
func transportSource(files map[string]string) string {
	for _, p := range []string{"client/src/transports.ts", "client/app/transports.ts", "client/src/transports.js"} {
		if s, ok := files[p]; ok {
			return s
		}
	}
	return ""
}

func TestClientPackagesFollowTransports(t *testing.T) {
	const (
		daily = "@pipecat-ai/daily-transport"
		small = "@pipecat-ai/small-webrtc-transport"
	)
	pinned := regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	for _, framework := range []struct{ framework, server string }{{"react", "vite"}, {"react", "nextjs"}, {"vanilla", ""}} {
		for _, transports := range [][]string{{"daily"}, {"smallwebrtc"}, {"smallwebrtc", "daily"}, {"daily", "smallwebrtc", "daily"}} {
			name := framework.framework + "-" + framework.server + "-" + strings.Join(transports, "+")
			t.Run(name, func(t *testing.T) {
				cfg := webConfig(framework.framework, framework.server, transports...)
				files := clientFileMap(t, cfg)
				if readme := ClientReadme(cfg); !strings.HasPrefix(readme, "## Web client\n") {
					t.Errorf("ClientReadme = %q", readme)
				}
				var pkg struct {
					Name            string
					Private         bool
					Scripts         map[string]string
					Dependencies    map[string]string
					DevDependencies map[string]string
				}
				if err := json.Unmarshal([]byte(files["client/package.json"]), &pkg); err != nil {
					t.Fatalf("package.json: %v", err)
				}
				if pkg.Name != "voice-bot-client" || !pkg.Private {
					t.Errorf("package.json name %q private %v", pkg.Name, pkg.Private)
				}
				for _, s := range []string{"dev", "build"} {
					if pkg.Scripts[s] == "" {
						t.Errorf("package.json has no %q script", s)
					}
				}

				want := []string{"@pipecat-ai/client-js"}
				if slices.Contains(transports, "daily") {
					want = append(want, daily)
				}
				if slices.Contains(transports, "smallwebrtc") {
					want = append(want, small)
				}
				switch framework.server {
				case "nextjs":
					want = append(want, "@pipecat-ai/client-react", "@pipecat-ai/voice-ui-kit", "react", "react-dom", "next")
				case "vite":
					want = append(want, "@pipecat-ai/client-react", "@pipecat-ai/voice-ui-kit", "react", "react-dom")
				}
				if got := slices.Sorted(maps.Keys(pkg.Dependencies)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
					t.Errorf("dependencies %q, want %q", got, slices.Sorted(slices.Values(want)))
				}
				for dep, v := range maps.All(pkg.Dependencies) {
					if !pinned.MatchString(v) {
						t.Errorf("dependency %s@%s is not pinned to an exact version", dep, v)
					}
				}
				for dep, v := range maps.All(pkg.DevDependencies) {
					if !pinned.MatchString(v) {
						t.Errorf("devDependency %s@%s is not pinned to an exact version", dep, v)
					}
				}
				if framework.framework == "react" {
					if pkg.DevDependencies["typescript"] == "" {
						t.Error("React client without typescript")
					}
					if !strings.Contains(files["client/tsconfig.json"], `"strict": true`) {
						t.Error("tsconfig.json is not strict")
					}
					if !strings.Contains(pkg.Scripts["build"], "tsc") && !strings.Contains(pkg.Scripts["build"], "next build") {
						t.Errorf("build script %q does not type-check", pkg.Scripts["build"])
					}
				}

				// The page imports exactly the transports chosen, in the order given.
				src := transportSource(files)
				for pkgName, id := range map[string]string{daily: "daily", small: "smallwebrtc"} {
					if got, want := strings.Contains(src, `from "`+pkgName+`"`), slices.Contains(transports, id); got != want {
						t.Errorf("transports source imports %s: %v, want %v", pkgName, got, want)
					}
				}
				first := strings.Index(src, `id: "`+transports[0]+`"`)
				for _, id := range transports[1:] {
					if i := strings.Index(src, `id: "`+id+`"`); i < first {
						t.Errorf("transport %s listed before the default %s", id, transports[0])
					}
				}
				// The start request bodies speak the Pipecat runner's and the
				// platform's /start contract (the platform refuses any other field).
				if slices.Contains(transports, "daily") && !strings.Contains(src, `{ transport: "daily", createDailyRoom: true }`) {
					t.Error("no Daily start request")
				}
				webrtcStart := `transport: "webrtc"`
				if framework.framework == "react" {
					webrtcStart = `startRequest: { transport: "webrtc" },`
				}
				if slices.Contains(transports, "smallwebrtc") && !strings.Contains(src, webrtcStart) {
					t.Error("no SmallWebRTC start request")
				}
				// SmallWebRTC opens the microphone without Daily's call engine,
				// which its default media manager loads from Daily's servers.
				if framework.framework == "react" && slices.Contains(transports, "smallwebrtc") && !strings.Contains(src, "mediaManager: new WavMediaManager()") {
					t.Error("SmallWebRTC with its default (Daily) media manager")
				}
				if route, ok := files["client/app/api/start/route.ts"]; ok {
					if got, want := strings.Contains(route, `daily: { transport: "daily"`), slices.Contains(transports, "daily"); got != want {
						t.Errorf("/api/start allows daily: %v, want %v", got, want)
					}
					if got, want := strings.Contains(route, `webrtc: { transport: "webrtc" },`), slices.Contains(transports, "smallwebrtc"); got != want {
						t.Errorf("/api/start allows webrtc: %v, want %v", got, want)
					}
				}
			})
		}
	}
}

// Every variable of env.example is read by the client's code and explained in
// the README section, and every one the code reads is in env.example.
func TestClientEnvFileAndReadme(t *testing.T) {
	envLine := regexp.MustCompile(`(?m)^([A-Z][A-Z0-9_]*)=`)
	codeVar := regexp.MustCompile(`(?:import\.meta\.env|process\.env)\.([A-Z][A-Z0-9_]*)`)
	for name, tc := range map[string]struct {
		cfg     Config
		url     string
		envVars []string
	}{
		"react-vite":   {webConfig("react", "vite", "daily", "smallwebrtc"), "http://localhost:5173", []string{"VITE_AGENT_NAME", "VITE_BOT_START_URL", "VITE_PLATFORM_URL", "VITE_PUBLIC_KEY"}},
		"react-nextjs": {webConfig("react", "nextjs", "smallwebrtc"), "http://localhost:3000", []string{"AGENT_NAME", "BOT_START_URL", "PLATFORM_URL", "PUBLIC_KEY"}},
		"vanilla": {webConfig("vanilla", "", "daily"), "http://localhost:5173",
			[]string{"VITE_AGENT_NAME", "VITE_BOT_START_URL", "VITE_DAILY_MEDIA_MANAGER", "VITE_PLATFORM_URL", "VITE_PUBLIC_KEY"}},
	} {
		t.Run(name, func(t *testing.T) {
			files := clientFileMap(t, tc.cfg)
			var inFile []string
			for _, m := range envLine.FindAllStringSubmatch(files["client/env.example"], -1) {
				inFile = append(inFile, m[1])
			}
			slices.Sort(inFile)
			if !slices.Equal(inFile, tc.envVars) {
				t.Errorf("env.example sets %q, want %q", inFile, tc.envVars)
			}
			if !strings.Contains(files["client/env.example"], "http://localhost:7860/start") {
				t.Error("env.example does not default to the development runner's /start")
			}
			var inCode []string
			for p, data := range files {
				if p == "client/env.example" {
					continue
				}
				for _, m := range codeVar.FindAllStringSubmatch(data, -1) {
					if !slices.Contains(inCode, m[1]) {
						inCode = append(inCode, m[1])
					}
				}
			}
			slices.Sort(inCode)
			if !slices.Equal(inCode, tc.envVars) {
				t.Errorf("the code reads %q, want %q", inCode, tc.envVars)
			}

			readme := ClientReadme(tc.cfg)
			for _, want := range append([]string{
				"## Web client", "cd client", "cp env.example .env.local", "npm install", "npm run dev", tc.url,
			}, tc.envVars...) {
				if !strings.Contains(readme, want) {
					t.Errorf("README section lacks %q:\n%s", want, readme)
				}
			}
			if strings.Contains(readme, "VITE_") != (name != "react-nextjs") {
				t.Errorf("README section about the wrong env file:\n%s", readme)
			}
		})
	}
}

func TestClientFilesDeterministic(t *testing.T) {
	cfg := webConfig("react", "nextjs", "smallwebrtc", "daily")
	a, errA := ClientFiles(cfg)
	b, errB := ClientFiles(cfg)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Path != b[i].Path || string(a[i].Data) != string(b[i].Data) {
			t.Errorf("file %d differs between runs: %s, %s", i, a[i].Path, b[i].Path)
		}
	}
}

func TestClientProjectNameInPage(t *testing.T) {
	cfg := webConfig("vanilla", "", "daily")
	cfg.ProjectName = "Front_Desk.bot"
	files := clientFileMap(t, cfg)
	if !strings.Contains(files["client/index.html"], "<title>Front_Desk.bot</title>") {
		t.Error("index.html title is not the project name")
	}
	if !strings.Contains(files["client/package.json"], `"name": "front_desk.bot-client"`) {
		t.Errorf("package.json name: %s", files["client/package.json"])
	}
}

func TestNPMPackageName(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z0-9~-][a-z0-9._~-]*$`)
	for in, want := range map[string]string{
		"voice-bot": "voice-bot-client",
		"My.Bot":    "my.bot-client",
		"_private":  "private-client",
		"..x":       "x-client",
		"._":        "bot-client",
		"Bot_2":     "bot_2-client",
	} {
		got := npmPackageName(in)
		if got != want || !valid.MatchString(got) || len(got) > 214 {
			t.Errorf("npmPackageName(%q) = %q, want %q (a valid npm name)", in, got, want)
		}
	}
}

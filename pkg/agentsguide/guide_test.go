package agentsguide

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// For every project of create's matrix: the guide create writes is the
// guide `botkit init` reads back from the project on disk (init finds it
// unedited and unchanged), and it names what the project has: its
// transports, the keys of its services, its deployment, evals and client.
func TestGuideOfEveryCreatedProject(t *testing.T) {
	configs, err := scaffold.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	g, err := scaffold.NewGenerator()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range configs {
		files, err := g.Generate(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files = append(files, ForProject(c.ProjectName, files, "test")...)
		dir := filepath.Join(t.TempDir(), c.ProjectName)
		if err := scaffold.Write(dir, files); err != nil {
			t.Fatal(err)
		}
		written, err := os.ReadFile(filepath.Join(dir, GuideFile))
		if err != nil {
			t.Fatal(err)
		}
		p := Inspect(os.DirFS(dir), c.ProjectName)
		if again := Render(p, "test"); string(again) != string(written) {
			t.Errorf("%s: init's guide differs from create's:\n%s\n---\n%s", name, again, written)
		}
		if State(written) != Unedited {
			t.Errorf("%s: state %s", name, State(written))
		}
		guide := string(written)
		for _, id := range c.Transports {
			tr, _ := scaffold.LookupTransport(id)
			if tr.Runner != "" && !strings.Contains(guide, "`"+tr.Runner+"`") {
				t.Errorf("%s: the guide lacks transport %s", name, tr.Runner)
			}
		}
		for _, id := range []string{c.STTService, c.LLMService, c.TTSService, c.RealtimeService, c.VideoService} {
			s, ok := scaffold.LookupService(id)
			for _, e := range s.Env {
				if ok && !strings.Contains(guide, "`"+e.Name+"`") {
					t.Errorf("%s: the guide lacks %s of %s", name, e.Name, id)
				}
			}
		}
		for section, want := range map[string]bool{"## Deploying": c.DeployToCloud, "## Evals": c.Eval, "The client, in another terminal": c.ClientFramework == "react" || c.ClientFramework == "vanilla"} {
			if strings.Contains(guide, section) != want {
				t.Errorf("%s: %q in the guide: %v, want %v", name, section, !want, want)
			}
		}
		if c.DeployToCloud && !strings.Contains(guide, "botkit cloud secrets set "+scaffold.SecretSetName(c.ProjectName)+" --file server/.env") {
			t.Errorf("%s: the guide lacks the secrets command", name)
		}
		if c.DeployToCloud {
			// The journey ends with the deploy and how to watch the agent,
			// the same steps as the README's and create's next steps.
			for _, s := range scaffold.DeploySteps("", scaffold.AgentName(c.ProjectName)) {
				if !strings.Contains(guide, "\n"+s.Command+" ") {
					t.Errorf("%s: the guide lacks `%s`", name, s.Command)
				}
			}
			// Then a call, over the transport the bot serves on the
			// platform (none for a bot that serves none of its transports, which says why).
			var runners []string
			for _, id := range c.Transports {
				tr, _ := scaffold.LookupTransport(id)
				runners = append(runners, tr.Runner)
			}
			agent, transport := scaffold.AgentName(c.ProjectName), scaffold.SessionTransport(runners)
			_, calls, _ := strings.Cut(guide, "\n## Deploying\n")
			calls, _, _ = strings.Cut(calls, "\n## ")
			if transport == "" {
				if strings.Contains(calls, "botkit cloud agents start") || !strings.Contains(calls, "serves none of them") {
					t.Errorf("%s: a bot without a platform transport: its calls in the guide:\n%s", name, calls)
				}
				continue
			}
			for _, s := range append([]scaffold.DeployStep{scaffold.ServeLocal}, scaffold.CallSteps(agent, transport)...) {
				if !strings.Contains(calls, "\n"+s.Command+" ") {
					t.Errorf("%s: the guide lacks `%s`", name, s.Command)
				}
			}
			if !strings.Contains(calls, scaffold.StartCall(agent, transport, "")) {
				t.Errorf("%s: the guide lacks the start of a session", name)
			}
		}
	}
}

// A project botkit did not make: the guide has what is there, and what is
// missing is named, not guessed.
func TestGuideOfAHandMadeProject(t *testing.T) {
	fsys := fstest.MapFS{
		"bot.py":       {Data: []byte("transport_params = {\n    \"daily\": lambda: DailyParams(),\n    \"mystery\": lambda: X(),\n}\n")},
		".env.example": {Data: []byte("# Keys\nOPENAI_API_KEY=\n# LOG_LEVEL=debug\nMY_SETTING=1\n")},
	}
	p := Inspect(fsys, "hand")
	if p.ServerDir != "." || len(p.Transports) != 2 || p.Transports[0].Label == "" || p.Transports[1].Label != "" || p.Deploy != nil || p.Client != nil {
		t.Errorf("inspected: %+v", p)
	}
	if !slices.Equal(p.NotFound, []string{"pyproject.toml", "Dockerfile", "cloud-deploy.toml"}) {
		t.Errorf("not found: %v", p.NotFound)
	}
	guide := string(Render(p, "v1"))
	for _, want := range []string{"uv run bot.py --transport daily", "- Keys: `OPENAI_API_KEY` (secret), `LOG_LEVEL` (optional), `MY_SETTING`", "- `mystery`\n"} {
		if !strings.Contains(guide, want) {
			t.Errorf("the guide lacks %q:\n%s", want, guide)
		}
	}
	if strings.Contains(guide, "## Deploying") || strings.Contains(guide, "cd server") {
		t.Errorf("the guide invents what the project lacks:\n%s", guide)
	}
}

func TestState(t *testing.T) {
	guide := Render(Project{Name: "x"}, "v1")
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"none":           {nil, Absent},
		"as written":     {guide, Unedited},
		"a line added":   {append(append([]byte{}, guide...), "more\n"...), Edited},
		"a word edited":  {[]byte(strings.Replace(string(guide), "AI coding", "AI-coding", 1)), Edited},
		"someone else's": {[]byte("# my notes\n"), NotBotkit},
		"empty":          {[]byte{}, NotBotkit},
	} {
		if got := State(tc.data); got != tc.want {
			t.Errorf("%s: %s, want %s", name, got, tc.want)
		}
	}
}

package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
)

//go:embed templates/server templates/project
var serverTemplates embed.FS

// projectFiles maps each template to the file it renders and the condition
// under which the project has that file.
var projectFiles = []struct {
	tmpl, path string
	when       func(*view) bool // nil: every project has the file
	mode       uint32
}{
	{"templates/server/bot.py.tmpl", "server/bot.py", nil, 0o644},
	{"templates/server/server.py.tmpl", "server/server.py", func(v *view) bool { return v.ServerModule }, 0o644},
	{"templates/server/pyproject.toml.tmpl", "server/pyproject.toml", nil, 0o644},
	{"templates/server/env.example.tmpl", "server/.env.example", nil, 0o644},
	{"templates/server/Dockerfile.tmpl", "server/Dockerfile", func(v *view) bool { return v.DeployToCloud }, 0o644},
	{"templates/server/cloud-deploy.toml.tmpl", "server/cloud-deploy.toml", func(v *view) bool { return v.DeployToCloud }, 0o644},
	{"templates/server/evals/greeting.yaml.tmpl", "server/evals/greeting.yaml", func(v *view) bool { return v.Eval }, 0o644},
	{"templates/server/evals/memory.yaml.tmpl", "server/evals/memory.yaml", func(v *view) bool { return v.Eval }, 0o644},
	{"templates/project/gitignore.tmpl", ".gitignore", nil, 0o644},
	{"templates/project/README.md.tmpl", "README.md", nil, 0o644},
}

// CommonFiles returns the paths every generated project has (without
// content): a directory holding any of them cannot take a project.
func CommonFiles() []File {
	var out []File
	for _, f := range projectFiles {
		if f.when == nil {
			out = append(out, File{Path: f.path})
		}
	}
	return out
}

// Generator renders projects. Its templates are parsed once; it is safe for
// concurrent use.
type Generator struct {
	tmpl *template.Template
}

// NewGenerator parses the embedded templates.
func NewGenerator() (*Generator, error) {
	t := template.New("project").Funcs(template.FuncMap{
		"join":           strings.Join,
		"pyimport":       pyImportLines,
		"svc":            serviceBlock,
		"transportHowTo": transportHowTo,
	})
	for _, f := range projectFiles {
		data, err := serverTemplates.ReadFile(f.tmpl)
		if err != nil {
			return nil, err
		}
		if _, err := t.New(f.tmpl).Parse(string(data)); err != nil {
			return nil, fmt.Errorf("template %s: %w", f.tmpl, err)
		}
	}
	return &Generator{tmpl: t}, nil
}

// projectView adds what the project README needs about the client.
type projectView struct {
	*view
	HasClient    bool
	ClientLabel  string
	ClientReadme string
}

// Generate renders every file of the project described by c, which must be
// valid (Validate returned no problems).
func (g *Generator) Generate(c Config) ([]File, error) {
	if probs := Validate(c); len(probs) > 0 {
		return nil, fmt.Errorf("invalid config: %s", strings.Join(probs, "; "))
	}
	client, err := ClientFiles(c)
	if err != nil {
		return nil, err
	}
	pv := &projectView{view: newView(c), HasClient: len(client) > 0, ClientReadme: strings.TrimSpace(ClientReadme(c))}
	switch {
	case c.ClientFramework == "react" && c.ClientServer == "nextjs":
		pv.ClientLabel = "React + Next.js"
	case c.ClientFramework == "react":
		pv.ClientLabel = "React + Vite"
	case c.ClientFramework == "vanilla":
		pv.ClientLabel = "JavaScript + Vite"
	}
	var files []File
	for _, f := range projectFiles {
		if f.when != nil && !f.when(pv.view) {
			continue
		}
		var buf bytes.Buffer
		if err := g.tmpl.ExecuteTemplate(&buf, f.tmpl, pv); err != nil {
			return nil, fmt.Errorf("render %s: %w", f.path, err)
		}
		files = append(files, File{Path: f.path, Mode: f.mode, Data: tidy(buf.Bytes())})
	}
	return append(files, client...), nil
}

// tidy ends the file with exactly one newline.
func tidy(b []byte) []byte {
	return append(bytes.TrimRight(b, "\n"), '\n')
}

// pyImportLines renders one `from module import names` statement the way
// black formats it: on one line when it fits in 88 columns, else one name per
// line with a trailing comma.
func pyImportLines(im pyImport) string {
	line := "from " + im.Module + " import " + strings.Join(im.Names, ", ")
	if len(line) <= 88 {
		return line
	}
	var b strings.Builder
	b.WriteString("from " + im.Module + " import (\n")
	for _, n := range im.Names {
		b.WriteString("    " + n + ",\n")
	}
	b.WriteString(")")
	return b.String()
}

// serviceVar is the Python variable that holds a service in bot.py.
func serviceVar(s Service) string {
	switch s.Category {
	case CategoryRealtime:
		return "llm"
	default:
		return string(s.Category)
	}
}

// serviceBlock renders the construction of a service inside run_bot, with a
// comment naming it. Keyword arguments go one per line with a trailing comma,
// which black keeps as it is.
func serviceBlock(s Service) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n    # %s: %s\n", categoryTitle(s.Category), s.Label)
	if len(s.Args) == 0 {
		fmt.Fprintf(&b, "    %s = %s()", serviceVar(s), s.Class)
		return b.String()
	}
	fmt.Fprintf(&b, "    %s = %s(\n", serviceVar(s), s.Class)
	for _, a := range s.Args {
		value := strings.ReplaceAll(a.Value, "\n", "\n        ")
		fmt.Fprintf(&b, "        %s=%s,\n", a.Name, value)
	}
	b.WriteString("    )")
	return b.String()
}

// transportHowTo tells, in one sentence of the project README, how to use a
// transport with the development runner.
func transportHowTo(t Transport) string {
	if t.NeedsMode != "" {
		return "calls go through Daily rooms; see the section on calls below."
	}
	run := "`" + RunPrefix + " " + RunArgs(t.Runner) + "`"
	switch {
	case t.Runner == "daily":
		return run + ", then open http://localhost:7860 — the runner creates a Daily room (with `DAILY_API_KEY`) and sends you to it."
	case t.Runner == "webrtc":
		return run + ", then open http://localhost:7860/client and talk to the bot peer-to-peer."
	case t.Runner == "websocket":
		return run + " serves Pipecat's protobuf frames at `ws://localhost:7860/ws-client`, for a client of your own built on `@pipecat-ai/websocket-transport`."
	case t.Runner == "exotel":
		return fmt.Sprintf("%s serves the media-stream websocket at `/ws` on port 7860; expose it (for example with `ngrok http 7860`). Exotel calls no webhook: in the Exotel dashboard, add a Voicebot applet to your number's call flow and give it the WebSocket URL `wss://%s/ws`. Audio runs at 8 kHz.", run, PublicHostPlaceholder)
	case t.mediaStream():
		return fmt.Sprintf("%s serves the media-stream websocket at `/ws` on port 7860; expose it (for example with `ngrok http 7860`) and point your %s number's voice webhook at `https://%s/`. Audio runs at 8 kHz.", run, t.Label, PublicHostPlaceholder)
	default:
		return run + "."
	}
}

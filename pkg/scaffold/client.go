package scaffold

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"text/template"
)

// The web clients of generated projects (docs/create.md). Each variant is put
// together from directories of templates/client:
//
//	common/        every client (gitignore)
//	style/         the vanilla client's stylesheet, into src/
//	react-common/  the React page (on the voice UI kit), its transports and
//	               stylesheet, into src/ (Vite) or app/ (Next.js)
//	react-vite/, react-nextjs/, vanilla/   the variant's own files
//
// A file whose name ends in ".tmpl" is a text/template with [[ ]] delimiters
// (JSX and JS use braces) executed with clientData; the suffix is dropped, and
// a template that renders to nothing but white space is left out (that is how
// files that only some transports need are made optional). Other files are
// copied as they are. "gitignore" becomes ".gitignore". package.json is
// built in Go from the pinned versions below.
//
//go:embed templates/client
var clientTemplates embed.FS

// Pinned npm versions of everything a generated client installs. Checked with
// `npm view <pkg> version` and installed together without peer-dependency
// conflicts by the client tests. The transport packages require client-js
// ~1.13.0.
const (
	npmPipecatClientJS    = "1.13.1"
	npmPipecatClientReact = "1.8.2"
	npmDailyTransport     = "1.6.9"
	npmSmallWebRTC        = "1.10.8"
	npmVoiceUIKit         = "0.14.0"
	npmReact              = "19.3.1"
	npmTypesReact         = "19.3.0"
	npmVite               = "8.3.8"
	npmVitePluginReact    = "6.3.0"
	npmNext               = "16.4.6"
	npmTypeScript         = "7.0.2"
	npmTypesNode          = "20.19.43"
	// nodeEngine is what Vite 8 and Next.js 16 require.
	nodeEngine = ">=20.19.0"
)

// Client frameworks and servers as they appear in Config.
const (
	clientReact   = "react"
	clientVanilla = "vanilla"
	clientNone    = "none"
	serverVite    = "vite"
	serverNextJS  = "nextjs"
)

// clientTransport is a web transport as the client sees it.
type clientTransport struct {
	ID      string // catalogue id: daily, smallwebrtc
	Package string // npm package of its client transport
	Version string
}

// webClientTransport maps a catalogue transport id to its client package;
// false for transports a browser cannot use (telephony).
func webClientTransport(id string) (clientTransport, bool) {
	switch id {
	case "daily":
		return clientTransport{ID: id, Package: "@pipecat-ai/daily-transport", Version: npmDailyTransport}, true
	case "smallwebrtc":
		return clientTransport{ID: id, Package: "@pipecat-ai/small-webrtc-transport", Version: npmSmallWebRTC}, true
	}
	return clientTransport{}, false
}

// clientData is what client templates are executed with.
type clientData struct {
	ProjectName string
	// Transports are the web transports chosen, in the order given; the
	// first is the page's default.
	Transports  []clientTransport
	Daily       bool
	SmallWebRTC bool
	// TransportList is "daily, smallwebrtc" and the like, for comments.
	TransportList string
}

// clientVariant is one kind of generated client.
type clientVariant struct {
	name  string // react-vite, react-nextjs, vanilla
	label string // for the README
	// dirs maps template directories to where their files go under client/.
	dirs []clientDir
	pkg  func(d clientData) packageJSON
}

type clientDir struct{ src, dst string }

// clientVariantFor picks the client of a config; ok is false when the
// project gets no client.
func clientVariantFor(cfg Config) (v clientVariant, ok bool, err error) {
	if cfg.BotType == "telephony" {
		return clientVariant{}, false, nil
	}
	switch cfg.ClientFramework {
	case "", clientNone:
		return clientVariant{}, false, nil
	case clientVanilla:
		if cfg.ClientServer != "" && cfg.ClientServer != serverVite {
			return clientVariant{}, false, fmt.Errorf("client_server %q: the vanilla client runs on vite", cfg.ClientServer)
		}
		return clientVariant{
			name:  "vanilla",
			label: "JavaScript + Vite",
			dirs:  []clientDir{{"common", ""}, {"style", "src/"}, {"vanilla", ""}},
			pkg:   vanillaPackage,
		}, true, nil
	case clientReact:
		switch cfg.ClientServer {
		case "", serverVite:
			return clientVariant{
				name:  "react-vite",
				label: "React + Vite (TypeScript)",
				dirs:  []clientDir{{"common", ""}, {"react-common", "src/"}, {"react-vite", ""}},
				pkg:   reactVitePackage,
			}, true, nil
		case serverNextJS:
			return clientVariant{
				name:  "react-nextjs",
				label: "React + Next.js (TypeScript, App Router)",
				dirs:  []clientDir{{"common", ""}, {"react-common", "app/"}, {"react-nextjs", ""}},
				pkg:   reactNextPackage,
			}, true, nil
		}
		return clientVariant{}, false, fmt.Errorf("client_server %q: want one of vite, nextjs", cfg.ClientServer)
	}
	return clientVariant{}, false, fmt.Errorf("client_framework %q: want one of react, vanilla, none", cfg.ClientFramework)
}

// newClientData collects the template data of cfg; it fails when cfg has no
// web transport, since the page could not connect to anything.
func newClientData(cfg Config) (clientData, error) {
	d := clientData{ProjectName: cfg.ProjectName}
	var ids []string
	for _, id := range cfg.Transports {
		t, ok := webClientTransport(id)
		if !ok {
			continue
		}
		if (id == "daily" && d.Daily) || (id == "smallwebrtc" && d.SmallWebRTC) {
			continue // listed twice
		}
		d.Daily = d.Daily || id == "daily"
		d.SmallWebRTC = d.SmallWebRTC || id == "smallwebrtc"
		d.Transports = append(d.Transports, t)
		ids = append(ids, id)
	}
	if len(d.Transports) == 0 {
		return clientData{}, fmt.Errorf("transports %v: a web client needs a web transport (daily or smallwebrtc)", cfg.Transports)
	}
	d.TransportList = strings.Join(ids, ", ")
	return d, nil
}

// ClientFiles returns the files of the project's client/ directory, or nil
// when the bot gets no client: telephony bots and client framework "" or
// "none". Paths start with "client/".
func ClientFiles(cfg Config) ([]File, error) {
	v, ok, err := clientVariantFor(cfg)
	if err != nil || !ok {
		return nil, err
	}
	d, err := newClientData(cfg)
	if err != nil {
		return nil, err
	}
	funcs := template.FuncMap{
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
	}

	pkg, err := v.pkg(d).marshal()
	if err != nil {
		return nil, err
	}
	files := []File{{Path: "client/package.json", Data: pkg}}
	for _, dir := range v.dirs {
		root := "templates/client/" + dir.src
		err := fs.WalkDir(clientTemplates, root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			data, err := clientTemplates.ReadFile(p)
			if err != nil {
				return err
			}
			rel := dir.dst + strings.TrimPrefix(p, root+"/")
			if strings.HasSuffix(rel, ".tmpl") {
				rel = strings.TrimSuffix(rel, ".tmpl")
				t, err := template.New(p).Delims("[[", "]]").Funcs(funcs).Option("missingkey=error").Parse(string(data))
				if err != nil {
					return fmt.Errorf("client template %s: %w", p, err)
				}
				var buf bytes.Buffer
				if err := t.Execute(&buf, d); err != nil {
					return fmt.Errorf("client template %s: %w", p, err)
				}
				if len(bytes.TrimSpace(buf.Bytes())) == 0 {
					return nil
				}
				data = buf.Bytes()
			}
			if path.Base(rel) == "gitignore" {
				rel = path.Join(path.Dir(rel), ".gitignore")
			}
			if len(data) > 0 && data[len(data)-1] != '\n' {
				data = append(data, '\n')
			}
			files = append(files, File{Path: "client/" + rel, Data: data})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// packageJSON is client/package.json. encoding/json writes map keys sorted,
// which is npm's own order for dependencies.
type packageJSON struct {
	Name            string            `json:"name"`
	Version         string            `json:"version"`
	Private         bool              `json:"private"`
	Type            string            `json:"type,omitempty"`
	Scripts         map[string]string `json:"scripts"`
	Dependencies    map[string]string `json:"dependencies"`
	DevDependencies map[string]string `json:"devDependencies"`
	Engines         map[string]string `json:"engines"`
}

func (p packageJSON) marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "&&" in scripts, ">=" in engines
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// npmPackageName turns a project name (letters, digits, '-', '_', '.') into
// a valid npm package name for the client.
func npmPackageName(project string) string {
	name := strings.TrimLeft(strings.ToLower(project), "._")
	if name == "" {
		name = "bot"
	}
	return name + "-client"
}

func basePackage(d clientData) packageJSON {
	deps := map[string]string{"@pipecat-ai/client-js": npmPipecatClientJS}
	for _, t := range d.Transports {
		deps[t.Package] = t.Version
	}
	return packageJSON{
		Name:            npmPackageName(d.ProjectName),
		Version:         "0.1.0",
		Private:         true,
		Dependencies:    deps,
		DevDependencies: map[string]string{},
		Engines:         map[string]string{"node": nodeEngine},
	}
}

func vanillaPackage(d clientData) packageJSON {
	p := basePackage(d)
	p.Type = "module"
	p.Scripts = map[string]string{
		"dev":     "vite",
		"build":   "vite build",
		"preview": "vite preview",
	}
	p.DevDependencies["vite"] = npmVite
	return p
}

func reactPackage(d clientData) packageJSON {
	p := basePackage(d)
	p.Dependencies["@pipecat-ai/client-react"] = npmPipecatClientReact
	p.Dependencies["@pipecat-ai/voice-ui-kit"] = npmVoiceUIKit
	p.Dependencies["react"] = npmReact
	p.Dependencies["react-dom"] = npmReact
	p.DevDependencies["@types/react"] = npmTypesReact
	p.DevDependencies["@types/react-dom"] = npmTypesReact
	p.DevDependencies["typescript"] = npmTypeScript
	return p
}

func reactVitePackage(d clientData) packageJSON {
	p := reactPackage(d)
	p.Type = "module"
	p.Scripts = map[string]string{
		"dev":       "vite",
		"build":     "tsc --noEmit && vite build",
		"preview":   "vite preview",
		"typecheck": "tsc --noEmit",
	}
	p.DevDependencies["vite"] = npmVite
	p.DevDependencies["@vitejs/plugin-react"] = npmVitePluginReact
	return p
}

func reactNextPackage(d clientData) packageJSON {
	p := reactPackage(d)
	p.Scripts = map[string]string{
		"dev":       "next dev",
		"build":     "next build",
		"start":     "next start",
		"typecheck": "tsc --noEmit",
	}
	p.Dependencies["next"] = npmNext
	p.DevDependencies["@types/node"] = npmTypesNode
	return p
}

// ClientReadme is the section of the generated README about the client: how
// to set it up and run it. Empty when the project has no client.
func ClientReadme(cfg Config) string {
	v, ok, err := clientVariantFor(cfg)
	if err != nil || !ok {
		return ""
	}
	d, err := newClientData(cfg)
	if err != nil {
		return ""
	}
	data := struct {
		clientData
		Label, URL, TransportNames  string
		React, Next, Multi, Vanilla bool
	}{
		clientData: d,
		Label:      v.label,
		URL:        "http://localhost:5173",
		React:      cfg.ClientFramework == clientReact,
		Next:       v.name == "react-nextjs",
		Multi:      len(d.Transports) > 1,
		Vanilla:    v.name == clientVanilla,
	}
	if data.Next {
		data.URL = "http://localhost:3000"
	}
	var names []string
	for _, t := range d.Transports {
		names = append(names, map[string]string{"daily": "Daily", "smallwebrtc": "SmallWebRTC"}[t.ID])
	}
	data.TransportNames = strings.Join(names, " or ")

	src, err := clientTemplates.ReadFile("templates/client/README.md.tmpl")
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	t := template.Must(template.New("README.md").Delims("[[", "]]").Option("missingkey=error").Parse(string(src)))
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		panic(fmt.Sprintf("client README template: %v", err)) // a bug in the template, caught by tests
	}
	return strings.TrimSpace(collapseBlankLines(b.String())) + "\n"
}

// collapseBlankLines leaves at most one empty line between paragraphs.
func collapseBlankLines(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}

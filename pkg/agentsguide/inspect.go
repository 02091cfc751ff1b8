// Package agentsguide writes AGENTS.md, the guide AI coding agents read,
// from the project itself: its layout, how to run it, its services and the
// keys each needs, its deployment and the botkit commands that go with it,
// and the rules an agent must keep. `botkit init` writes it into any
// project; `botkit create` into the projects it makes (docs/deploy.md).
package agentsguide

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing/fstest" // an in-memory fs.FS; it links no testing code

	"github.com/botkit-dev/botkit/pkg/deployfile"
	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// Project is what the guide says about a project, as read from its files.
type Project struct {
	Name      string
	ServerDir string // "server", or "." for a project with bot.py at its root
	Files     []string
	// Transports are the development runner's transports bot.py defines.
	Transports []Transport
	// Groups are the .env.example's groups of keys, in file order.
	Groups   []KeyGroup
	Deploy   *Deploy
	Evals    []string // scenario files
	Client   *Client
	NotFound []string // what the guide leaves out, in words
}

// Transport is one transport of the bot.
type Transport struct {
	Runner string // the runner's --transport value
	Label  string // from the catalogue; "" when it does not know it
}

// KeyGroup is a titled group of .env.example keys.
type KeyGroup struct {
	Title string
	Keys  []Key
}

// Key is one key of .env.example.
type Key struct {
	Name     string
	Optional bool // commented out in .env.example
	Secret   bool // a credential, per the service catalogue
}

// Deploy is the deployment, from the deploy file.
type Deploy struct {
	File             string
	AgentName        string
	Region           string
	Image            string
	SecretSet        string
	ImageCredentials string
}

// Client is the web client.
type Client struct {
	Dir       string
	Framework string // "React + Vite", "React + Next.js", "JavaScript + Vite", or ""
}

var (
	transportRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*"([a-z_]+)":\s*lambda\s*:`) })
	keyLineRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(#\s*)?(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=`) })
	titleRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*#\s*(\S.*)$`) })
)

// ProjectFiles are the files that make a directory a bot project, one of
// which Found needs: the bot's entry point, in server/ (botkit create's
// layout) or at the root.
var ProjectFiles = []string{"server/bot.py", "bot.py"}

// Found reports whether Inspect found a project: one of ProjectFiles.
func (p Project) Found() bool {
	return slices.Contains(p.Files, path.Join(p.ServerDir, "bot.py"))
}

// Inspect reads the project in fsys (its root). What it cannot find is left
// out of the guide and named in NotFound.
func Inspect(fsys fs.FS, name string) Project {
	p := Project{Name: name, ServerDir: "server"}
	exists := func(f string) bool {
		st, err := fs.Stat(fsys, f)
		return err == nil && !st.IsDir()
	}
	if !exists("server/bot.py") && exists("bot.py") {
		p.ServerDir = "."
	}
	in := func(f string) string { return path.Join(p.ServerDir, f) }
	for _, f := range []string{"bot.py", "pyproject.toml", ".env.example", "Dockerfile", "cloud-deploy.toml"} {
		if exists(in(f)) {
			p.Files = append(p.Files, in(f))
		} else {
			p.NotFound = append(p.NotFound, in(f))
		}
	}
	if data, err := fs.ReadFile(fsys, in("bot.py")); err == nil {
		p.Transports = transports(data)
	}
	if data, err := fs.ReadFile(fsys, in(".env.example")); err == nil {
		p.Groups = keyGroups(data)
	}
	if data, err := fs.ReadFile(fsys, in("cloud-deploy.toml")); err == nil {
		if df, err := deployfile.Parse(in("cloud-deploy.toml"), data); err == nil {
			p.Deploy = &Deploy{File: in("cloud-deploy.toml"), AgentName: df.AgentName, Region: df.Region, Image: df.Image,
				SecretSet: df.SecretSet, ImageCredentials: df.ImageCredentials}
		} else {
			p.NotFound = append(p.NotFound, in("cloud-deploy.toml")+" as a deploy file (botkit preflight says why)")
		}
	}
	if evals, err := fs.Glob(fsys, in("evals/*.yaml")); err == nil && len(evals) > 0 {
		p.Evals = evals
		p.Files = append(p.Files, in("evals")+"/")
	}
	if data, err := fs.ReadFile(fsys, "client/package.json"); err == nil {
		p.Client = &Client{Dir: "client", Framework: framework(data)}
		p.Files = append(p.Files, "client/")
	}
	return p
}

// transports reads the keys of bot.py's transport_params.
func transports(botPy []byte) []Transport {
	var out []Transport
	sc := bufio.NewScanner(bytes.NewReader(botPy))
	for sc.Scan() {
		m := transportRE().FindStringSubmatch(sc.Text())
		if m == nil || slices.ContainsFunc(out, func(t Transport) bool { return t.Runner == m[1] }) {
			continue
		}
		t := Transport{Runner: m[1]}
		if m[1] == "eval" {
			t.Label = "evals (the eval harness)"
		}
		for _, ct := range scaffold.Transports() {
			if ct.Runner == m[1] && ct.VariantOf == "" {
				t.Label = ct.Label
				break
			}
		}
		out = append(out, t)
	}
	return out
}

// keyGroups reads .env.example: "# Title" comment lines start a group,
// "KEY=" lines are keys, "# KEY=" lines optional keys.
func keyGroups(data []byte) []KeyGroup {
	secret := map[string]bool{}
	for _, s := range scaffold.Services() {
		for _, e := range s.Env {
			secret[e.Name] = e.Secret
		}
	}
	for _, t := range scaffold.Transports() {
		for _, e := range t.Env {
			secret[e.Name] = e.Secret
		}
	}
	var out []KeyGroup
	title := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if m := keyLineRE().FindStringSubmatch(line); m != nil {
			if len(out) == 0 || out[len(out)-1].Title != title {
				out = append(out, KeyGroup{Title: title})
			}
			g := &out[len(out)-1]
			g.Keys = append(g.Keys, Key{Name: m[2], Optional: m[1] != "", Secret: secret[m[2]]})
			continue
		}
		if m := titleRE().FindStringSubmatch(line); m != nil {
			title = strings.TrimSpace(m[1])
		} else if strings.TrimSpace(line) == "" {
			continue
		}
	}
	return out
}

// framework names the client's framework from its package.json.
func framework(pkg []byte) string {
	var p struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if json.Unmarshal(pkg, &p) != nil {
		return ""
	}
	has := func(n string) bool { _, a := p.Dependencies[n]; _, b := p.DevDependencies[n]; return a || b }
	switch {
	case has("next"):
		return "React + Next.js"
	case has("react") && has("vite"):
		return "React + Vite"
	case has("vite"):
		return "JavaScript + Vite"
	}
	return ""
}

// ForProject returns AGENTS.md and CLAUDE.md for a project about to be
// written (botkit create): the guide of its files, read from memory.
func ForProject(name string, files []scaffold.File, version string) []scaffold.File {
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Path] = &fstest.MapFile{Data: f.Data}
	}
	guide := Render(Inspect(fsys, name), version)
	return []scaffold.File{{Path: GuideFile, Data: guide}, {Path: ClaudeFile, Data: []byte(ClaudeContent)}}
}

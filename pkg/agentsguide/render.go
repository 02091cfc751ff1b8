package agentsguide

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// File names the guide is written to. CLAUDE.md only includes AGENTS.md
// (Claude Code reads @-imports), so there is one guide to keep.
const (
	GuideFile  = "AGENTS.md"
	ClaudeFile = "CLAUDE.md"
)

// ClaudeContent is CLAUDE.md as botkit writes it.
const ClaudeContent = "@AGENTS.md\n"

// Render writes the guide of p. Its last line is a footer naming botkit's
// version and the hash of everything above it, which tells a guide botkit
// wrote and nobody edited (State).
func Render(p Project, version string) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	name := p.Name
	if name == "" {
		name = "this project"
	}
	w("# AGENTS.md: %s\n\n", name)
	w("A guide for AI coding agents working on %s: a voice bot on [Pipecat](https://docs.pipecat.ai).\n", name)
	w("`botkit init` wrote it from the project's files; run it again after the project changes.\n")

	w("\n## Layout\n\n| path | what |\n|---|---|\n")
	what := map[string]string{
		"bot.py":            "the bot: its pipeline, services and transports",
		"pyproject.toml":    "its Python dependencies (uv)",
		".env.example":      "the environment keys it reads; copy it to `.env` (never commit `.env`)",
		"Dockerfile":        "the image Pipecat Cloud runs (linux/arm64)",
		"cloud-deploy.toml": "the deployment: agent name, image, region, secret set",
		"evals/":            "eval scenarios run against the bot",
	}
	for _, f := range p.Files {
		desc := what[strings.TrimPrefix(strings.TrimPrefix(f, p.ServerDir+"/"), "./")]
		if f == "client/" {
			desc = "the web client"
			if p.Client != nil && p.Client.Framework != "" {
				desc += " (" + p.Client.Framework + ")"
			}
		}
		w("| `%s` | %s |\n", f, desc)
	}

	w("\n## Run it locally\n\nPython 3.11 or newer and [uv](https://docs.astral.sh/uv/).\n\n```sh\n")
	if p.ServerDir != "." {
		w("cd %s\n", p.ServerDir)
	}
	w("uv sync\ncp .env.example .env   # the user fills in the values\n")
	runnable := make([]Transport, 0, len(p.Transports))
	for _, t := range p.Transports {
		if t.Runner != "eval" {
			runnable = append(runnable, t)
		}
	}
	runners := make([]string, len(runnable))
	for i, t := range runnable {
		runners[i] = t.Runner
	}
	// The same commands as the project's README (scaffold.RunCommand).
	w("%s\n```\n", scaffold.RunCommand(runners))
	if len(runnable) > 0 {
		if len(runnable) > 1 && scaffold.ServesAll(runners) {
			w("\nWithout `--transport` the runner serves every transport; each alone:\n")
		} else {
			w("\nTransports, each alone:\n")
		}
		for _, t := range runnable {
			if t.Label != "" {
				w("- `%s`: %s: `%s %s`\n", t.Runner, t.Label, scaffold.RunPrefix, scaffold.RunArgs(t.Runner))
			} else {
				// Not a transport botkit knows: no command guessed.
				w("- `%s`\n", t.Runner)
			}
		}
	}
	if p.Client != nil {
		w("\nThe client, in another terminal:\n\n```sh\ncd %s\nnpm install\nnpm run dev\n```\n", p.Client.Dir)
	}

	if len(p.Groups) > 0 {
		w("\n## Services and their keys\n\nFrom `%s` (names only: the values are the user's).\n\n", joinDir(p.ServerDir, ".env.example"))
		for _, g := range p.Groups {
			title := g.Title
			if title == "" {
				title = "Other"
			}
			var keys []string
			for _, k := range g.Keys {
				s := "`" + k.Name + "`"
				var notes []string
				if k.Secret {
					notes = append(notes, "secret")
				}
				if k.Optional {
					notes = append(notes, "optional")
				}
				if len(notes) > 0 {
					s += " (" + strings.Join(notes, ", ") + ")"
				}
				keys = append(keys, s)
			}
			w("- %s: %s\n", title, strings.Join(keys, ", "))
		}
	}

	if d := p.Deploy; d != nil {
		var facts []string
		for _, kv := range [][2]string{{"agent", d.AgentName}, {"region", d.Region}, {"image", d.Image}, {"secret set", d.SecretSet}, {"image pull secret", d.ImageCredentials}} {
			if kv[1] != "" {
				facts = append(facts, fmt.Sprintf("%s `%s`", kv[0], kv[1]))
			}
		}
		w("\n## Deploying\n\nFrom `%s`: %s.\n\n```sh\n", d.File, strings.Join(facts, "; "))
		var cmds [][2]string
		if d.SecretSet != "" {
			cmds = append(cmds,
				[2]string{"botkit cloud secrets set " + d.SecretSet + " --file " + joinDir(p.ServerDir, ".env"), "the keys of .env into the secret set"},
				[2]string{"botkit cloud secrets list " + d.SecretSet, "key names and state, never values"})
		}
		for _, s := range scaffold.DeploySteps("", d.AgentName) {
			cmds = append(cmds, [2]string{s.Command, s.Does})
		}
		width := 0
		for _, c := range cmds {
			width = max(width, len(c[0]))
		}
		for _, c := range cmds {
			w("%-*s   # %s\n", width, c[0], c[1])
		}
		w("```\n")
		renderCalls(w, p, d.AgentName)
	}

	if len(p.Evals) > 0 {
		w("\n## Evals\n\nStart the bot with the eval transport, then run the scenarios in another terminal:\n\n```sh\n")
		if p.ServerDir != "." {
			w("cd %s\n", p.ServerDir)
		}
		w("uv run bot.py --transport eval\nuv run python -m pipecat.evals run evals/*.yaml\n```\n")
	}

	w("\n## Rules\n\n")
	w("- Never print, log or commit a secret value. `.env` stays out of git; a value goes only into `.env` or the secret set, typed by the user.\n")
	w("- A new key goes into `%s` (with an empty value)", joinDir(p.ServerDir, ".env.example"))
	if p.Deploy != nil && p.Deploy.SecretSet != "" {
		w(" and, for the deployment, into the secret set: `botkit cloud secrets set %s KEY=...` with the user's value", p.Deploy.SecretSet)
	}
	w(".\n")
	w("- Python code stays formatted with `black` and free of `pyflakes` warnings.\n")
	if p.Deploy != nil {
		w("- Run `botkit preflight` before saying a change is ready to deploy, and fix what it reports; `botkit deploy`, and a session (`botkit cloud agents start`), only when the user asks for it.\n")
	}
	w("- `botkit` commands print key names, never values; use `-o json` to read their output in a script.\n")

	body := b.String()
	return []byte(body + footer(version, body))
}

func joinDir(dir, f string) string {
	if dir == "." || dir == "" {
		return f
	}
	return dir + "/" + f
}

var footerRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^<!-- botkit init ([^ ]+) sha256:([0-9a-f]{64}) .*-->$`)
})

func footer(version, body string) string {
	sum := sha256.Sum256([]byte(body))
	return fmt.Sprintf("\n<!-- botkit init %s sha256:%s (edited? botkit init keeps it; --force rewrites it) -->\n", version, hex.EncodeToString(sum[:]))
}

// States of an existing guide.
const (
	Absent    = "absent"     // no file
	Unedited  = "unedited"   // botkit wrote it and nobody changed it: refreshed in place
	Edited    = "edited"     // botkit wrote it, someone changed it: kept without --force
	NotBotkit = "not-botkit" // someone else's file: kept without --force
)

// State says what an existing AGENTS.md is (nil: none). Line endings do
// not count: a guide checked out with CRLF (git's autocrlf, an editor on
// Windows) is the guide botkit wrote.
func State(existing []byte) string {
	if existing == nil {
		return Absent
	}
	existing = bytes.ReplaceAll(existing, []byte("\r\n"), []byte("\n"))
	all := footerRE().FindAllSubmatchIndex(existing, -1)
	if all == nil {
		return NotBotkit
	}
	m := all[len(all)-1]
	body := bytes.TrimSuffix(existing[:m[0]], []byte("\n")) // the blank line before the footer
	after := bytes.TrimSpace(existing[m[1]:])
	sum := sha256.Sum256(body)
	if len(after) == 0 && hex.EncodeToString(sum[:]) == string(existing[m[4]:m[5]]) {
		return Unedited
	}
	return Edited
}

// renderCalls writes how the deployed agent is called: a session on the
// platform over the transport the bot serves, or why there is none.
func renderCalls(w func(string, ...any), p Project, agent string) {
	var runners []string
	for _, t := range p.Transports {
		runners = append(runners, t.Runner)
	}
	transport := scaffold.SessionTransport(runners)
	if transport == "" {
		w("\nbotkit's platform starts sessions over SmallWebRTC, websockets and Daily rooms: this bot serves none of them, so it is started as its own transport says.\n")
		return
	}
	w("\nCalling it: a call is a session, on one agent of the deployment. Sessions need a platform that outlives a command: on the local context, `%s` in another terminal (it serves on %s); a remote platform serves them itself.\n\n```sh\n", scaffold.ServeLocal.Command, scaffold.PlatformURL)
	steps := append([]scaffold.DeployStep{scaffold.ServeLocal}, scaffold.CallSteps(agent, transport)...)
	width := 0
	for _, s := range steps {
		width = max(width, len(s.Command))
	}
	for _, s := range steps {
		w("%-*s   # %s\n", width, s.Command, s.Does)
	}
	w("%s\n```\n", scaffold.StartCall(agent, transport, ""))
	if transport == scaffold.SessionWebRTC {
		w("\nThe answer is `{\"sessionId\": \"ses_…\"}`; a web client sends its WebRTC offer to `%s/v1/public/%s/sessions/<sessionId>/api/offer` with the same key. `[scaling] min_agents` is how many agents wait warm (0: each call waits for one to start).\n", scaffold.PlatformURL, agent)
		return
	}
	if transport == scaffold.SessionDaily {
		w("\nThe answer's `dailyRoom` is the Daily room the bot is in and `dailyToken` the client's meeting token for it: the platform makes the room with its operator's Daily API key (`botkit-platform serve --daily-api-key-file FILE`). `[scaling] min_agents` is how many agents wait warm (0: each call waits for one to start).\n")
		return
	}
	w("\nThe answer's `wsUrl` is the bot's websocket through the platform, good for one connection. `[scaling] min_agents` is how many agents wait warm (0: each call waits for one to start).\n")
}

package scaffold

import (
	"fmt"
	"strings"
)

// NextSteps is the text printed after a project is created in dir: how to
// start the bot and, for web bots with a client, the client.
func NextSteps(c Config, dir string) string {
	var b strings.Builder
	b.WriteString("Next steps:\n")
	cd := func(sub string) string {
		path := dir
		if sub != "" {
			if dir == "" || dir == "." {
				path = sub
			} else {
				path = strings.TrimRight(dir, "/") + "/" + sub
			}
		}
		return "cd " + shellQuote(path)
	}
	if dir != "" && dir != "." {
		fmt.Fprintf(&b, "  %s\n", cd(""))
	}
	b.WriteString("  cd server && uv sync\n")
	b.WriteString("  cp .env.example .env   # then fill in your API keys\n")
	fmt.Fprintf(&b, "  %s\n", RunCommand(runners(c)))
	if c.BotType == "web" && (c.ClientFramework == "react" || c.ClientFramework == "vanilla") {
		b.WriteString("\nThen, in another terminal, the client:\n")
		fmt.Fprintf(&b, "  %s\n", cd("client"))
		b.WriteString("  npm install\n")
		b.WriteString("  npm run dev\n")
	}
	if c.DeployToCloud {
		b.WriteString("\nTo deploy (README.md, Deploy), once the secrets are set and the image pushed:\n")
		steps := DeploySteps(dir, AgentName(c.ProjectName))
		width := 0
		for _, s := range steps {
			width = max(width, len(s.Command))
		}
		for _, s := range steps {
			fmt.Fprintf(&b, "  %-*s   # %s\n", width, s.Command, s.Does)
		}
		if prefix, keyCmd, ok := clientAgentEnv(c); ok {
			fmt.Fprintf(&b, "\nTo call the deployed agent from the client (README.md, Web client), with sessions served\n(%s), set in client/.env.local:\n", ServeLocal.Command)
			fmt.Fprintf(&b, "  %sAGENT_NAME=%s\n", prefix, AgentName(c.ProjectName))
			fmt.Fprintf(&b, "  %sPUBLIC_KEY=...   # the key printed by: %s\n", prefix, keyCmd)
		}
	}
	return b.String()
}

// clientAgentEnv returns the prefix of the variables with which the
// project's client calls a deployed agent (client/env.example's
// AGENT_NAME and PUBLIC_KEY) and the command that makes its public key;
// ok is false when the project has no such client.
func clientAgentEnv(c Config) (prefix, keyCmd string, ok bool) {
	v, has, err := clientVariantFor(c)
	if err != nil || !has {
		return "", "", false
	}
	switch v.name {
	case "react-vite":
		// The page calls the platform from its own origin.
		return "VITE_", "botkit cloud organizations keys create --name web --allowed-origin http://localhost:5173", true
	case "react-nextjs":
		return "", "botkit cloud organizations keys create --name web", true
	}
	return "", "", false
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./~+@%:,=", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

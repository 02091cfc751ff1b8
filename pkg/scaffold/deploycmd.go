package scaffold

// DeployStep is one command of the way from a created project to a running
// agent, with what it does.
type DeployStep struct {
	Command string
	Does    string
}

// DeploySteps returns the commands that deploy the project in dir ("" or
// ".": the current directory) whose deploy file names agent, then watch the
// agent: the one list that the README's Deploy section, the next steps
// create prints and botkit init's guide (AGENTS.md) show.
func DeploySteps(dir, agent string) []DeployStep {
	path := ""
	if dir != "" && dir != "." {
		path = " " + shellQuote(dir)
	}
	return []DeployStep{
		{"botkit preflight" + path, "everything the deploy needs, checked"},
		{"botkit deploy" + path, "preflight, then the agent runs: its image, the secret set's values"},
		{"botkit cloud agents status " + shellQuote(agent), "the serving deployment and each running agent"},
		{"botkit cloud agents logs " + shellQuote(agent) + " -f", "the agent's logs as it runs (values masked)"},
	}
}

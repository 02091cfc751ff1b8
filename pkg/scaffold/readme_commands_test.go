package scaffold

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// pipecatRunner is the argument parser of Pipecat's development runner,
// pipecat.runner.run.main(), which every generated bot.py calls without a
// parser of its own: so its flags are all bot.py accepts. Written from
// pipecat-ai 1.7.0, src/pipecat/runner/run.py at tag v1.7.0 (commit
// c49bf69df42f235c125a2602fbfe8aec005b02e9), main(): the add_argument calls
// (lines 1550-1729) and TELEPHONY_TRANSPORTS (line 155).
var pipecatRunner = struct {
	flags      []runnerFlag
	transports []string // --transport choices
	telephony  []string // TELEPHONY_TRANSPORTS: calls reach the bot through --proxy
}{
	flags: []runnerFlag{
		{long: "--host", value: true},
		{long: "--port", value: true, isInt: true},
		{long: "--transport", short: "-t", value: true},
		{long: "--proxy", short: "-x", value: true},
		{long: "--direct", short: "-d"},
		{long: "--folder", short: "-f", value: true},
		{long: "--runner-body", value: true},
		{long: "--verbose", short: "-v", count: true},
		{long: "--dialin"}, {long: "--no-dialin"}, // argparse.BooleanOptionalAction
		{long: "--esp32"},
		{long: "--whatsapp"},
		{long: "--ws-auth", value: true, choices: []string{"none", "token"}},
		{long: "--allowed-origins", many: true},
		{long: "--moq-connect", value: true},
		{long: "--moq-bind", value: true},
		{long: "--moq-serve"},
		{long: "--moq-namespace", value: true},
		{long: "--moq-bot-id", value: true},
		{long: "--moq-client-id", value: true},
		{long: "--moq-tls-cert", value: true},
		{long: "--moq-tls-key", value: true},
		{long: "--moq-tls-insecure"},
		{long: "--moq-tls-generate", value: true},
		{long: "--help", short: "-h"},
	},
	transports: []string{"daily", "eval", "moq", "vonage", "webrtc", "websocket", "twilio", "telnyx", "plivo", "exotel"},
	telephony:  []string{"twilio", "telnyx", "plivo", "exotel"},
}

type runnerFlag struct {
	long, short string
	value       bool // takes one value
	many        bool // nargs="*"
	count       bool // action="count": -vv
	isInt       bool
	choices     []string
}

// runInvocation is one command that starts bot.py, as a document shows it.
type runInvocation struct {
	where string   // file:line
	text  string   // the command as shown
	args  []string // what follows bot.py
}

// botRunRE finds a command that runs bot.py: uv run bot.py, uv run python
// bot.py, python bot.py. The command ends at a backtick, a shell comment,
// an operator or the end of the line.
var botRunRE = regexp.MustCompile(`(?:uv run (?:python )?|python3? )bot\.py\b[^` + "`" + `#;&|\n]*`)

// runCommandsIn returns every bot.py command of a document.
func runCommandsIn(file, text string) []runInvocation {
	var out []runInvocation
	for i, line := range strings.Split(text, "\n") {
		for _, m := range botRunRE.FindAllString(line, -1) {
			m = strings.TrimSpace(m)
			fields := strings.Fields(m)
			at := slices.Index(fields, "bot.py")
			out = append(out, runInvocation{where: fmt.Sprintf("%s:%d", file, i+1), text: m, args: fields[at+1:]})
		}
	}
	return out
}

// parseRunnerArgs parses args as the runner's argparse parser would (exact
// flag names only: a document spells a flag out) and returns the flags
// given, by long name, with their values.
func parseRunnerArgs(args []string) (map[string][]string, error) {
	got := map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasEq := strings.Cut(a, "=")
		var f *runnerFlag
		for j := range pipecatRunner.flags {
			rf := &pipecatRunner.flags[j]
			if name == rf.long || (rf.short != "" && name == rf.short) {
				f = rf
			}
		}
		if f == nil && strings.HasPrefix(a, "-v") && strings.Trim(a[1:], "v") == "" {
			got["--verbose"] = append(got["--verbose"], "")
			continue
		}
		if f == nil {
			if !strings.HasPrefix(a, "-") {
				return nil, fmt.Errorf("%q: the runner takes no positional argument", a)
			}
			return nil, fmt.Errorf("%q: not a flag of the runner", a)
		}
		switch {
		case f.value:
			if !hasEq {
				if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
					return nil, fmt.Errorf("%s needs a value", f.long)
				}
				i++
				val = args[i]
			}
			if f.isInt {
				if _, err := strconv.Atoi(val); err != nil {
					return nil, fmt.Errorf("%s %s: not an integer", f.long, val)
				}
			}
			if f.choices != nil && !slices.Contains(f.choices, val) {
				return nil, fmt.Errorf("%s %s: not one of %v", f.long, val, f.choices)
			}
			got[f.long] = append(got[f.long], val)
		case f.many:
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				got[f.long] = append(got[f.long], args[i])
			}
		default:
			if hasEq {
				return nil, fmt.Errorf("%s takes no value", f.long)
			}
			got[f.long] = append(got[f.long], "")
		}
	}
	return got, nil
}

var (
	transportParamRE = regexp.MustCompile(`(?m)^    "([a-z0-9_]+)": lambda`)
	runnerMainRE     = regexp.MustCompile(`(?m)^if __name__ == "__main__":\n    from pipecat\.runner\.run import main\n\n    main\(\)\n\z`)
	envLineRE        = regexp.MustCompile("^- (.+?): ((?:`[A-Z][A-Z0-9_]*`(?:, )?)+)$")
	envNameRE        = regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")
)

// checkRunCommand checks one command against the runner's parser and the
// project: its --transport is one bot.py serves and the project was made
// with, a telephony transport carries --proxy.
func checkRunCommand(inv runInvocation, served, made []string) error {
	got, err := parseRunnerArgs(inv.args)
	if err != nil {
		return err
	}
	ts := got["--transport"]
	if len(ts) > 1 {
		return fmt.Errorf("--transport given %d times", len(ts))
	}
	if len(ts) == 1 {
		t := ts[0]
		switch {
		case !slices.Contains(pipecatRunner.transports, t):
			return fmt.Errorf("--transport %s: not one of the runner's %v", t, pipecatRunner.transports)
		case !slices.Contains(served, t):
			return fmt.Errorf("--transport %s: bot.py's transport_params has %v", t, served)
		case !slices.Contains(made, t):
			return fmt.Errorf("--transport %s: the project was made for %v", t, made)
		case slices.Contains(pipecatRunner.telephony, t) && len(got["--proxy"]) == 0:
			return fmt.Errorf("--transport %s without --proxy: the provider's webhook answer needs the public host", t)
		}
	}
	if len(got["--direct"]) > 0 && len(ts) == 1 && ts[0] != "daily" {
		return fmt.Errorf("--direct works with daily only")
	}
	return nil
}

// madeRunners returns the --transport values project c was made with: its
// transports' (from the catalogue), and eval with evals.
func madeRunners(c Config) []string {
	var out []string
	for _, id := range c.Transports {
		t, ok := LookupTransport(id)
		if !ok {
			continue
		}
		if !slices.Contains(out, t.Runner) {
			out = append(out, t.Runner)
		}
	}
	if c.Eval {
		out = append(out, "eval")
	}
	return out
}

// Every command a generated README, bot.py's docstring and create's next
// steps show runs with the project's own bot.py: the runner's flags, the
// transports bot.py serves and the project was made with, --proxy for a
// phone transport. They agree with each other: the run block is the next
// steps' command, and it serves every transport when the client section
// says to start without --transport. The keys listed per transport are the
// catalogue's, named with the transport they are for when there are
// several.
func TestREADMECommandsRunWithBotPy(t *testing.T) {
	projects, err := Matrix()
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGenerator()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range slices.Sorted(maps.Keys(projects)) {
		c := projects[name]
		files, err := g.Generate(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		content := map[string]string{}
		for _, f := range files {
			content[f.Path] = string(f.Data)
		}
		readme, botPy := content["README.md"], content["server/bot.py"]
		// The Deploy section ends with the deploy and how to watch the
		// agent: DeploySteps, the list the next steps and AGENTS.md show.
		_, deploy, hasDeploy := strings.Cut(readme, "\n## Deploy\n")
		if hasDeploy != c.DeployToCloud {
			t.Errorf("%s: a Deploy section: %v, made for the cloud: %v", name, hasDeploy, c.DeployToCloud)
		}
		if hasDeploy {
			for _, s := range DeploySteps("", AgentName(c.ProjectName)) {
				if !strings.Contains(deploy, "\n   "+s.Command+"\n") {
					t.Errorf("%s: README's Deploy section lacks `%s`", name, s.Command)
				}
			}
			// Then a call: a session over the transport the bot serves
			// on the platform, after the deploy; none for a bot that
			// serves none of the platform's transports, which says why.
			agent, transport := AgentName(c.ProjectName), SessionTransport(runners(c))
			last := DeploySteps("", agent)[len(DeploySteps("", agent))-1].Command
			if transport == "" {
				if strings.Contains(deploy, "botkit cloud agents start") || !strings.Contains(deploy, "serves none of them") {
					t.Errorf("%s: a bot without a platform transport: its Deploy section:\n%s", name, deploy)
				}
			} else {
				for _, s := range CallSteps(agent, transport) {
					if i := strings.Index(deploy, "\n   "+s.Command+"\n"); i < strings.Index(deploy, last) {
						t.Errorf("%s: README's Deploy section lacks `%s` after the deploy", name, s.Command)
					}
				}
				if !strings.Contains(deploy, StartCall(agent, transport, "   ")) {
					t.Errorf("%s: README's Deploy section lacks the start of a session", name)
				}
				// A phone bot says which URL its provider connects to.
				if ps := ProviderStream(runners(c), agent); ps != "" && !strings.Contains(deploy, ps) {
					t.Errorf("%s: README's Deploy section lacks where the provider's stream goes", name)
				}
				if slices.Contains(runners(c), "twilio") && !strings.Contains(deploy, "/ws/twilio") {
					t.Errorf("%s: a Twilio bot's Deploy section has no /ws/twilio", name)
				}
				// Its body is a start the platform takes: the API's
				// fields only, the bot's transport.
				_, body, _ := strings.Cut(StartCall(agent, transport, ""), " -d '")
				dec := json.NewDecoder(strings.NewReader(strings.TrimSuffix(body, "'")))
				dec.DisallowUnknownFields()
				var req resources.SessionStartRequest
				if err := dec.Decode(&req); err != nil || req.Transport != transport {
					t.Errorf("%s: the start's body %s: %v, transport %q", name, body, err, req.Transport)
				}
			}
		}
		if !runnerMainRE.MatchString(botPy) {
			t.Errorf("%s: bot.py does not end in pipecat.runner.run's main() without a parser of its own: its flags are not the runner's", name)
			continue
		}
		var served []string
		for _, m := range transportParamRE.FindAllStringSubmatch(botPy, -1) {
			served = append(served, m[1])
		}
		made := madeRunners(c)
		if !slices.Equal(slices.Sorted(slices.Values(served)), slices.Sorted(slices.Values(made))) {
			t.Errorf("%s: bot.py serves %v, the project was made for %v", name, served, made)
		}

		invs := append(runCommandsIn(name+"/README.md", readme), runCommandsIn(name+"/server/bot.py", botPy)...)
		next := runCommandsIn(name+" (create's next steps)", NextSteps(c, name))
		invs = append(invs, next...)
		if len(next) != 1 {
			t.Errorf("%s: the next steps show %d commands that run bot.py, want 1", name, len(next))
		}
		for _, inv := range invs {
			checked++
			if err := checkRunCommand(inv, served, made); err != nil {
				t.Errorf("%s: `%s`: %v", inv.where, inv.text, err)
			}
		}

		// The run block: the first command of "Run the bot locally".
		_, local, _ := strings.Cut(readme, "## Run the bot locally")
		runBlock := runCommandsIn(name+"/README.md", local)
		if len(runBlock) == 0 {
			t.Errorf("%s: no run command under Run the bot locally", name)
			continue
		}
		main := runBlock[0]
		if len(next) == 1 && next[0].text != main.text {
			t.Errorf("%s: the next steps run `%s`, the README `%s`", name, next[0].text, main.text)
		}
		mainArgs, err := parseRunnerArgs(main.args)
		if err != nil {
			t.Errorf("%s: run block `%s`: %v", name, main.text, err)
			continue
		}
		if strings.Contains(readme, "without `--transport`") && len(mainArgs["--transport"]) > 0 {
			t.Errorf("%s: the README says to start the bot without --transport, its run block runs `%s`", name, main.text)
		}

		// The keys per transport.
		_, envPart, _ := strings.Cut(readme, "`.env` needs:\n")
		envPart, _, _ = strings.Cut(envPart, "\n#")
		lines := map[string]string{} // title -> line
		var order []string
		for _, line := range strings.Split(envPart, "\n") {
			if m := envLineRE.FindStringSubmatch(line); m != nil {
				lines[m[1]] = line
				order = append(order, line)
			}
		}
		severalRunners := 0
		for _, r := range made {
			if r != "eval" {
				severalRunners++
			}
		}
		seen := map[string]bool{}
		for _, id := range c.Transports {
			tr, _ := LookupTransport(id)
			if tr.VariantOf != "" {
				tr, _ = LookupTransport(tr.VariantOf)
			}
			var want []string
			for _, e := range tr.Env {
				if !seen[e.Name] {
					seen[e.Name] = true
					want = append(want, e.Name)
				}
			}
			if len(want) == 0 {
				continue
			}
			var line string
			for _, l := range order {
				if strings.HasPrefix(l, "- Transport: "+tr.Label) {
					line = l
				}
			}
			if line == "" {
				t.Errorf("%s: .env lists no keys for transport %s (the catalogue's %v)", name, tr.ID, want)
				continue
			}
			var listed []string
			for _, m := range envNameRE.FindAllStringSubmatch(line, -1) {
				listed = append(listed, m[1])
			}
			if !slices.Equal(listed, want) {
				t.Errorf("%s: .env lists %v for transport %s, the catalogue %v", name, listed, tr.ID, want)
			}
			if severalRunners > 1 && !strings.Contains(line, "`--transport "+tr.Runner+"`") {
				t.Errorf("%s: the keys of transport %s are listed as needed by every transport (the run block: `%s`): %q", name, tr.ID, main.text, line)
			}
		}
	}
	if checked < len(projects)*3 {
		t.Fatalf("checked %d commands in %d projects", checked, len(projects))
	}
}

// The parser of the test itself: what the runner refuses, it refuses.
func TestParseRunnerArgs(t *testing.T) {
	for _, tc := range []struct {
		args string
		ok   bool
	}{
		{"--transport daily", true},
		{"-t twilio -x h.ngrok.io", true},
		{"--transport=webrtc --port 8000 -vv --no-dialin", true},
		{"--transport", false},
		{"--transport daily extra", false},
		{"--trans daily", false},
		{"--port eighty", false},
		{"--ws-auth hmac", false},
		{"--esp32=yes", false},
	} {
		_, err := parseRunnerArgs(strings.Fields(tc.args))
		if (err == nil) != tc.ok {
			t.Errorf("%q: %v", tc.args, err)
		}
	}
	inv := runCommandsIn("x", "run `uv run bot.py --transport twilio` here")[0]
	if err := checkRunCommand(inv, []string{"twilio"}, []string{"twilio"}); err == nil || !strings.Contains(err.Error(), "without --proxy") {
		t.Errorf("twilio without --proxy: %v", err)
	}
	inv = runCommandsIn("x", "uv run bot.py -t daily # comment")[0]
	if err := checkRunCommand(inv, []string{"webrtc"}, []string{"webrtc"}); err == nil {
		t.Errorf("a transport bot.py does not serve passed")
	}
}

package deployfile

import (
	"errors"
	"strings"
	"testing"
)

// Every key the Pipecat Cloud CLI reads is accepted; the values are read.
func TestParseEveryKey(t *testing.T) {
	const text = `agent_name = "voice-bot"
image = "ghcr.io/acme/voice:1.2"
image_credentials = "ghcr-creds"
secret_set = "voice-secrets"
region = "eu-central"
agent_profile = "agent-2x"
max_session_duration = 1800
websocket_auth = "token"

[scaling]
min_agents = 1
max_agents = 10

[krisp_viva]
audio_filter = "tel"

[build]
context_dir = "."
dockerfile = "Dockerfile"

[build.exclude]
patterns = ["*.pyc", ".env"]

[docker]
registry = "custom"
registry_username = "acme"
registry_url = "ghcr.io"
auto_latest = false
`
	f, err := Parse("cloud-deploy.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if f.AgentName != "voice-bot" || *f.Scaling.MaxAgents != 10 || f.Build.Exclude.Patterns[1] != ".env" || *f.Docker.AutoLatest || f.KrispViva.AudioFilter != "tel" || *f.MaxSessionDuration != 1800 {
		t.Errorf("parsed: %+v", f)
	}
	if got := f.Check(); len(got) != 0 {
		t.Errorf("findings of a good file: %+v", got)
	}
	if f.Line("scaling.max_agents") != 12 || f.Line("docker") != 24 || f.Line("build.exclude.patterns") != 22 || f.Line("nope") != 0 {
		t.Errorf("lines: %v", f.lines)
	}
}

// What cannot be read as a deploy file is one error listing every problem
// at its line, in line order; never a panic.
func TestParseRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		want []string
	}{
		"syntax":  {"agent_name = \"x\"\nimage = \n", []string{"f.toml:2: "}},
		"unknown": {"agent_name = \"x\"\n[scaling]\nmin = 1\n[extra]\na = 1\n", []string{"f.toml:3: scaling.min: unknown key (valid in [scaling]: min_agents, max_agents)", "f.toml:4: extra: unknown key (valid in the file: agent_name, image"}},
		"type":    {"agent_name = 3\n", []string{"f.toml:1: agent_name: "}},
		"types, every one in the file's words": {"agent_name = 3\nimage = \"a/b:1\"\nmax_session_duration = \"long\"\n[scaling]\nmin_agents = 1.5\n[build.exclude]\npatterns = [\"a\", 2]\n[docker]\nauto_latest = \"yes\"\n",
			[]string{"f.toml:1: agent_name: want a string, got an integer", "f.toml:3: max_session_duration: want an integer, got a string", "f.toml:5: scaling.min_agents: want an integer, got a float", "f.toml:7: build.exclude.patterns: want an array of strings, got an array", "f.toml:9: docker.auto_latest: want a boolean (true or false), got a string"}},
		"a table where a value goes": {"[agent_name]\nx = 1\n", []string{"f.toml:1: agent_name: want a string, got a table"}},
		"a value where a table goes": {"scaling = 3\n", []string{"f.toml:1: scaling: want a table, got an integer"}},
		"enable_krisp":               {"enable_krisp = true\n", []string{"f.toml:1: enable_krisp: no longer supported by Pipecat Cloud"}},
		"an unknown key and a wrong type, both": {"agent_name = 3\nimgae = \"a/b:1\"\n[scaling]\nmin = 1\n",
			[]string{"f.toml:1: agent_name: want a string, got an integer", "f.toml:2: imgae: unknown key (valid in the file: agent_name, image", "f.toml:4: scaling.min: unknown key (valid in [scaling]: min_agents, max_agents)"}},
	} {
		_, err := Parse("f.toml", []byte(tc.text))
		var de *Error
		if !errors.As(err, &de) || len(de.Problems) != len(tc.want) {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(de.Problems[i].String(), w) {
				t.Errorf("%s: problem %d = %q, want %q...", name, i, de.Problems[i], w)
			}
		}
	}
}

func TestCheckValues(t *testing.T) {
	const text = `agent_name = "Voice Bot"
image = "acme/voice"
build_id = "b1"
region = "mars"
max_session_duration = 14401
agent_profile = "agent-1x"
[scaling]
min_agents = -1
max_agents = 0
[resources]
cpu = "two"
[docker]
registry = "custom"
`
	f, err := Parse("f.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fd := range f.Check() {
		got = append(got, fd.Check+"@"+fd.Key)
	}
	want := "agent-name@agent_name image-reference@build_id region@region session@max_session_duration scaling@scaling.min_agents scaling@scaling.max_agents sizing@resources sizing@resources sizing@resources.cpu docker@docker.registry_url"
	if strings.Join(got, " ") != want {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, " "), want)
	}
	for text, want := range map[string]string{
		"agent_name = \"a\"\nimage = \"docker.io/your_docker_user/a:0.1\"\n": "placeholder",
		"agent_name = \"a\"\nimage = \"acme/voice\"\n":                       "no tag or digest",
		"agent_name = \"a\"\nimage = \"acme/voice:latest\"\n":                "latest moves",
		"image = \"acme/voice:1\"\n":                                         "missing: the agent's name",
	} {
		f, err := Parse("f.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if fs := f.Check(); len(fs) != 1 || !strings.Contains(fs[0].Message, want) {
			t.Errorf("%q: %+v, want %q", text, fs, want)
		}
	}
}

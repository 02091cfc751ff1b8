package scaffold

import (
	"strings"
	"testing"
)

// The sagemaker and aws-nova-sonic extras of pipecat-ai 1.7.0 install
// their SDKs only on Python 3.12 and later (python_version markers): a
// project using them says so in pyproject.toml and README, or `uv sync` on
// 3.11 installs nothing and the bot fails on import.
func TestRequiresPythonFollowsTheServices(t *testing.T) {
	g, err := NewGenerator()
	if err != nil {
		t.Fatal(err)
	}
	m := matrix(t)
	for name, want := range map[string]string{
		"stt-nvidia_sagemaker_stt":      "3.12",
		"tts-deepgram_sagemaker_tts":    "3.12",
		"realtime-aws_nova_realtime":    "3.12",
		"stt-deepgram_stt":              "3.11",
		"realtime-gemini_live_realtime": "3.11",
	} {
		cfg, ok := m[name]
		if !ok {
			t.Errorf("no matrix config %s", name)
			continue
		}
		files, err := g.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			var line string
			switch f.Path {
			case "server/pyproject.toml":
				line = `requires-python = ">=` + want + `"`
			case "README.md":
				line = "You need Python " + want + " or newer"
			default:
				continue
			}
			if !strings.Contains(string(f.Data), line) {
				t.Errorf("%s: %s lacks %q", name, f.Path, line)
			}
		}
	}
}

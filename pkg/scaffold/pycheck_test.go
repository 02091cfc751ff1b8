package scaffold

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/pycheck"
)

// TestPipecatCheckCatchesBrokenProjects breaks a generated project on
// purpose, one defect at a time, and requires internal/testsupport/pycheck to report
// it (the kind of problem, at the file that has it): the checks that hold
// every generated project to pipecat-ai 1.7.0 cannot pass a wrong project.
func TestPipecatCheckCatchesBrokenProjects(t *testing.T) {
	ix := pipecatIndex(t)
	g, err := NewGenerator()
	if err != nil {
		t.Fatal(err)
	}
	files, err := g.Generate(Resolve(cascade("broken-bot")))
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]string{}
	for _, f := range files {
		good[f.Path] = string(f.Data)
	}
	cases := []struct {
		name       string
		file       string
		old, new   string
		kind       pycheck.Kind
		inFile     string
		wantInText string
	}{
		{"no such module", "server/bot.py",
			"from pipecat.frames.frames import LLMRunFrame", "from pipecat.frames.frame import LLMRunFrame",
			pycheck.Import, "server/bot.py", "no module pipecat.frames.frame"},
		{"no such name", "server/bot.py",
			"from pipecat.frames.frames import LLMRunFrame", "from pipecat.frames.frames import LLMRunFrames",
			pycheck.Import, "server/bot.py", "has no name LLMRunFrames"},
		{"import of a missing module", "server/bot.py",
			"import os\n", "import os\nimport pipecat.services.nosuch\n",
			pycheck.Import, "server/bot.py", "no module pipecat.services.nosuch"},
		{"wrong keyword of a service", "server/bot.py",
			`api_key=os.getenv("DEEPGRAM_API_KEY")`, `apikey=os.getenv("DEEPGRAM_API_KEY")`,
			pycheck.Keyword, "server/bot.py", `"apikey"`},
		{"wrong keyword of a settings dataclass", "server/bot.py",
			`model=os.getenv("DEEPGRAM_STT_MODEL", "nova-3")`, `modle=os.getenv("DEEPGRAM_STT_MODEL", "nova-3")`,
			pycheck.Keyword, "server/bot.py", `"modle"`},
		{"wrong keyword of a pydantic model", "server/bot.py",
			"enable_metrics=True", "enable_metric=True",
			pycheck.Keyword, "server/bot.py", `"enable_metric"`},
		{"wrong keyword of a function", "server/bot.py",
			"create_transport(runner_args, transport_params)", "create_transport(runner_args, params=transport_params)",
			pycheck.Keyword, "server/bot.py", `"params"`},
		{"deprecated keyword", "server/bot.py",
			`api_key=os.getenv("DEEPGRAM_API_KEY"),`, `api_key=os.getenv("DEEPGRAM_API_KEY"),
        live_options=None,`,
			pycheck.DeprecatedKeyword, "server/bot.py", `"live_options"`},
		{"deprecated class", "server/bot.py",
			"from pipecat.workers.runner import WorkerRunner", "from pipecat.pipeline.runner import PipelineRunner as WorkerRunner",
			pycheck.NotCurrent, "server/bot.py", "PipelineRunner"},
		{"deprecated module", "server/bot.py",
			"from pipecat.pipeline.worker import PipelineParams, PipelineWorker", "from pipecat.pipeline.task import PipelineParams, PipelineWorker",
			pycheck.NotCurrent, "server/bot.py", "pipecat.pipeline.task"},
		{"wrong extra", "server/pyproject.toml",
			"deepgram,", "deepgramm,",
			pycheck.Project, "server/pyproject.toml", `"deepgramm"`},
		{"no pipecat-ai dependency", "server/pyproject.toml",
			`"pipecat-ai[`, `"pipecat-ay[`,
			pycheck.Project, "server/pyproject.toml", "no dependency on pipecat-ai"},
		{"env var not listed", "server/.env.example",
			"DEEPGRAM_API_KEY=", "DEEPGRAM_KEY=",
			pycheck.Env, "server/bot.py", "DEEPGRAM_API_KEY"},
		{"env var read with environ", "server/bot.py",
			"load_dotenv(override=True)\n", "load_dotenv(override=True)\nREGION = os.environ[\"BOT_REGION\"]\n",
			pycheck.Env, "server/bot.py", "BOT_REGION"},
		{"not Python", "server/bot.py",
			`SYSTEM_PROMPT = (`, `SYSTEM_PROMPT = ((`,
			pycheck.Syntax, "server/bot.py", "cannot be read"},
	}
	check := func(t *testing.T, tree map[string]string) pycheck.Result {
		dir := t.TempDir()
		for p, data := range tree {
			path := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := pycheck.Check(dir, ix)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := check(t, good); len(res.Problems) != 0 || len(res.Undecided) != 0 {
		t.Fatalf("the unbroken project: %v, undecided %v", res.Problems, res.Undecided)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(good[c.file], c.old) {
				t.Fatalf("%s does not contain %q: update the case", c.file, c.old)
			}
			broken := map[string]string{}
			for p, d := range good {
				broken[p] = d
			}
			broken[c.file] = strings.Replace(good[c.file], c.old, c.new, 1)
			res := check(t, broken)
			if !slices.ContainsFunc(res.Problems, func(p pycheck.Problem) bool {
				return p.Kind == c.kind && p.File == c.inFile && strings.Contains(p.Msg, c.wantInText)
			}) {
				t.Errorf("not caught (want kind %d in %s mentioning %s), got %v", c.kind, c.inFile, c.wantInText, res.Problems)
			}
		})
	}
	// Files the checker needs.
	for _, missing := range []string{"server/pyproject.toml", "server/.env.example"} {
		tree := map[string]string{}
		for p, d := range good {
			if p != missing {
				tree[p] = d
			}
		}
		if res := check(t, tree); !slices.ContainsFunc(res.Problems, func(p pycheck.Problem) bool {
			return p.Kind == pycheck.Project && p.File == missing
		}) {
			t.Errorf("without %s: %v", missing, res.Problems)
		}
	}
}

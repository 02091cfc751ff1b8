package scaffold

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/deployfile"
	"github.com/botkit-dev/botkit/pkg/resources"

	"github.com/botkit-dev/botkit/internal/testsupport/pycheck"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// cascade returns a valid web cascade partial to vary.
func cascade(name string) Partial {
	p := cascadePartial()
	p.ProjectName = sp(name)
	return p
}

// matrix is Matrix, failing t on an invalid config.
func matrix(t *testing.T) map[string]Config {
	t.Helper()
	m, err := Matrix()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGeneratedProjectsPassPipecatChecks generates a project for every
// catalogue id, transport, dial mode and feature, and runs the real checks on
// it: internal/testsupport/pycheck against pipecat-ai 1.7.0's API index (imports and
// their being current, keyword arguments, extras, env vars), pyflakes and
// black --check.
func TestGeneratedProjectsPassPipecatChecks(t *testing.T) {
	pyflakes := testenv.LookPath(t, "pyflakes3", "pyflakes")
	black := testenv.LookPath(t, "black")
	ix := pipecatIndex(t)

	g, err := NewGenerator()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	configs := matrix(t)
	names := make([]string, 0, len(configs))
	for name := range configs {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) < 100 {
		t.Fatalf("matrix has only %d configs", len(names))
	}
	var serverDirs, pyFiles []string
	undecided := map[string]bool{}
	excused := 0
	for _, name := range names {
		files, err := g.Generate(configs[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dir := filepath.Join(root, name)
		if err := Write(dir, files); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		serverDirs = append(serverDirs, filepath.Join(dir, "server"))
		for _, f := range files {
			if strings.HasPrefix(f.Path, "server/") && strings.HasSuffix(f.Path, ".py") {
				pyFiles = append(pyFiles, filepath.Join(dir, filepath.FromSlash(f.Path)))
			}
		}
		res, err := pycheck.Check(dir, ix)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, p := range res.Problems {
			if p.Kind == pycheck.NotCurrent && slices.Contains(slices.Collect(maps.Values(deprecatedButOffered)), p.Module) {
				excused++
				continue
			}
			t.Errorf("%s: %s", name, p)
		}
		for _, u := range res.Undecided {
			_, call, _ := strings.Cut(u, ": ")
			undecided[call] = true
		}
	}
	if excused == 0 {
		t.Errorf("no project imports a module of deprecatedButOffered %v: drop the exception", deprecatedButOffered)
	}
	// Every call's keywords were decided (a new base outside the
	// framework would show here).
	if len(undecided) > 0 {
		t.Errorf("keywords not checked for %v", slices.Sorted(maps.Keys(undecided)))
	}

	// One pyflakes and one black over every project (two cores).
	if out, err := exec.Command(pyflakes, pyFiles...).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("pyflakes: %v\n%s", err, out)
	}
	args := append([]string{"--check", "--quiet"}, serverDirs...)
	if out, err := exec.Command(black, args...).CombinedOutput(); err != nil {
		t.Errorf("black --check failed: %v\n%s", err, out)
	}
}

// TestEnvExampleListsExactlyWhatTheCodeReads checks .env.example against the
// code: every variable read is listed, and nothing else is.
func TestEnvExampleListsExactlyWhatTheCodeReads(t *testing.T) {
	g, err := NewGenerator()
	if err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`os\.(?:getenv|environ\.get)\("([A-Z0-9_]+)"`)
	listed := regexp.MustCompile(`(?m)^(?:# )?([A-Z0-9_]+)=`)
	for name, c := range matrix(t) {
		files, err := g.Generate(c)
		if err != nil {
			t.Fatal(err)
		}
		reads, env := map[string]bool{}, map[string]bool{}
		for _, f := range files {
			if strings.HasSuffix(f.Path, ".py") {
				for _, m := range read.FindAllStringSubmatch(string(f.Data), -1) {
					reads[m[1]] = true
				}
			}
			if f.Path == "server/.env.example" {
				for _, m := range listed.FindAllStringSubmatch(string(f.Data), -1) {
					env[m[1]] = true
				}
			}
		}
		// Read by pipecat itself (runner, serializers), not by bot.py.
		runnerReads := map[string]bool{}
		for _, id := range c.Transports {
			if tr, ok := LookupTransport(id); ok {
				for _, e := range tr.Env {
					runnerReads[e.Name] = true
				}
			}
		}
		for v := range reads {
			if !env[v] {
				t.Errorf("%s: code reads %s, .env.example does not list it", name, v)
			}
		}
		for v := range env {
			if !reads[v] && !runnerReads[v] {
				t.Errorf("%s: .env.example lists %s, which nothing reads", name, v)
			}
		}
	}
}

// TestGeneratedFilesFollowOptions checks which files exist for which options.
func TestGeneratedFilesFollowOptions(t *testing.T) {
	g, err := NewGenerator()
	if err != nil {
		t.Fatal(err)
	}
	has := func(files []File, path string) bool {
		for _, f := range files {
			if f.Path == path {
				return true
			}
		}
		return false
	}
	gen := func(p Partial) ([]File, map[string]string) {
		t.Helper()
		c := Resolve(p)
		if probs := Validate(c); len(probs) > 0 {
			t.Fatal(probs)
		}
		files, err := g.Generate(c)
		if err != nil {
			t.Fatal(err)
		}
		byPath := map[string]string{}
		for _, f := range files {
			byPath[f.Path] = string(f.Data)
		}
		return files, byPath
	}

	p := cascade("local-bot")
	p.DeployToCloud = bp(false)
	files, _ := gen(p)
	for _, path := range []string{"server/Dockerfile", "server/cloud-deploy.toml", "server/evals/greeting.yaml", "client/package.json"} {
		if has(files, path) {
			t.Errorf("local bot without eval or client has %s", path)
		}
	}
	for _, path := range []string{"server/bot.py", "server/pyproject.toml", "server/.env.example", ".gitignore", "README.md"} {
		if !has(files, path) {
			t.Errorf("missing %s", path)
		}
	}

	p = cascade("cloud-bot")
	p.Eval, p.EnableDenoise = bp(true), bp(true)
	files, byPath := gen(p)
	for _, path := range []string{"server/Dockerfile", "server/cloud-deploy.toml", "server/evals/greeting.yaml"} {
		if !has(files, path) {
			t.Errorf("cloud bot with eval lacks %s", path)
		}
	}
	deploy := byPath["server/cloud-deploy.toml"]
	for _, want := range []string{`agent_name = "cloud-bot"`, `secret_set = "cloud-bot-secrets"`, `region = "us-west"`, "[scaling]", "[krisp_viva]\naudio_filter = \"pro\""} {
		if !strings.Contains(deploy, want) {
			t.Errorf("cloud-deploy.toml lacks %q:\n%s", want, deploy)
		}
	}
	// The file is what the Pipecat Cloud CLI reads (botkit preflight's
	// reader, strict): only the image needs the user's repository.
	df, err := deployfile.Parse("server/cloud-deploy.toml", []byte(deploy))
	if err != nil {
		t.Fatalf("the generated deploy file: %v", err)
	}
	if fs := df.Check(); len(fs) != 1 || fs[0].Key != "image" || !strings.Contains(fs[0].Message, "placeholder") {
		t.Errorf("checks of the generated deploy file: %+v", fs)
	}
	// Both CLIs read the deploy file, and its header says so; the image's
	// base is pinned, never latest.
	if !strings.Contains(deploy, "`botkit deploy`") || !strings.Contains(deploy, "`pipecat cloud deploy`") {
		t.Errorf("cloud-deploy.toml's header does not name both CLIs:\n%s", deploy)
	}
	if docker := byPath["server/Dockerfile"]; !strings.Contains(docker, "\nFROM "+PipecatBaseImage+"\n") || strings.Contains(docker, ":latest") {
		t.Errorf("Dockerfile does not start from the pinned %s:\n%s", PipecatBaseImage, docker)
	}
	if !regexp.MustCompile(`^dailyco/pipecat-base:\d+\.\d+\.\d+$`).MatchString(PipecatBaseImage) {
		t.Errorf("PipecatBaseImage %s is not pinned to a release", PipecatBaseImage)
	}
	bot := byPath["server/bot.py"]
	for _, want := range []string{`"eval": lambda: EvalTransportParams(`, "audio_in_filter=krisp_filter()"} {
		if !strings.Contains(bot, want) {
			t.Errorf("bot.py lacks %q", want)
		}
	}
	if !strings.Contains(byPath["server/pyproject.toml"], "evals") {
		t.Error("pyproject.toml lacks the evals extra")
	}
	if !strings.Contains(byPath["README.md"], "botkit cloud secrets set cloud-bot-secrets --file server/.env") {
		t.Error("README lacks the secrets command")
	}

	tel := Partial{ProjectName: sp("phone"), Transports: []string{"twilio"}, RealtimeService: sp("openai_realtime")}
	_, byPath = gen(tel)
	for _, want := range []string{"audio_in_sample_rate=8000", "audio_out_sample_rate=8000", `"twilio": lambda: FastAPIWebsocketParams(`} {
		if !strings.Contains(byPath["server/bot.py"], want) {
			t.Errorf("telephony bot.py lacks %q", want)
		}
	}

	for _, mode := range []string{"dial-in", "dial-out"} {
		q := cascade("sip-" + mode)
		q.Transports = []string{"twilio_daily_sip"}
		q.SIPBridgeMode = sp(mode)
		_, byPath = gen(q)
		if _, ok := byPath["server/server.py"]; !ok {
			t.Errorf("SIP bridge %s has no server.py", mode)
		}
		want := map[string]string{"dial-in": "on_dialin_ready", "dial-out": "start_dialout"}[mode]
		if !strings.Contains(byPath["server/bot.py"], want) {
			t.Errorf("SIP bridge %s bot.py lacks %s", mode, want)
		}
	}
	// The local Daily transport's key is under the local-only heading, last:
	// a deployed bot never reads it, and preflight does not require it.
	web := cascade("daily-web")
	web.Transports = []string{"smallwebrtc", "daily"}
	_, byPath = gen(web)
	env := byPath["server/.env.example"]
	if i, j := strings.Index(env, resources.LocalOnlyEnvHeading), strings.Index(env, "\nDAILY_API_KEY="); i < 0 || j < i || strings.Index(env, "DEEPGRAM_API_KEY=") > i {
		t.Errorf("DAILY_API_KEY is not the last section's, under %q:\n%s", resources.LocalOnlyEnvHeading, env)
	}
	q := cascade("pstn-out")
	q.Transports, q.PSTNMode = []string{"daily_pstn"}, sp("dial-out")
	_, byPath = gen(q)
	if !strings.Contains(byPath["server/bot.py"], `start_dialout({"phoneNumber": number})`) || byPath["server/server.py"] == "" {
		t.Error("PSTN dial-out lacks start_dialout or server.py")
	}
	// Daily PSTN reads DAILY_API_KEY when deployed too: a required key.
	if env := byPath["server/.env.example"]; strings.Contains(env, resources.LocalOnlyEnvHeading) {
		t.Errorf("a Daily PSTN bot's DAILY_API_KEY is listed as local-only:\n%s", env)
	}
}

func TestWriteRefusesExistingFilesAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "server"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server", "bot.py"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []File{{Path: "README.md", Data: []byte("x")}, {Path: "server/bot.py", Data: []byte("y")}}
	err := Write(dir, files)
	ce, ok := err.(*ConflictError)
	if !ok || fmt.Sprint(ce.Files) != "[server/bot.py]" {
		t.Fatalf("want conflict on server/bot.py, got %v", err)
	}
	entries := readDir(t, dir)
	if len(entries) != 1 {
		t.Errorf("write left entries behind: %v", entries)
	}
	if b := readFile(t, filepath.Join(dir, "server", "bot.py")); string(b) != "mine" {
		t.Error("existing file was changed")
	}
}

func TestWriteIntoNonEmptyDirectoryMergesAndNewDirectoryRenames(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []File{{Path: "README.md", Data: []byte("x")}, {Path: "server/bot.py", Data: []byte("y")}}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"notes.txt", "README.md", "server/bot.py"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	entries := readDir(t, dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".botkit-create-") {
			t.Errorf("staging directory left behind: %s", e.Name())
		}
	}
	fresh := filepath.Join(t.TempDir(), "a", "b")
	if err := Write(fresh, files); err != nil {
		t.Fatal(err)
	}
	if b := readFile(t, filepath.Join(fresh, "server", "bot.py")); string(b) != "y" {
		t.Error("fresh directory not written")
	}
	siblings := readDir(t, filepath.Dir(fresh))
	if len(siblings) != 1 {
		t.Errorf("staging left beside the target: %v", siblings)
	}
}

func TestWriteFailureRemovesTheDirectoriesItCreated(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "a", "b", "project")
	// A file where a directory must go makes the write fail part-way.
	files := []File{{Path: "README.md", Data: []byte("x")}, {Path: "README.md/oops", Data: []byte("y")}}
	if err := Write(target, files); err == nil {
		t.Fatal("write succeeded")
	}
	entries := readDir(t, root)
	if len(entries) != 0 {
		t.Errorf("failed write left %v behind", entries)
	}
}

package secrets

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const canary = "CANARY-v4lu3-7f3a9c"

// env is a real platform (SQLite in a temp dir) served over real HTTP on
// 127.0.0.1, the client the command uses, and a second client standing for
// another user writing at the same time.
type env struct {
	t      *testing.T
	cmd    *client.Client // the command's client
	other  *client.Client // a concurrent writer
	ios    *iostreams.IOStreams
	out    *bytes.Buffer
	errOut *bytes.Buffer
	in     *bytes.Buffer
	// beforePatch, when set, runs once before the command's first PATCH
	// reaches the platform (a concurrent write lands in between).
	beforePatch func()
}

func newEnv(t *testing.T) *env {
	t.Helper()
	url, _ := platformtest.Start(t, platform.Options{NoAuthOrg: client.EmbeddedOrg, AllowPrivateRegistries: true, PollInterval: 20 * time.Millisecond})
	e := &env{t: t}
	var err error
	var once sync.Once
	tr := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPatch && e.beforePatch != nil {
			once.Do(e.beforePatch)
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	if e.cmd, err = client.New(client.Options{BaseURL: url, Transport: tr, PollInterval: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if e.other, err = client.New(client.Options{BaseURL: url}); err != nil {
		t.Fatal(err)
	}
	e.ios, e.in, e.out, e.errOut = iostreams.Test()
	return e
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// terminal makes stdin and stderr terminals (prompts allowed).
func (e *env) terminal() {
	e.ios.SetStdinTTY(true)
	e.ios.SetStdoutTTY(true)
	e.ios.SetStderrTTY(true)
}

func (e *env) scope(p prompter.Prompter) PlatformOptions {
	return PlatformOptions{Platform: cloudutil.Platform{
		IO:        e.ios,
		APIClient: func(context.Context) (*client.Client, error) { return e.cmd, nil },
		ResolveOrg: func(_ context.Context, flag string) (string, error) {
			if flag != "" {
				return flag, nil
			}
			return client.EmbeddedOrg, nil
		},
		Prompter: func() prompter.Prompter {
			if p == nil {
				e.t.Fatal("the command prompted")
			}
			return p
		},
	}}
}

// seed writes keys with the other client.
func (e *env) seed(name string, kv ...string) {
	e.t.Helper()
	set := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		set[kv[i]] = kv[i+1]
	}
	if _, _, err := e.other.Merge(context.Background(), client.EmbeddedOrg, name, resources.Patch{Set: set}, ""); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) keys(name string) []string {
	e.t.Helper()
	o, err := e.other.Get(context.Background(), client.EmbeddedOrg, name)
	if err != nil {
		e.t.Fatal(err)
	}
	return o.SecretSet.Spec.Keys
}

// noCanary fails when the canary shows in the output, the error or a
// question asked.
func (e *env) noCanary(err error, p *prompter.Fake) {
	e.t.Helper()
	text := e.out.String() + e.errOut.String()
	if err != nil {
		text += err.Error() + strings.Join(cmdutil.ErrorLines(err), "\n")
	}
	if p != nil {
		for _, q := range p.Asked() {
			text += q.Title
		}
	}
	if strings.Contains(text, canary[:12]) {
		e.t.Fatalf("a value leaked: %q", text)
	}
}

func setOpts(s PlatformOptions, name string, pairs ...string) *SetOptions {
	o := &SetOptions{PlatformOptions: s, Name: name, Pairs: pairs}
	o.Print = newPrintFlags(cmdutil.NewFactory(s.IO))
	return o
}

func TestSetCreatesAndReportsKeyNames(t *testing.T) {
	e := newEnv(t)
	err := runSet(context.Background(), setOpts(e.scope(nil), "demo", "B=2", "A="+canary))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.out.String(); got != "secretset/demo created: added A, B (version 1)\n" {
		t.Errorf("stdout %q", got)
	}
	e.noCanary(err, nil)
}

func TestSetConfirmsOverwritesByName(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", "old", "B", "old")
	e.terminal()
	p := prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: true})
	err := runSet(context.Background(), setOpts(e.scope(p), "demo", "A="+canary, "C=1"))
	if err != nil {
		t.Fatal(err)
	}
	asked := p.Asked()
	if len(asked) != 1 || asked[0].Title != "Overwrite A in secretset/demo? [in organization local (context local)]" || asked[0].Default != false {
		t.Errorf("asked %+v", asked)
	}
	if got := e.out.String(); got != "secretset/demo configured: added C; updated A (version 2)\n" {
		t.Errorf("stdout %q", got)
	}
	e.noCanary(err, p)
}

func TestSetDeclinedWritesNothing(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", "old")
	e.terminal()
	p := prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: false})
	err := runSet(context.Background(), setOpts(e.scope(p), "demo", "A="+canary, "C=1"))
	if cmdutil.ExitCode(err) != cmdutil.ExitError {
		t.Fatalf("err %v (exit %d), want exit 1", err, cmdutil.ExitCode(err))
	}
	if got := e.keys("demo"); !slices.Equal(got, []string{"A"}) {
		t.Errorf("keys %v after a declined set", got)
	}
	e.noCanary(err, p)
}

// Without a terminal nothing is asked: exit 2 naming --skip and the keys.
func TestSetNoTerminalNeedsSkip(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", "old", "B", "old")
	e.ios.SetStdinTTY(true) // stderr is not a terminal: still no prompt
	err := runSet(context.Background(), setOpts(e.scope(nil), "demo", "B="+canary, "A=x", "C=1"))
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--skip") || !strings.Contains(err.Error(), "A, B") {
		t.Fatalf("err %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	if got := e.keys("demo"); !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("keys %v", got)
	}
	e.noCanary(err, nil)
}

// confirmHook runs a function when a confirmation is asked (a concurrent
// write while the user reads the question), then answers like the Fake.
type confirmHook struct {
	prompter.Prompter
	hook func(n int)
	n    int
}

func (c *confirmHook) WithContext(context.Context) prompter.Prompter { return c }

func (c *confirmHook) Confirm(title, flag string, def bool) (bool, error) {
	c.n++
	c.hook(c.n)
	return c.Prompter.Confirm(title, flag, def)
}

// A key that appears while the user is confirming is asked about again,
// never overwritten unconfirmed.
func TestSetRaceAsksAgain(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", "old")
	e.terminal()
	fake := prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: true}, prompter.Answer{Match: "--skip", Value: true})
	p := &confirmHook{Prompter: fake, hook: func(n int) {
		if n == 1 {
			e.seed("demo", "B", "theirs")
		}
	}}
	err := runSet(context.Background(), setOpts(e.scope(p), "demo", "A=1", "B="+canary))
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, q := range fake.Asked() {
		titles = append(titles, q.Title)
	}
	if !slices.Equal(titles, []string{"Overwrite A in secretset/demo? [in organization local (context local)]", "Overwrite A, B in secretset/demo? [in organization local (context local)]"}) {
		t.Errorf("asked %q", titles)
	}
	if got := e.out.String(); got != "secretset/demo configured: updated A, B (version 3)\n" {
		t.Errorf("stdout %q", got)
	}
	e.noCanary(err, fake)
}

// Without a terminal, a key that appeared between the read and the write
// is a conflict (exit 5) and nothing is written.
func TestSetRaceNoTerminalConflict(t *testing.T) {
	for _, exists := range []bool{false, true} {
		e := newEnv(t)
		if exists {
			e.seed("demo", "X", "1")
		}
		e.beforePatch = func() { e.seed("demo", "D", "theirs") }
		err := runSet(context.Background(), setOpts(e.scope(nil), "demo", "C=1", "D="+canary))
		if cmdutil.ExitCode(err) != cmdutil.ExitConflict || !strings.Contains(err.Error(), "now has D") {
			t.Fatalf("exists=%v: err %v (exit %d), want exit 5", exists, err, cmdutil.ExitCode(err))
		}
		if got := e.keys("demo"); slices.Contains(got, "C") {
			t.Errorf("exists=%v: keys %v: written despite the conflict", exists, got)
		}
		e.noCanary(err, nil)
	}
}

// With --skip the same race is retried and reported precisely.
func TestSetRaceSkipReportsPrecisely(t *testing.T) {
	e := newEnv(t)
	e.beforePatch = func() { e.seed("demo", "D", "theirs", "E", "theirs") }
	o := setOpts(e.scope(nil), "demo", "C=1", "D="+canary)
	o.Skip = true
	if err := runSet(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := e.out.String(); got != "secretset/demo configured: added C; updated D (version 2)\n" {
		t.Errorf("stdout %q", got)
	}
	if got := e.keys("demo"); !slices.Equal(got, []string{"C", "D", "E"}) {
		t.Errorf("keys %v", got)
	}
}

// An unrelated key written meanwhile needs no confirmation: the retry
// succeeds and the summary is right.
func TestSetRaceUnrelatedKey(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", "1")
	e.beforePatch = func() { e.seed("demo", "Z", "theirs") }
	if err := runSet(context.Background(), setOpts(e.scope(nil), "demo", "C=1")); err != nil {
		t.Fatal(err)
	}
	if got := e.out.String(); got != "secretset/demo configured: added C (version 3)\n" {
		t.Errorf("stdout %q", got)
	}
}

func TestSetFileAndPairsPairsWin(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, ".env")
	if err := os.WriteFile(path, []byte("A=from-file\nexport B='"+canary+"'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := setOpts(e.scope(nil), "demo", "A=from-arg", "C=3")
	o.File = path
	data, err := setData(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if data["A"] != "from-arg" || data["B"] != canary || len(data) != 3 {
		t.Errorf("data keys %v", slices.Sorted(func(yield func(string) bool) {
			for k := range data {
				if !yield(k) {
					return
				}
			}
		}))
	}
}

// Ctrl-C while --file - waits on stdin ends the command (exit 130).
func TestSetFileStdinInterrupted(t *testing.T) {
	e := newEnv(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	e.ios.In = r
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	o := setOpts(e.scope(nil), "demo")
	o.File = "-"
	err = runSet(ctx, o)
	if cmdutil.ExitCode(err) != cmdutil.ExitInterrupted {
		t.Fatalf("err %v (exit %d), want 130", err, cmdutil.ExitCode(err))
	}
}

func TestUnsetAndDeleteConfirm(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", canary, "B", "2")
	e.terminal()
	p := prompter.NewFake(t,
		prompter.Answer{Match: "Remove key A from secretset/demo? [in organization local (context local)]", Value: true},
		prompter.Answer{Match: "Delete secretset/demo (1 key, region us-west, 2 versions of history)? [in organization local (context local)]", Value: false},
	)
	s := e.scope(p)
	if err := runUnset(context.Background(), &UnsetOptions{PlatformOptions: s, Name: "demo", Keys: []string{"A"}}); err != nil {
		t.Fatal(err)
	}
	err := runDelete(context.Background(), &DeleteOptions{PlatformOptions: s, Name: "demo"})
	if cmdutil.ExitCode(err) != cmdutil.ExitError {
		t.Fatalf("declined delete: %v", err)
	}
	if got := e.keys("demo"); !slices.Equal(got, []string{"B"}) {
		t.Errorf("keys %v", got)
	}
	if got := e.out.String(); got != "secretset/demo configured: removed A (version 2)\n" {
		t.Errorf("stdout %q", got)
	}
	e.noCanary(err, p)
}

func TestImagePullSecretPrompted(t *testing.T) {
	e := newEnv(t)
	e.terminal()
	p := prompter.NewFake(t,
		prompter.Answer{Match: "Username for https://registry.example.com", Value: "robot"},
		prompter.Answer{Match: "Password or token", Value: canary},
	)
	o := &ImagePullSecretOptions{PlatformOptions: e.scope(p), Name: "reg", Host: "registry.example.com", Encode: true, Print: newPrintFlags(cmdutil.NewFactory(e.ios))}
	err := runImagePullSecret(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.out.String(); got != "imagepullsecret/reg created: host https://registry.example.com, username robot (version 1)\n" {
		t.Errorf("stdout %q", got)
	}
	e.noCanary(err, p)
}

func TestImagePullSecretStdin(t *testing.T) {
	e := newEnv(t)
	e.in.WriteString("robot:" + canary + "\r\nignored second line\n")
	o := &ImagePullSecretOptions{PlatformOptions: e.scope(nil), Name: "reg", Host: "https://ghcr.io", Encode: true, Print: newPrintFlags(cmdutil.NewFactory(e.ios))}
	if err := runImagePullSecret(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	got, err := e.other.Get(context.Background(), client.EmbeddedOrg, "reg")
	if err != nil || got.ImagePullSecret == nil || got.ImagePullSecret.Spec.Username != "robot" {
		t.Fatalf("stored %+v, %v", got, err)
	}
	// Updating in place keeps the object and changes the username.
	e.in.WriteString("other:pw\n")
	e.out.Reset()
	if err := runImagePullSecret(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := e.out.String(); !strings.HasPrefix(got, "imagepullsecret/reg configured: ") || !strings.Contains(got, "username other") {
		t.Errorf("stdout %q", got)
	}
}

func TestDockerConfigHostForms(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"auths":{
		"https://index.docker.io/v1/":{"auth":"aHViOnB3"},
		"ghcr.io":{"auth":"Z2hjcjpwdw=="},
		"https://registry.example.com:5000":{"auth":"ZXg6cHc="},
		"quay.io":{}
	},"credHelpers":{"gcr.io":"gcloud"}}`
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host, want, errHas string
	}{
		{"docker.io", "aHViOnB3", ""},
		{"index.docker.io", "aHViOnB3", ""},
		{"registry-1.docker.io", "aHViOnB3", ""},
		{"ghcr.io", "Z2hjcjpwdw==", ""},
		{"https://GHCR.io", "Z2hjcjpwdw==", ""},
		{"registry.example.com:5000", "ZXg6cHc=", ""},
		{"registry.example.com", "", "has no credentials for registry.example.com"},
		{"quay.io", "", "has no credentials for quay.io"},
		{"gcr.io", "", "credential helper docker-credential-gcloud"},
	} {
		host, err := resources.NormalizeRegistryHost(tc.host)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dockerConfigAuth(context.Background(), &ImagePullSecretOptions{DockerConfig: path}, host)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) || !strings.Contains(err.Error(), path) || cmdutil.ExitCode(err) != cmdutil.ExitUsage {
				t.Errorf("%s: err %v, want one naming the file and %q", tc.host, err, tc.errHas)
			}
			if err != nil && strings.Contains(err.Error(), "aHViOnB3") {
				t.Errorf("%s: the error shows a stored credential: %v", tc.host, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.host, got, err, tc.want)
		}
	}
	// The default path is ~/.docker/config.json.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".docker"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".docker", "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := dockerConfigAuth(context.Background(), &ImagePullSecretOptions{DockerConfig: dockerConfigDefault, HomeDir: func() (string, error) { return home, nil }}, "https://ghcr.io")
	if err != nil || got != "Z2hjcjpwdw==" {
		t.Errorf("default path: %q, %v", got, err)
	}
	// A syntax error says where, not what.
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\"auths\": {\n \"x\": {\"auth\": \""+canary+"\"} oops\n}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = dockerConfigAuth(context.Background(), &ImagePullSecretOptions{DockerConfig: bad}, "https://x")
	if err == nil || !strings.Contains(err.Error(), bad+":2: not valid JSON") || strings.Contains(err.Error(), canary[:10]) {
		t.Errorf("bad JSON: %v", err)
	}
}

// rollback asks on a terminal, naming the keys it brings back (+),
// restores (~) and removes (-), never a value; a declined rollback writes
// nothing.
func TestRollbackConfirmsKeyChanges(t *testing.T) {
	e := newEnv(t)
	e.seed("demo", "A", canary, "B", "2") // version 1
	e.terminal()
	s := e.scope(nil)
	if err := runUnset(context.Background(), &UnsetOptions{PlatformOptions: s, Name: "demo", Keys: []string{"B"}, Skip: true}); err != nil {
		t.Fatal(err)
	}
	if err := runSet(context.Background(), setOpts(s, "demo", "C=3")); err != nil { // version 3
		t.Fatal(err)
	}
	p := prompter.NewFake(t, prompter.Answer{Match: "Roll back secretset/demo to version 1? Keys: ~A +B -C [in organization local (context local)]", Value: false})
	err := runRollback(context.Background(), &RollbackOptions{PlatformOptions: e.scope(p), Name: "demo", To: 1})
	if cmdutil.ExitCode(err) != cmdutil.ExitError {
		t.Fatalf("declined rollback: %v", err)
	}
	if got := e.keys("demo"); !slices.Equal(got, []string{"A", "C"}) {
		t.Errorf("keys after a declined rollback %v", got)
	}
	e.out.Reset()
	if err := runRollback(context.Background(), &RollbackOptions{PlatformOptions: s, Name: "demo", To: 1, Skip: true}); err != nil {
		t.Fatal(err)
	}
	if got := e.keys("demo"); !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("keys after rolling back to version 1: %v", got)
	}
	if got := e.out.String(); got != "secretset/demo rolled back: version 4 has the contents of version 1\n" {
		t.Errorf("stdout %q", got)
	}
	e.noCanary(err, p)
}

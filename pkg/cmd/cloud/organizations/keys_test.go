package organizations

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// keysEnv is a real platform over HTTP with organization acme, and the
// commands' streams.
type keysEnv struct {
	t           *testing.T
	c           *client.Client
	ios         *iostreams.IOStreams
	out, errOut *bytes.Buffer
	target      cloudutil.Target
	now         time.Time
	tty         bool
}

func newKeysEnv(t *testing.T) *keysEnv {
	url, srv := platformtest.Start(t, platform.Options{DisableProvisioner: true})
	platformtest.CreateOrg(t, srv, "acme", "")
	c, err := client.New(client.Options{BaseURL: url, Token: platformtest.CreateToken(t, srv, "acme", "dev")})
	if err != nil {
		t.Fatal(err)
	}
	e := &keysEnv{t: t, c: c, target: cloudutil.DefaultTarget, now: time.Now().Add(150 * time.Minute)}
	e.reset()
	return e
}

func (e *keysEnv) reset() {
	e.ios, _, e.out, e.errOut = iostreams.Test()
	if e.tty {
		e.ios.SetStdinTTY(true)
		e.ios.SetStdoutTTY(true)
		e.ios.SetStderrTTY(true)
	}
}

// platform is the commands' Platform; p answers questions (nil: a question
// fails the test).
func (e *keysEnv) platform(p prompter.Prompter) cloudutil.Platform {
	return cloudutil.Platform{
		IO:         e.ios,
		APIClient:  func(context.Context) (*client.Client, error) { return e.c, nil },
		ResolveOrg: func(context.Context, string) (string, error) { return "acme", nil },
		Prompter: func() prompter.Prompter {
			if p == nil {
				e.t.Fatal("the command prompted")
			}
			return p
		},
		Now:    func() time.Time { return e.now },
		Target: func() (cloudutil.Target, error) { return e.target, nil },
	}
}

func (e *keysEnv) create(name string, origins ...string) string {
	e.t.Helper()
	e.reset()
	if err := runKeysCreate(context.Background(), &KeysCreateOptions{Platform: e.platform(nil), Name: name, AllowedOrigins: origins, Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML)}); err != nil {
		e.t.Fatal(err)
	}
	return strings.TrimSpace(e.out.String())
}

func (e *keysEnv) list(format string) string {
	e.t.Helper()
	e.reset()
	if err := runKeysList(context.Background(), &KeysListOptions{Platform: e.platform(nil), Print: &printers.Flags{Output: format}}); err != nil {
		e.t.Fatal(err)
	}
	return e.out.String()
}

// create prints the key alone on stdout (once) and says on stderr it will
// not be shown again; list shows the keys (never a key) in every format;
// delete asks on a terminal, needs --skip without one, and a missing key
// is exit 3.
func TestKeysCommands(t *testing.T) {
	ctx := context.Background()
	e := newKeysEnv(t)
	if e.list("table"); e.out.Len() != 0 || e.errOut.String() != printers.NoResourcesMessage+"\n" {
		t.Errorf("an empty list: %q %q", e.out, e.errOut)
	}
	key := e.create("web", "https://app.example.com", "http://localhost:5173")
	if !strings.HasPrefix(key, "pk_") || strings.Contains(key, "\n") || len(key) != 55 {
		t.Fatalf("create printed %q", key)
	}
	if !strings.Contains(e.errOut.String(), "will not be shown again") || strings.Contains(e.errOut.String(), key) {
		t.Errorf("create's stderr: %q", e.errOut)
	}
	ks, err := e.c.PublicKeys(ctx, "acme")
	if err != nil || len(ks) != 1 {
		t.Fatal(ks, err)
	}
	id := ks[0].ID
	e.create("")

	table := e.list("table")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "ID NAME PREFIX ORIGINS AGE" ||
		strings.Join(strings.Fields(lines[1]), " ") != id+" web "+key[:9]+"… https://app.example.com,http://localhost:5173 2h" ||
		!strings.Contains(lines[2], "<none>") {
		t.Errorf("table:\n%s", table)
	}
	var l resources.PublicKeyList
	if err := json.Unmarshal([]byte(e.list("json")), &l); err != nil || len(l.Items) != 2 || l.Items[0].ID != id {
		t.Errorf("json: %v %+v", err, l)
	}
	if y := e.list("yaml"); !strings.Contains(y, "id: "+id) || !strings.Contains(y, "- https://app.example.com") {
		t.Errorf("yaml:\n%s", y)
	}
	if n := e.list("name"); !strings.HasPrefix(n, "publickey/"+id+"\npublickey/key_") || strings.Count(n, "\n") != 2 {
		t.Errorf("name: %q", n)
	}
	for _, f := range []string{"table", "json", "yaml", "name"} {
		if strings.Contains(e.list(f), key[9:]) {
			t.Errorf("list -o %s shows the key", f)
		}
	}

	// -o json: the key with its ID.
	e.reset()
	if err := runKeysCreate(ctx, &KeysCreateOptions{Platform: e.platform(nil), Print: &printers.Flags{Output: "json"}}); err != nil {
		t.Fatal(err)
	}
	var created resources.CreatedPublicKey
	if err := json.Unmarshal(e.out.Bytes(), &created); err != nil || !strings.HasPrefix(created.Key, created.Prefix) || created.ID == "" {
		t.Errorf("create -o json: %v %s", err, e.out)
	}
	// A bad origin: exit 2, naming it; nothing made.
	e.reset()
	err = runKeysCreate(ctx, &KeysCreateOptions{Platform: e.platform(nil), AllowedOrigins: []string{"https://app.example.com/path"}, Print: printers.NewFlags().WithLines()})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "allowedOrigins[0]") || e.out.Len() != 0 {
		t.Errorf("a bad origin: %v (exit %d), stdout %q", err, cmdutil.ExitCode(err), e.out)
	}

	del := func(p prompter.Prompter, id string, skip bool) error {
		e.reset()
		return runKeysDelete(ctx, &KeysDeleteOptions{Platform: e.platform(p), ID: id, Skip: skip})
	}
	err = del(nil, id, false)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "deleting publickey/"+id+" needs confirmation: pass --skip") {
		t.Fatalf("delete without a terminal: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	e.terminal()
	p := prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: false})
	if err := del(p, id, false); cmdutil.ExitCode(err) != cmdutil.ExitError {
		t.Fatalf("delete answered no: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	if q := p.Asked(); len(q) != 1 || !strings.HasPrefix(q[0].Title, "Delete publickey/"+id+" (web, "+key[:9]+"…)?") || !strings.HasSuffix(q[0].Title, "[in organization acme (context local)]") {
		t.Errorf("asked %+v", q)
	}
	if _, err := e.c.PublicKeys(ctx, "acme"); err != nil || strings.Count(e.list("name"), "\n") != 3 {
		t.Fatalf("after no: %v %s", err, e.out)
	}
	p = prompter.NewFake(t, prompter.Answer{Match: "--skip", Value: true})
	if err := del(p, id, false); err != nil || e.out.String() != "publickey/"+id+" deleted\n" {
		t.Fatalf("delete: %v, %q", err, e.out)
	}
	for _, skip := range []bool{true, false} {
		if err := del(nil, id, skip); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
			t.Errorf("delete of a missing key (skip %v): %v (exit %d)", skip, err, cmdutil.ExitCode(err))
		}
	}
	// A protected context: --skip needs --context on the command line.
	e.target = cloudutil.Target{Context: "prod", Protected: true}
	if err := del(nil, "key_x", true); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--context prod") {
		t.Errorf("--skip in a protected context: %v", err)
	}
}

// terminal makes stdin, stdout and stderr terminals (prompts allowed).
func (e *keysEnv) terminal() {
	e.tty = true
	e.reset()
}

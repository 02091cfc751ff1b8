package agents

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/platform"
)

// start --open against the real platform: it starts no session and prints
// the agent's call page. Without BOTKIT_PUBLIC_KEY it creates a key for the
// page and prints the URL with it in the fragment, once (the page the URL
// names is served); with it, the printed URL holds no key, the browser gets
// the whole URL. The browser is opened only on a terminal and never under
// CI; a missing agent exits 3 and session flags are refused.
func TestStartOpen(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, platform.Options{})
	e.putAgent("bot", nil)
	var opened []string
	open := func(env map[string]string) *StartOptions {
		return &StartOptions{Platform: e.platform(nil), Name: "bot", Open: true, Print: startFlags(), Transport: "webrtc", // the flag's default
			Getenv: func(k string) string { return env[k] }, Browser: func(u string) error { opened = append(opened, u); return nil }}
	}
	page := strings.TrimRight(e.c.BaseURL(), "/") + "/call/bot"

	// No terminal: printed, not opened; a key made for the page.
	if err := runStart(ctx, open(nil)); err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(strings.SplitN(e.out.String(), "\n", 2)[0])
	url, ok := strings.CutPrefix(line, "call page: ")
	if !ok || !strings.HasPrefix(url, page+"#key=pk_") || len(opened) != 0 {
		t.Fatalf("stdout %q, opened %q", e.out, opened)
	}
	key := strings.TrimPrefix(url, page+"#key=")
	if strings.Count(e.out.String()+e.errOut.String(), key) != 1 || !strings.Contains(e.errOut.String(), "call-page") {
		t.Errorf("the key, once: stdout %q, stderr %q", e.out, e.errOut)
	}
	keys, err := e.c.PublicKeys(ctx, client.EmbeddedOrg)
	if err != nil || len(keys) != 1 || keys[0].Name != "call-page" {
		t.Errorf("keys: %+v %v", keys, err)
	}
	if sessions, err := e.c.Sessions(ctx, client.EmbeddedOrg, "bot"); err != nil || len(sessions) != 0 {
		t.Errorf("--open started a session: %+v %v", sessions, err)
	}
	res, err := http.Get(strings.SplitN(url, "#", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close() // error ignored: only the status is read
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET %s: %d %s", page, res.StatusCode, res.Header.Get("Content-Type"))
	}

	// A terminal and the user's key: opened with the key, printed without.
	const canary = "pk_canaryCANARYcanary0123456789"
	e.terminal()
	e.out.Reset()
	e.errOut.Reset()
	if err := runStart(ctx, open(map[string]string{PublicKeyEnv: canary})); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.out.String()+e.errOut.String(), canary) || !strings.Contains(e.out.String(), page+"#key=$"+PublicKeyEnv) {
		t.Errorf("stdout %q, stderr %q", e.out, e.errOut)
	}
	if len(opened) != 1 || opened[0] != page+"#key="+canary {
		t.Errorf("opened %q", opened)
	}
	// Under CI: never opened.
	e.ios.SetCI(true)
	if err := runStart(ctx, open(map[string]string{PublicKeyEnv: canary})); err != nil || len(opened) != 1 {
		t.Errorf("under CI: %v, opened %q", err, opened)
	}

	o := open(nil)
	o.Name = "nobody"
	if err := runStart(ctx, o); cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
		t.Errorf("--open on a missing agent: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
	o = open(nil)
	o.Transport = "websocket"
	if err := runStart(ctx, o); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("--open --transport: %v (exit %d)", err, cmdutil.ExitCode(err))
	}
}

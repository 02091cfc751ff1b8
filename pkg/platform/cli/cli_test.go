package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// The enumerated flags are checked when parsed (exit 2, naming the valid
// values) — before any store is opened — and list their values in help.
func TestEnumFlags(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--data-dir", t.TempDir(), "--log-format", "xml"},
		{"orgs", "list", "--data-dir", t.TempDir(), "-o", "xml"},
		{"tokens", "list", "--org", "acme", "--data-dir", t.TempDir(), "-o", "csv"},
	} {
		ios, _, _, errOut := iostreams.Test()
		if code := Run(context.Background(), args, ios); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "valid: ") {
			t.Errorf("%v: exit %d, %q", args, code, errOut.String())
		}
	}
	cmd := NewRootCmd(nil)
	serve, _, err := cmd.Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	if usage := serve.Flags().Lookup("log-format").Usage; !strings.Contains(usage, "one of: text|json") {
		t.Errorf("--log-format's help does not list its values: %q", usage)
	}
}

// An empty listing says what every botkit listing says, on stderr.
func TestEmptyListing(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	if code := Run(context.Background(), []string{"orgs", "list", "--data-dir", t.TempDir()}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out.Len() != 0 || strings.TrimSpace(errOut.String()) != printers.NoResourcesMessage {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

// botkit-platform's listings print as botkit's do (printers.Flags): every
// format, the same shapes; orgs create prints an Operation line.
func TestListFormats(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ios, _, out, errOut := iostreams.Test()
		if code := Run(context.Background(), append(args, "--data-dir", dir), ios); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out.String()
	}
	if got := run("orgs", "create", "acme"); got != "organization/acme created: default region us-west\n" {
		t.Errorf("orgs create printed %q", got)
	}
	if got := run("orgs", "set", "acme", "--history-limit", "25"); got != "organization/acme configured: history limit 25\n" {
		t.Errorf("orgs set printed %q", got)
	}
	for _, bad := range []string{"0", "101"} {
		ios, _, _, errOut := iostreams.Test()
		if code := Run(context.Background(), []string{"orgs", "set", "acme", "--history-limit", bad, "--data-dir", dir}, ios); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "from 1 to 100") {
			t.Errorf("--history-limit %s: exit %d, %q", bad, code, errOut)
		}
	}
	for format, want := range map[string]string{
		"table": "NAME   DEFAULT REGION   CREATED", "wide": "NAME   DEFAULT REGION   CREATED",
		"json": `"defaultRegion": "us-west"`, "yaml": "  defaultRegion: us-west", "name": "acme\n",
	} {
		if got := run("orgs", "list", "-o", format); !strings.Contains(got, want) || !strings.Contains(got, "acme") {
			t.Errorf("orgs list -o %s: %q, want it to hold %q", format, got, want)
		}
	}
}

// --tls-cert-file and --tls-key-file go together, and a pair that cannot be
// served stops serve at start: exit 2 naming the flag or the file, before
// the data directory is touched.
func TestServeTLSFlags(t *testing.T) {
	dir := t.TempDir()
	cert := filepath.Join(dir, "tls.crt")
	if err := os.WriteFile(cert, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.key")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert-file", cert}, "error: --tls-cert-file needs --tls-key-file"},
		{[]string{"--tls-key-file", cert}, "error: --tls-key-file needs --tls-cert-file"},
		{[]string{"--tls-cert-file", cert, "--tls-key-file", cert}, "error: --tls-cert-file/--tls-key-file: certificate file " + cert + ": no PEM CERTIFICATE block in it"},
		{[]string{"--tls-cert-file", cert, "--tls-key-file", missing}, "key file " + missing + ": no such file or directory"},
	} {
		data := filepath.Join(dir, "data")
		ios, _, _, errOut := iostreams.Test()
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", data}, tc.args...)
		if code := Run(context.Background(), args, ios); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", tc.args, code, errOut.String(), tc.want)
		}
		if _, err := os.Stat(data); err == nil {
			t.Errorf("%v: the data directory was created", tc.args)
		}
	}
}

// --runtime, --agent-network and --agent-user refuse a bad value with a usage error
// (exit 2) naming the flag, before any store is opened.
func TestServeRuntimeFlags(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--runtime", "us-west"}, `--runtime "us-west": want REGION=unix:///path/to/docker.sock or REGION=tcp://HOST:PORT`},
		{[]string{"--runtime", "mars=docker:///var/run/docker.sock"}, `--runtime "mars=docker:///var/run/docker.sock": unknown region "mars"`},
		{[]string{"--runtime", "us-west=tcp://127.0.0.1:2376"}, `--runtime "us-west=tcp://127.0.0.1:2376": a tcp:// engine needs --runtime-tls us-west=DIR`},
		{[]string{"--runtime", "us-west=tcp://127.0.0.1:2376", "--runtime-tls", "us-west=" + empty}, `--runtime-tls us-west=` + empty + `: no `},
		{[]string{"--runtime", "us-west=docker:///a.sock", "--runtime-tls", "us-west=" + empty}, "region us-west's engine is not a tcp:// one"},
		{[]string{"--runtime-tls", "us-west=" + empty}, "no --runtime for region us-west"},
		{[]string{"--runtime-tls", "us-west"}, `--runtime-tls "us-west": want REGION=DIR`},
		{[]string{"--runtime", "us-west=npipe:////./pipe/docker_engine"}, "Windows named pipes (npipe://) are not supported"},
		{[]string{"--runtime", "us-west=ssh://me@host"}, "ssh:// engines are not supported"},
		{[]string{"--runtime", "us-west=docker://relative.sock"}, `want unix:///absolute/path`},
		{[]string{"--runtime", "us-west=docker:///a.sock", "--runtime", "us-west=docker:///b.sock"}, "region us-west has a runtime already"},
		{[]string{"--agent-network", "host"}, `--agent-network "host": agents never join the host's network`},
		{[]string{"--agent-user", "0"}, `--agent-user "0": UID 0 is root's`},
		{[]string{"--agent-user", "1000:0"}, `--agent-user "1000:0": GID 0 is root's`},
		{[]string{"--agent-user", "bot"}, `--agent-user "bot": want UID or UID:GID, numbers`},
	} {
		ios, _, _, errOut := iostreams.Test()
		dir := filepath.Join(t.TempDir(), "data")
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dir}, tc.args...)
		if code := Run(context.Background(), args, ios); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d saying %q", tc.args, code, errOut.String(), cmdutil.ExitUsage, tc.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%v: the data directory was created", tc.args)
		}
	}
}

// --ice-servers-file and --agent-url refuse a bad value with a usage error
// (exit 2) naming the flag, before any store is opened; a TURN server's
// credential and username are in no message.
func TestServeICEFlags(t *testing.T) {
	const canary = "turn-credential-canary-5b1e"
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noUser := write("nouser.json", `{"iceServers": [{"urls": "turn:turn.example.com:3478", "credential": "`+canary+`"}]}`)
	badURL := write("badurl.json", `{"iceServers": [{"urls": ["stun:stun.example.com", "http://`+canary+`"], "username": "`+canary+`", "credential": "`+canary+`"}]}`)
	notJSON := write("notjson.json", `{"iceServers": [{"urls": "turn:x", "credential": `+canary+`}]}`)
	extra := write("extra.json", `{"iceServers": [], "`+canary+`": 1}`)
	good := write("good.json", `{"iceServers": [{"urls": "stun:stun.example.com:3478"}]}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--ice-servers-file", good}, "error: --ice-servers-file needs --agent-url"},
		{[]string{"--agent-url", "172.18.0.1:8787"}, "error: --agent-url \"172.18.0.1:8787\": want http://HOST:PORT"},
		{[]string{"--agent-url", "http://172.18.0.1:8787", "--ice-servers-file", noUser}, "iceServers[0]: a TURN server needs its username and credential"},
		{[]string{"--agent-url", "http://172.18.0.1:8787", "--ice-servers-file", badURL}, "iceServers[0].urls[1]: want stun: or stuns:HOST[:PORT]"},
		{[]string{"--agent-url", "http://172.18.0.1:8787", "--ice-servers-file", notJSON}, "not an ICE servers file"},
		{[]string{"--agent-url", "http://172.18.0.1:8787", "--ice-servers-file", extra}, "not an ICE servers file"},
		{[]string{"--agent-url", "http://172.18.0.1:8787", "--ice-servers-file", filepath.Join(dir, "missing.json")}, "missing.json: no such file or directory"},
	} {
		data := filepath.Join(dir, "data")
		ios, _, out, errOut := iostreams.Test()
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", data}, tc.args...)
		if code := Run(context.Background(), args, ios); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", tc.args, code, errOut.String(), tc.want)
		}
		if strings.Contains(errOut.String()+out.String(), canary) {
			t.Errorf("%v: the message holds the credential: %q", tc.args, errOut.String())
		}
		if _, err := os.Stat(data); err == nil {
			t.Errorf("%v: the data directory was created", tc.args)
		}
	}
}

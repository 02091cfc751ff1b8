package seal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/prompter"
	"github.com/botkit-dev/botkit/pkg/sealed"
)

const canary = "CANARY-s3al-cmd-77e1"

// offline returns a certificate file of a new key of organization acme and
// the key's private part, to open what Run seals.
func offline(t *testing.T) (string, *sealed.Identity) {
	t.Helper()
	is, rs, err := sealed.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	id, err := sealed.ParseIdentity(is)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "org.pub")
	if err := os.WriteFile(path, sealed.Cert{Organization: "acme", KeyID: id.ID, Recipient: rs}.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, id
}

var lineRE = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*): \{sealed: ("[^"]+")\}$`)

// open parses "KEY: {sealed: "..."}" and opens the value.
func open(t *testing.T, line string, id *sealed.Identity) (string, sealed.Binding, string) {
	t.Helper()
	m := lineRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		t.Fatalf("not a value source line: %q", line)
	}
	s, err := strconv.Unquote(m[2])
	if err != nil {
		t.Fatal(err)
	}
	v, err := sealed.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	b, val, err := sealed.Open(v, id)
	if err != nil {
		t.Fatal(err)
	}
	return m[1], b, val
}

// On a terminal the value is asked with a hidden prompt; piped, it is
// stdin without its last line ending. Either way what Run prints opens, with
// the key's private part, to the value bound to acme, the set and the key.
func TestSealOneValue(t *testing.T) {
	cert, id := offline(t)
	ios, _, out, errOut := iostreams.Test()
	ios.SetStdinTTY(true)
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	fake := prompter.NewFake(t, prompter.Answer{Match: "KEY", Value: canary})
	opts := &Options{IO: ios, Prompter: func() prompter.Prompter { return fake }, Name: "bot", Key: "OPENAI_API_KEY", Cert: cert, Scope: sealed.ScopeStrict}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	key, b, val := open(t, out.String(), id)
	if key != "OPENAI_API_KEY" || val != canary || b != (sealed.Binding{Scope: sealed.ScopeStrict, Organization: "acme", Set: "bot", Key: "OPENAI_API_KEY"}) {
		t.Errorf("sealed %s %+v %q", key, b, val)
	}
	if strings.Contains(out.String()+errOut.String(), canary) {
		t.Error("the value shows in the output")
	}

	// stdout to a file (botkit seal NAME KEY >> manifest.yaml) on a
	// terminal: still asked hidden, never read echoed from the terminal.
	ios, _, out, _ = iostreams.Test()
	ios.SetStdinTTY(true)
	ios.SetStderrTTY(true)
	fake = prompter.NewFake(t, prompter.Answer{Match: "KEY", Value: canary})
	opts = &Options{IO: ios, Prompter: func() prompter.Prompter { return fake }, Name: "bot", Key: "K", Cert: cert, Scope: sealed.ScopeStrict}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if _, _, val := open(t, out.String(), id); val != canary || len(fake.Asked()) != 1 || fake.Asked()[0].Kind != "password" {
		t.Errorf("stdout redirected: %q, asked %+v", val, fake.Asked())
	}

	ios, in, out, _ := iostreams.Test()
	in.WriteString(canary + "\n")
	opts = &Options{IO: ios, Name: "bot", Key: "K", Cert: cert, Scope: sealed.ScopeOrganization}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if _, b, val := open(t, out.String(), id); val != canary || b != (sealed.Binding{Scope: sealed.ScopeOrganization, Organization: "acme"}) {
		t.Errorf("piped: %+v %q", b, val)
	}
}

// -f seals a dotenv file into a manifest, keys sorted, one line each.
func TestSealDotenv(t *testing.T) {
	cert, id := offline(t)
	env := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(env, []byte("B_KEY="+canary+"-b\nA_KEY='"+canary+" a'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := iostreams.Test()
	if err := Run(context.Background(), &Options{IO: ios, Name: "bot", Files: []string{env}, Cert: cert, Scope: sealed.ScopeStrict, Region: "eu-central"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{"apiVersion: botkit.dev/v1", "kind: SecretSet", "metadata:", "  name: bot", "  organization: acme", "  region: eu-central", "spec:", "  data:"}
	if len(lines) != len(want)+3 || strings.Join(lines[1:len(want)+1], "\n") != strings.Join(want, "\n") {
		t.Fatalf("manifest:\n%s", out)
	}
	for i, k := range []string{"A_KEY", "B_KEY"} {
		key, b, val := open(t, lines[len(want)+1+i], id)
		wantVal := canary + "-b"
		if k == "A_KEY" {
			wantVal = canary + " a"
		}
		if key != k || val != wantVal || b.Key != k || b.Set != "bot" {
			t.Errorf("line %d: %s %+v %q", i, key, b, val)
		}
	}
	if strings.Contains(out.String(), canary) {
		t.Error("the manifest holds a value in clear")
	}
}

// Bad input is a usage error (exit 2) naming what is wrong, with nothing
// printed.
func TestSealRefusals(t *testing.T) {
	cert, _ := offline(t)
	badEnv := filepath.Join(t.TempDir(), "bad.env")
	if err := os.WriteFile(badEnv, []byte("OK=1\n1BAD=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badCert := filepath.Join(t.TempDir(), "bad.pub")
	if err := os.WriteFile(badCert, []byte("organization: acme\nkeyId: 0000000000000000\nrecipient: age1x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		opts Options
		want string
	}{
		"nothing":       {Options{Name: "bot"}, "nothing to seal"},
		"no name":       {Options{Key: "K"}, "give NAME"},
		"bad name":      {Options{Name: "Bad_Name", Key: "K"}, "NAME:"},
		"bad key":       {Options{Name: "bot", Key: "1K"}, "KEY:"},
		"both":          {Options{Name: "bot", Key: "K", Files: []string{badEnv}}, "not both"},
		"bad dotenv":    {Options{Name: "bot", Files: []string{badEnv}, Cert: cert}, "bad.env:2:"},
		"missing file":  {Options{Name: "bot", Files: []string{badEnv + "x"}, Cert: cert}, "-f " + badEnv + "x"},
		"edited cert":   {Options{Name: "bot", Key: "K", Cert: badCert}, "--cert " + badCert + ": line 3"},
		"bad region":    {Options{Name: "bot", Key: "K", Region: "mars"}, "--region"},
		"bad scope":     {Options{Name: "bot", Key: "K", Scope: "galaxy"}, "scope"},
		"fetch+name":    {Options{Name: "bot", FetchCert: true}, "--fetch-cert takes no arguments"},
		"reseal+cert":   {Options{Reseal: true, Cert: cert, Files: []string{"x"}}, "--reseal takes no NAME and no --cert"},
		"reseal no -f":  {Options{Reseal: true}, "--reseal needs the manifests"},
		"-R w/o reseal": {Options{Name: "bot", Key: "K", Recursive: true}, "-R goes with --reseal"},
		"other org":     {Options{Name: "bot", Key: "K", Cert: cert, Organization: "beta"}, "--organization beta: the certificate"},
	} {
		ios, in, out, _ := iostreams.Test()
		in.WriteString("v")
		o := tc.opts
		o.IO = ios
		if o.Scope == "" {
			o.Scope = sealed.ScopeStrict
		}
		err := Run(context.Background(), &o)
		var fe *cmdutil.FlagError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || out.Len() > 0 {
			t.Errorf("%s: %v (output %q), want a usage error with %q", name, err, out, tc.want)
		}
	}
}

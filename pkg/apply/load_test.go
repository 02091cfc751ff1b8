package apply

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/resources"
)

const canary = "CANARY-v4lue-5e1f"

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

// problems returns the problem lines of a Load error (failing the test on
// any other outcome).
func problems(t *testing.T, err error) []string {
	t.Helper()
	var le *ManifestError
	if !errors.As(err, &le) {
		t.Fatalf("want *apply.ManifestError, got %v", err)
	}
	return le.Lines()
}

func TestLoadFilesDirectoriesStdin(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "m/a.yaml", `apiVersion: botkit.dev/v1
kind: SecretSet
metadata:
  name: support-bot
  labels: {team: voice}
spec:
  data:
    OPENAI_API_KEY: {fromEnv: OPENAI_KEY}
    GCP_CREDENTIALS: {fromFile: ./gcp.json}
---
apiVersion: botkit.dev/v1
kind: ImagePullSecret
metadata: {name: ghcr-creds, region: eu-central, organization: other}
spec:
  host: ghcr.io
  credentials: {fromEnv: GHCR}
`)
	write(t, dir, "m/gcp.json", `{"k":"`+canary+`"}`) // a value (fromFile), not a manifest, though a directory walk finds it
	write(t, dir, "m/list.json", `{"apiVersion":"botkit.dev/v1","kind":"List","items":[
  {"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"from-list"},"spec":{"data":{"A":{"fromEnv":"A"}}}}
]}
{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"second-json"},"spec":{"data":{}}}`)
	write(t, dir, "m/sub/deep.yml", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: deep}\nspec: {data: {}}\n")
	write(t, dir, "m/notes.txt", "not a manifest")
	write(t, dir, "m/project.yaml", "apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata: {name: my-bot}\nspec: {bot_type: web}\n")
	stdin := strings.NewReader("apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: piped}\nspec:\n  data:\n    LOG_LEVEL: debug\n")

	opts := Options{Paths: []string{filepath.Join(dir, "m"), "-"}, Stdin: stdin, Organization: "acme",
		Resolve: ResolveOptions{LookupEnv: env(map[string]string{"OPENAI_KEY": canary, "GHCR": "u:" + canary, "A": "a"}), AllowPlaintext: true}}
	res, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range res.Groups {
		for _, d := range g.Documents {
			got = append(got, g.Organization+"/"+d.Ref())
		}
	}
	want := "acme/secretset/support-bot acme/secretset/from-list acme/secretset/second-json acme/secretset/piped other/imagepullsecret/ghcr-creds"
	if strings.Join(got, " ") != want {
		t.Errorf("objects:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "project.yaml:1: skipped ProjectConfig my-bot") {
		t.Errorf("notes: %q", res.Notes)
	}
	sb := res.Groups[0].Find("support-bot").Object.SecretSet
	if v := sb.Spec.Data["GCP_CREDENTIALS"]; !v.IsLiteral() || *v.Literal != `{"k":"`+canary+`"}` {
		t.Errorf("fromFile relative to the manifest: %v", v)
	}
	if v := sb.Spec.Data["OPENAI_API_KEY"]; *v.Literal != canary {
		t.Error("fromEnv not resolved")
	}
	if d := res.Groups[0].Find("second-json"); d.Line != 4 {
		t.Errorf("second JSON value at line %d, want 4", d.Line)
	}

	// -R reads subdirectories.
	opts.Recursive, opts.Stdin, opts.Paths = true, nil, []string{filepath.Join(dir, "m")}
	if res, err = Load(context.Background(), opts); err != nil || res.Groups[0].Find("deep") == nil {
		t.Errorf("recursive: %v", err)
	}
	// Without literals allowed, the piped set is refused.
	opts.Recursive, opts.Stdin, opts.Paths = false, strings.NewReader("apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: piped}\nspec:\n  data:\n    LOG_LEVEL: debug\n"), []string{"-"}
	opts.Resolve.AllowPlaintext = false
	_, err = Load(context.Background(), opts)
	if ps := problems(t, err); len(ps) != 1 || !strings.HasPrefix(ps[0], "<stdin>:6: spec.data.LOG_LEVEL: a literal value") || !strings.Contains(ps[0], "--allow-plaintext") {
		t.Errorf("plaintext: %q", ps)
	}
}

// Every bad document of every file is reported, each with file:line and
// field, and nothing is returned to send.
func TestLoadReportsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "bad.yaml", `apiVersion: botkit.dev/v1
kind: SecretSet
metadata:
  name: one
  nmae: typo
spec:
  data:
    A: 12
    B: {fromEnv: MISSING_VAR}
    C: {fromFile: nothing-here.txt}
    1BAD: {fromEnv: X}
---
apiVersion: botkit.dev/v2
kind: SecretSet
metadata: {name: two}
---
apiVersion: botkit.dev/v1
kind: Secret
metadata: {name: three}
---
apiVersion: botkit.dev/v1
kind: SecretSet
metadata:
  name: four
  name: four-again
spec: {keys: [A]}
---
apiVersion: botkit.dev/v1
kind: ImagePullSecret
metadata: {name: five}
spec: {host: "https://ghcr.io/path"}
---
apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: Bad_Name, region: mars, labels: {team: 5}}
spec:
  data:
    K: {fromEnv: V, fromFile: f}
`)
	dup := write(t, dir, "dup.json", `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"dup"},"spec":{"data":{"A":{"fromEnv":"X"}}}}`)
	dup2 := write(t, dir, "dup2.yaml", "\n\napiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata:\n  name: dup\nspec: {data: {}}\n")
	syntax := write(t, dir, "syntax.yaml", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x\n")
	_, err := Load(context.Background(), Options{Paths: []string{bad, dup, dup2, syntax, filepath.Join(dir, "missing.yaml")}, Organization: "acme",
		Resolve: ResolveOptions{LookupEnv: env(map[string]string{"X": canary, "V": canary})}})
	ps := problems(t, err)
	wants := []string{
		bad + `:5: unknown field "nmae" in metadata (valid: name, organization, region, labels, resourceVersion)`,
		bad + ":8: spec.data.A: want a string, {fromEnv: VAR}, {fromFile: PATH} or {sealed: VALUE}, got a number (quote the value to make it a string)",
		bad + `:13: apiVersion: unknown apiVersion "botkit.dev/v2" (want botkit.dev/v1)`,
		bad + `:18: kind: unknown kind "Secret" (want SecretSet, ImagePullSecret, Agent, ProjectConfig, List)`,
		bad + `:25: duplicate key "metadata.name" (first at line 24)`,
		bad + ":26: spec.keys: output only (the platform sets it); remove it from the manifest",
		bad + ":31: spec.credentials is required",
		bad + ":35: metadata.name: name \"Bad_Name\": only letters, digits and hyphens are allowed",
		bad + ":35: metadata.labels.team: want a string, got a number",
		bad + ":38: spec.data.K: want a string, {fromEnv: VAR}, {fromFile: PATH} or {sealed: VALUE} (exactly one of fromEnv, fromFile, sealed)",
		dup2 + ":6: secretset/dup is also defined at " + dup + ":1",
		syntax + ":2: did not find expected ',' or '}'", // yaml.v3's line
		filepath.Join(dir, "missing.yaml") + ": no such file or directory",
	}
	joined := strings.Join(ps, "\n")
	for _, w := range wants {
		if !strings.Contains(joined, w) {
			t.Errorf("missing problem:\n  %s", w)
		}
	}
	// The set "one" is invalid, so its sources are not even resolved; the
	// spec.host problem is reported.
	if !strings.Contains(joined, "spec.host") {
		t.Errorf("no spec.host problem")
	}
	if t.Failed() {
		t.Logf("got:\n%s", joined)
	}
	if strings.Contains(joined, canary) {
		t.Error("a problem holds a value")
	}

	// Value sources that fail to resolve, all listed.
	src := write(t, dir, "src.yaml", `apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: src}
spec:
  data:
    B: {fromEnv: MISSING_VAR}
    C: {fromFile: nothing-here.txt}
    D: {fromFile: big.txt}
---
apiVersion: botkit.dev/v1
kind: ImagePullSecret
metadata: {name: creds}
spec:
  host: ghcr.io
  credentials: {fromEnv: BADCREDS}
`)
	write(t, dir, "big.txt", strings.Repeat("x", resources.MaxValueBytes+1))
	_, err = Load(context.Background(), Options{Paths: []string{src}, Organization: "acme", Resolve: ResolveOptions{LookupEnv: env(map[string]string{"BADCREDS": canary})}})
	ps = problems(t, err)
	joined = strings.Join(ps, "\n")
	for _, w := range []string{
		src + ":6: spec.data.B: environment variable MISSING_VAR is not set (fromEnv)",
		src + ":7: spec.data.C: fromFile nothing-here.txt: no such file or directory",
		src + ":8: spec.data.D: fromFile big.txt: larger than the 65536 bytes (64 KiB) a value may hold",
		src + ":15: spec.credentials: want <username>:<password>",
	} {
		if !strings.Contains(joined, w) {
			t.Errorf("missing problem %s\ngot:\n%s", w, joined)
		}
	}
	if strings.Contains(joined, canary) {
		t.Error("a problem holds a value")
	}

	// A document with other problems still reports its literal values:
	// every problem of the file in one run.
	lit := write(t, dir, "lit.yaml", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: lit, region: mars}\nspec:\n  data:\n    TOKEN: "+canary+"\n")
	_, err = Load(context.Background(), Options{Paths: []string{lit}, Organization: "acme"})
	joined = strings.Join(problems(t, err), "\n")
	for _, w := range []string{lit + ":3: metadata.region: ", lit + ":6: spec.data.TOKEN: a literal value in a manifest"} {
		if !strings.Contains(joined, w) {
			t.Errorf("missing problem %s\ngot:\n%s", w, joined)
		}
	}
	if strings.Contains(joined, canary) {
		t.Error("a problem holds a value")
	}
}

func TestLoadPaths(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "empty/sub/x.yaml", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\n")
	_, err := Load(context.Background(), Options{Paths: []string{empty, "-", "-"}, Stdin: strings.NewReader("")})
	joined := strings.Join(problems(t, err), "\n")
	for _, w := range []string{"no .yaml, .yml or .json files in the directory (use -R for subdirectories)", "<stdin>: - (stdin) is given more than once"} {
		if !strings.Contains(joined, w) {
			t.Errorf("missing %q in\n%s", w, joined)
		}
	}
	// An empty stdin holds nothing: no objects, no error.
	res, err := Load(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader("---\n")})
	if err != nil || len(res.Groups) != 0 {
		t.Errorf("empty stdin: %v %v", res, err)
	}
	// Delete needs names only: value sources are not resolved.
	f := write(t, dir, "del.yaml", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec: {data: {A: {fromEnv: UNSET_VAR}, B: literal}}\n")
	if res, err := Load(context.Background(), Options{Paths: []string{f}, SkipValues: true, Organization: "o"}); err != nil || res.Groups[0].Documents[0].Name() != "x" {
		t.Errorf("skip values: %v", err)
	}
}

// The error text never holds a value even when a value lands in an odd
// place (a YAML syntax error on the value's line).
func TestLoadSyntaxErrorHidesValue(t *testing.T) {
	_, probs, _ := Decode("x.yaml", []byte("apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec:\n  data:\n    A: \""+canary+"\n"))
	var b bytes.Buffer
	for _, p := range probs {
		b.WriteString(p.String())
	}
	if len(probs) == 0 || strings.Contains(b.String(), canary) {
		t.Errorf("problems: %s", b.String())
	}
}

func TestDecodeRefusesAliases(t *testing.T) {
	_, ps, _ := Decode("a.yaml", []byte("apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x, labels: &l {a: b}}\nspec:\n  data:\n    A: *l\n"))
	if len(ps) != 1 || ps[0].String() != "a.yaml:6: YAML aliases (*l) are not supported in manifests" {
		t.Errorf("%v", ps)
	}
}

// Documents naming no organization are loaded under "" and put into the
// current organization once it is known; a clash with a document naming
// that organization is then a problem at both lines.
func TestRegroup(t *testing.T) {
	dir := t.TempDir()
	m := write(t, dir, "m.yaml", `apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: a}
spec: {data: {}}
---
apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: b, organization: acme}
spec: {data: {}}
---
apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: c}
spec: {data: {}}
`)
	res, err := Load(context.Background(), Options{Paths: []string{m}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 2 || res.Groups[0].Organization != "" || res.Groups[1].Organization != "acme" {
		t.Fatalf("groups %+v", res.Groups)
	}
	groups, err := Regroup(res.Groups, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || groups[0].Organization != "acme" {
		t.Fatalf("regrouped %+v", groups)
	}
	var names []string
	for _, d := range groups[0].Documents {
		names = append(names, d.Name())
	}
	if strings.Join(names, ",") != "a,b,c" {
		t.Errorf("order %v, want the manifest's a,b,c", names)
	}

	write(t, dir, "m.yaml", `apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: a}
spec: {data: {}}
---
apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: a, organization: acme}
spec: {data: {}}
`)
	res, err = Load(context.Background(), Options{Paths: []string{m}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Regroup(res.Groups, "other"); err != nil {
		t.Fatalf("different organizations: %v", err)
	}
	_, err = Regroup(res.Groups, "acme")
	var le *ManifestError
	if !errors.As(err, &le) || len(le.Problems) != 1 || le.Problems[0].Line != 8 || !strings.Contains(le.Problems[0].Message, "m.yaml:3") {
		t.Fatalf("duplicate: %v", err)
	}
}

// Values that cannot become environment variables — invalid UTF-8, a NUL
// byte — are refused whatever their source, at file:line with the key, never
// the value (the same check as KEY=value arguments and dotenv files).
func TestLoadRefusesValuesNotEnvironmentVariables(t *testing.T) {
	dir := t.TempDir()
	m := write(t, dir, "m.yaml", `apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: bad}
spec:
  data:
    FILE_UTF8: {fromFile: utf8.bin}
    FILE_NUL: {fromFile: nul.bin}
    ENV_NUL: {fromEnv: WITH_NUL}
    LIT_NUL: "`+canary+`\0tail"
    OK: {fromFile: ok.txt}
---
apiVersion: botkit.dev/v1
kind: ImagePullSecret
metadata: {name: creds}
spec:
  host: ghcr.io
  credentials: {fromFile: creds.bin}
`)
	write(t, dir, "utf8.bin", canary+"\xff\xfeX")
	write(t, dir, "nul.bin", canary+"\x00")
	write(t, dir, "ok.txt", "fine ✓")
	write(t, dir, "creds.bin", "user:"+canary+"\xff")
	_, err := Load(context.Background(), Options{Paths: []string{m}, Organization: "acme", Resolve: ResolveOptions{
		AllowPlaintext: true, LookupEnv: env(map[string]string{"WITH_NUL": canary + "\x00"})}})
	joined := strings.Join(problems(t, err), "\n")
	for _, w := range []string{
		m + ":6: spec.data.FILE_UTF8: fromFile utf8.bin: value is not valid UTF-8",
		m + ":7: spec.data.FILE_NUL: fromFile nul.bin: value holds a NUL byte, which an environment variable cannot hold",
		m + ":8: spec.data.ENV_NUL: fromEnv WITH_NUL: value holds a NUL byte, which an environment variable cannot hold",
		m + ":9: spec.data.LIT_NUL: value holds a NUL byte, which an environment variable cannot hold",
		m + ":17: spec.credentials: value is not valid UTF-8",
	} {
		if !strings.Contains(joined, w) {
			t.Errorf("missing problem %s\ngot:\n%s", w, joined)
		}
	}
	if strings.Contains(joined, "OK") || strings.Contains(joined, canary) {
		t.Errorf("a problem about a good key, or holding a value:\n%s", joined)
	}
}

// A SecretSet without spec or spec.data (missing, empty, null) would wipe
// the set: apply makes it equal its manifest. It is refused at its line, as
// an ImagePullSecret without spec is; spec: {data: {}} empties a set on
// purpose.
func TestDecodeSecretSetSpecRequired(t *testing.T) {
	const head = "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: app}\n"
	for _, c := range []struct{ src, want string }{
		{head, "m.yaml:1: spec is required; an empty secret set is spec: {data: {}}"},
		{head + "spec:\n", "m.yaml:4: spec is required (it is null here); an empty secret set is spec: {data: {}}"},
		{head + "spec: null\n", "m.yaml:4: spec is required (it is null here); an empty secret set is spec: {data: {}}"},
		{head + "spec: ~\n", "m.yaml:4: spec is required (it is null here); an empty secret set is spec: {data: {}}"},
		{head + "spec: {}\n", "m.yaml:4: spec.data is required; an empty secret set is spec: {data: {}}"},
		{head + "spec:\n  data:\n", "m.yaml:5: spec.data is required (it is null here); an empty secret set is spec: {data: {}}"},
		{`{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"app"},"spec":null}`, "m.yaml:1: spec is required (it is null here); an empty secret set is spec: {data: {}}"},
		{"apiVersion: botkit.dev/v1\nkind: ImagePullSecret\nmetadata: {name: reg}\nspec:\n", "m.yaml:4: spec is required (it is null here)"},
	} {
		docs, ps, _ := Decode("m.yaml", []byte(c.src))
		var got []string
		for _, p := range ps {
			got = append(got, p.String())
		}
		if len(docs) != 0 || len(got) != 1 || got[0] != c.want {
			t.Errorf("%q: %d documents, problems %q; want only %q", c.src, len(docs), got, c.want)
		}
	}
	docs, ps, _ := Decode("m.yaml", []byte(head+"spec: {data: {}}\n"))
	if len(ps) != 0 || len(docs) != 1 {
		t.Fatalf("an intentionally empty set: %v", ps)
	}
}

// An empty value source says which one is empty, at file:line (before,
// `{sealed: ""}` said "want a non-empty string, got a string").
func TestLoadEmptyValueSources(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "empty.yaml", `apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: app}
spec:
  data:
    A: {sealed: ""}
    B: {fromEnv: ""}
    C: {fromFile: ''}
`)
	_, err := Load(context.Background(), Options{Paths: []string{f}, Organization: "acme"})
	joined := strings.Join(problems(t, err), "\n")
	for _, w := range []string{
		f + ":6: spec.data.A.sealed: the sealed value is empty: want the output of botkit seal (v1.KEYID.PAYLOAD)",
		f + ":7: spec.data.B.fromEnv: the variable name is empty: want {fromEnv: VAR}",
		f + ":8: spec.data.C.fromFile: the path is empty: want {fromFile: PATH}",
	} {
		if !strings.Contains(joined, w) {
			t.Errorf("missing problem:\n  %s\ngot:\n%s", w, joined)
		}
	}
}

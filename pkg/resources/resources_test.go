package resources

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestValidateName(t *testing.T) {
	for name, ok := range map[string]bool{
		"a": true, "support-bot": true, "A1": true, strings.Repeat("a", 63): true,
		"": false, "-a": false, "a-": false, "a_b": false, "a.b": false, "a b": false, strings.Repeat("a", 64): false, "é": false,
	} {
		if err := ValidateName(name); (err == nil) != ok {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}

func TestValidateKey(t *testing.T) {
	for key, ok := range map[string]bool{
		"A": true, "_": true, "OPENAI_API_KEY": true, "a1": true, strings.Repeat("K", 128): true,
		"": false, "1A": false, "A-B": false, "A.B": false, "A B": false, strings.Repeat("K", 129): false,
	} {
		if err := ValidateKey(key); (err == nil) != ok {
			t.Errorf("ValidateKey(%q) = %v, want ok=%v", key, err, ok)
		}
	}
}

func TestValidateValueNeverEchoes(t *testing.T) {
	const secret = "hunter2-secret"
	for _, v := range []string{secret + strings.Repeat("x", MaxValueBytes), secret + "\xff", secret + "\x00x", "\x00"} {
		err := ValidateValue("KEY", v)
		if err == nil {
			t.Fatalf("value accepted")
		}
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Key != "KEY" {
			t.Errorf("error %T %v, want a *ValueError for KEY", err, err)
		}
		if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "KEY") {
			t.Errorf("error %q: must name the key and not echo the value", err)
		}
	}
	if err := ValidateValue("K", "multi\nline ✓"); err != nil {
		t.Error(err)
	}
}

func TestValidateData(t *testing.T) {
	data := map[string]ValueSource{"A": Literal("1"), "B": {FromEnv: "X"}, "1C": Literal("2")}
	errs := ValidateData(data)
	if len(errs) != 2 {
		t.Fatalf("errors %v", errs)
	}
	big := map[string]ValueSource{}
	for i := range MaxKeys + 1 {
		big[strings.Repeat("K", 1+i%100)+strings.Repeat("_", i/100)] = Literal("v")
	}
	if errs := ValidateData(big); len(errs) != 1 || !strings.Contains(errs[0].Error(), "1000 keys") {
		t.Errorf("too many keys: %v", errs)
	}
}

func TestLabelsAndSelector(t *testing.T) {
	if err := ValidateLabels(map[string]string{"team": "voice", "botkit.dev/env": "prod", "empty": ""}); err != nil {
		t.Error(err)
	}
	for _, bad := range []map[string]string{{"": "x"}, {"a/": "x"}, {"-a": "x"}, {"a": "-x"}, {"a": strings.Repeat("v", 64)}} {
		if err := ValidateLabels(bad); err == nil {
			t.Errorf("labels %v accepted", bad)
		}
	}
	sel, err := ParseSelector("team=voice, tier!=dev,canary,!legacy")
	if err != nil {
		t.Fatal(err)
	}
	if sel.String() != "team=voice,tier!=dev,canary,!legacy" {
		t.Errorf("String() = %q", sel.String())
	}
	for labels, want := range map[string]bool{
		`{"team":"voice","canary":""}`:               true,
		`{"team":"voice","canary":"","tier":"dev"}`:  false,
		`{"team":"voice","canary":"","legacy":"1"}`:  false,
		`{"team":"voice"}`:                           false,
		`{"team":"text","canary":""}`:                false,
		`{"team":"voice","canary":"","tier":"prod"}`: true,
	} {
		var m map[string]string
		if err := json.Unmarshal([]byte(labels), &m); err != nil {
			t.Fatal(err)
		}
		if got := sel.Matches(m); got != want {
			t.Errorf("%s matches = %v, want %v", labels, got, want)
		}
	}
	for _, bad := range []string{"a=b,,c", "=x", "a=-b", "!"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("selector %q accepted", bad)
		}
	}
	if s, err := ParseSelector(""); err != nil || !s.Matches(nil) {
		t.Errorf("empty selector: %v", err)
	}
}

func TestValueSourceJSONAndYAML(t *testing.T) {
	doc := `apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: support-bot, labels: {team: voice}}
spec:
  data:
    LOG_LEVEL: debug
    OPENAI_API_KEY: {fromEnv: OPENAI_API_KEY}
    GCP: {fromFile: ./gcp.json}
`
	var o Object
	if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
		t.Fatal(err)
	}
	s := o.SecretSet
	if s == nil || o.Kind() != KindSecretSet || s.Metadata.Name != "support-bot" {
		t.Fatalf("decoded %+v", o)
	}
	if d := s.Spec.Data; *d["LOG_LEVEL"].Literal != "debug" || d["OPENAI_API_KEY"].FromEnv != "OPENAI_API_KEY" || d["GCP"].FromFile != "./gcp.json" {
		t.Errorf("data %v", d)
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"LOG_LEVEL":"debug"`) || !strings.Contains(string(b), `{"fromEnv":"OPENAI_API_KEY"}`) {
		t.Errorf("re-encoded: %s", b)
	}
	for _, bad := range []string{`{}`, `{"fromEnv":"A","fromFile":"B"}`, `{"fromEnv":""}`, `{"other":"x"}`, `12`, `["x"]`} {
		var v ValueSource
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("value source %s accepted", bad)
		}
	}
	lit := Literal("do-not-print")
	if strings.Contains(lit.String(), "do-not") || strings.Contains(lit.GoString(), "do-not") {
		t.Error("String/GoString reveal a literal")
	}
	var ips Object
	if err := json.Unmarshal([]byte(`{"kind":"ImagePullSecret","metadata":{"name":"r"},"spec":{"host":"ghcr.io","credentials":{"fromEnv":"C"}}}`), &ips); err != nil || ips.ImagePullSecret == nil {
		t.Fatalf("ips: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"kind":"Nope"}`), &ips); err == nil {
		t.Error("unknown kind accepted")
	}
	l, err := json.Marshal(NewList(nil))
	if err != nil {
		t.Fatal(err)
	}
	if string(l) != `{"apiVersion":"botkit.dev/v1","kind":"List","items":[],"metadata":{}}` {
		t.Errorf("empty list: %s", l)
	}
}

func TestNormalizeRegistryHost(t *testing.T) {
	for in, want := range map[string]string{
		"ghcr.io":                "https://ghcr.io",
		"https://ghcr.io":        "https://ghcr.io",
		"https://GHCR.io/":       "https://ghcr.io",
		"http://127.0.0.1:5000":  "http://127.0.0.1:5000",
		"registry.example:5443":  "https://registry.example:5443",
		"[::1]:5000":             "http://[::1]:5000",
		"127.0.0.1:5000":         "http://127.0.0.1:5000",
		"127.0.0.2:5000":         "http://127.0.0.2:5000",
		"LocalHost:5000":         "http://localhost:5000",
		"localhost":              "http://localhost",
		"https://127.0.0.1:5000": "https://127.0.0.1:5000",
		"10.0.0.1:5000":          "https://10.0.0.1:5000",
		"localhost.example.com":  "https://localhost.example.com",
		"":                       "",
		"ftp://x":                "",
		"ghcr.io/org":            "",
		"https://u:p@ghcr.io":    "",
		"ghcr.io:99999":          "",
		"bad_host!":              "",
		"https://ghcr.io?x=1":    "",
	} {
		got, err := NormalizeRegistryHost(in)
		if want == "" {
			if err == nil {
				t.Errorf("%q accepted as %q", in, got)
			}
			if strings.Contains(in, "u:p") && err != nil && strings.Contains(err.Error(), "u:p") {
				t.Errorf("error echoes credentials: %v", err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("NormalizeRegistryHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestParseCredentials(t *testing.T) {
	u, b, err := ParseCredentials("robot:pa:ss", false)
	if err != nil || u != "robot" || b != "cm9ib3Q6cGE6c3M=" {
		t.Errorf("plain: %q %q %v", u, b, err)
	}
	u, b2, err := ParseCredentials("cm9ib3Q6cGE6c3M=", true)
	if err != nil || u != "robot" || b2 != b {
		t.Errorf("encoded: %q %q %v", u, b2, err)
	}
	// NUL and invalid UTF-8 get the message every value path gives.
	if _, _, err := ParseCredentials("u:p\x00", false); err == nil || !strings.HasSuffix(err.Error(), "value holds a NUL byte, which an environment variable cannot hold") {
		t.Errorf("NUL: %v", err)
	}
	for _, bad := range []struct {
		c   string
		enc bool
	}{{"nocolon", false}, {":pass", false}, {"user:", false}, {"not base64!", true}, {"bm9jb2xvbg==", true}, {"u:p\nx", false},
		{"u:p\x00x", false}, {"u:p\xffx", false}, {"dTpwAHg=", true}} {
		_, _, err := ParseCredentials(bad.c, bad.enc)
		if err == nil {
			t.Errorf("%q accepted", bad.c)
		} else if fe, ok := err.(*FieldError); !ok || fe.Field != "spec.credentials" {
			t.Errorf("%q: error %T %v, want a *FieldError of spec.credentials", bad.c, err, err)
		} else if len(bad.c) > 4 && strings.Contains(err.Error(), bad.c) {
			t.Errorf("error echoes credentials: %v", err)
		}
	}
}

func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"a=b", "a!=b,c", "!x", "a==b", "x/y=z", ",", "=", "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelector(s)
		if err != nil {
			return
		}
		again, err := ParseSelector(sel.String())
		if err != nil || again.String() != sel.String() {
			t.Fatalf("round trip of %q: %q, %v", s, sel.String(), err)
		}
	})
}

// An image reference that parses has a registry of HOST[:PORT] and no
// query nor fragment, and its parts parse again to themselves.
func FuzzParseImageRef(f *testing.F) {
	for _, s := range []string{"python:3.12", "127.0.0.1:5000/bots/voice:0.1", "127.0.0.1:5000?x/acme/bot", "host:/x", "host#a/b:1",
		"[::1]:5000/a@sha256:" + sha64(), "localhost/voice"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseImageRef(s)
		if err != nil {
			return
		}
		if strings.ContainsAny(s, "?#") || strings.HasSuffix(r.Registry, ":") {
			t.Fatalf("ParseImageRef(%q) accepted: %+v", s, r)
		}
		again := r.Registry + "/" + r.Repository
		if r.Tag != "" {
			again += ":" + r.Tag
		}
		if r.Digest != "" {
			again += "@" + r.Digest
		}
		if r2, err := ParseImageRef(again); err != nil || r2 != r {
			t.Fatalf("ParseImageRef(%q) = %+v; its parts %q parse as %+v, %v", s, r, again, r2, err)
		}
	})
}

func FuzzValueSource(f *testing.F) {
	for _, s := range []string{`"x"`, `{"fromEnv":"A"}`, `{"fromFile":"./f"}`, `{}`, `null`, `"\u00e9"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v ValueSource
		if err := json.Unmarshal(b, &v); err != nil {
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var w ValueSource
		if err := json.Unmarshal(out, &w); err != nil || w.String() != v.String() {
			t.Fatalf("round trip %s -> %s: %v", b, out, err)
		}
	})
}

// LabelKeyPattern (the schemas' rule) and ValidateLabelKey (the code's)
// agree.
func TestLabelKeyPatternIsValidateLabelKey(t *testing.T) {
	re := regexp.MustCompile(LabelKeyPattern)
	for _, k := range []string{"team", "a", "a.b-c_d", "botkit.dev/team", "a.b.c/x", "x" + strings.Repeat("y", 61) + "z",
		"", "bad key", "-a", "a-", "/a", "a/", "a/b/c", "ex ample.com/a", "-x.com/a", "x..com/a", "x" + strings.Repeat("y", 62) + "z", "ü", "a\nb"} {
		if got, want := re.MatchString(k), ValidateLabelKey(k) == nil; got != want {
			t.Errorf("%q: the pattern says %v, ValidateLabelKey %v", k, got, want)
		}
	}
}

func FuzzLabelKeyPattern(f *testing.F) {
	re := regexp.MustCompile(LabelKeyPattern)
	f.Add("botkit.dev/team")
	f.Add("a..b/c")
	f.Fuzz(func(t *testing.T, k string) {
		if got, want := re.MatchString(k), ValidateLabelKey(k) == nil; got != want && len(k) <= 253+64 {
			t.Fatalf("%q: the pattern says %v, ValidateLabelKey %v", k, got, want)
		}
	})
}

func TestParseImageRef(t *testing.T) {
	for in, want := range map[string]ImageRef{
		"python:3.12":                       {Registry: DockerHub, Repository: "library/python", Tag: "3.12"},
		"acme/voice:0.1":                    {Registry: DockerHub, Repository: "acme/voice", Tag: "0.1"},
		"docker.io/acme/voice":              {Registry: DockerHub, Repository: "acme/voice"},
		"ghcr.io/acme/bots/voice:v1":        {Registry: "ghcr.io", Repository: "acme/bots/voice", Tag: "v1"},
		"127.0.0.1:5000/bots/voice:0.1":     {Registry: "127.0.0.1:5000", Repository: "bots/voice", Tag: "0.1"},
		"localhost/voice@sha256:" + sha64(): {Registry: "localhost", Repository: "voice", Digest: "sha256:" + sha64()},
	} {
		got, err := ParseImageRef(in)
		if err != nil || got != want {
			t.Errorf("ParseImageRef(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	// The bounds the patterns no longer hold: a tag of 1 to 128 characters,
	// a digest of exactly 64 hex digits.
	for _, ok := range []string{"acme/voice:" + strings.Repeat("t", 128), "acme/voice:_", "acme/voice@sha256:" + sha64()} {
		if _, err := ParseImageRef(ok); err != nil {
			t.Errorf("ParseImageRef(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Acme/Voice:1", "acme/voice:bad tag", "acme/voice@sha256:12", "acme//voice:1",
		"acme/voice:" + strings.Repeat("t", 129), "acme/voice:.t", "acme/voice@sha256:", "acme/voice@sha256:" + sha64()[1:],
		"acme/voice@sha256:" + sha64() + "a", "acme/voice@sha256:" + strings.ToUpper(sha64()), "acme/voice@sha512:" + sha64()} {
		if _, err := ParseImageRef(bad); err == nil {
			t.Errorf("ParseImageRef(%q) accepted", bad)
		}
	}
	// A query, a fragment, an empty port: refused, the message naming the
	// problem.
	for bad, says := range map[string]string{
		"127.0.0.1:5000?x/acme/bot:1": `"?" has no place`,
		"host#a/b:1":                  `"#" has no place`,
		"acme/bot:1#x":                `"#" has no place`,
		"host:/x":                     "empty port",
		"[::1]:/x":                    "empty port",
		"host:99999/x":                "not a number from 1 to 65535",
		"host:0x1/x":                  "not a number from 1 to 65535",
		":5000/x":                     "no host",
		"ex_ample.com/x":              "not a DNS name",
		"[127.0.0.1]:5000/x":          "not an IPv6 address",
	} {
		if _, err := ParseImageRef(bad); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseImageRef(%q): %v, want it to say %q", bad, err, says)
		}
	}
	for _, ok := range []string{"[::1]:5000/acme/bot:1", "localhost:5000/bot", "registry.example.com:443/a/b@sha256:" + sha64()} {
		if _, err := ParseImageRef(ok); err != nil {
			t.Errorf("ParseImageRef(%q): %v", ok, err)
		}
	}
	for _, h := range []string{"docker.io", "https://index.docker.io", "registry-1.docker.io/"} {
		if RegistryName(h) != DockerHub || RegistryURL(h) != "https://registry-1.docker.io" {
			t.Errorf("%s: %s %s", h, RegistryName(h), RegistryURL(h))
		}
	}
	if RegistryURL("127.0.0.1:5000") != "http://127.0.0.1:5000" || RegistryURL("localhost:5000") != "http://localhost:5000" || RegistryURL("ghcr.io") != "https://ghcr.io" {
		t.Error("RegistryURL: loopback registries speak HTTP, others HTTPS")
	}
	if RegistryName("HTTP://127.0.0.1:5000") != "127.0.0.1:5000" {
		t.Error("RegistryName of a URL")
	}
}

func sha64() string { return strings.Repeat("ab", 32) }

// One result per check id: a worse result replaces, an equal one adds its
// detail, a better one is dropped.
func TestAddCheck(t *testing.T) {
	var cs []PreflightCheck
	for _, c := range []PreflightCheck{
		{ID: "image-pull-secret", Result: CheckOK, Detail: "creds, region us-west, ready"},
		{ID: "image", Result: CheckWarning, Detail: "w1"},
		{ID: "image-pull-secret", Result: CheckFail, Detail: "creds holds credentials for a, but the image is on b"},
		{ID: "image", Result: CheckWarning, Detail: "w2"},
		{ID: "image-pull-secret", Result: CheckOK, Detail: "later ok"},
		{ID: "image", Result: CheckWarning, Detail: "w2"},
	} {
		cs = AddCheck(cs, c)
	}
	want := []PreflightCheck{
		{ID: "image-pull-secret", Result: CheckFail, Detail: "creds holds credentials for a, but the image is on b"},
		{ID: "image", Result: CheckWarning, Detail: "w1; w2"},
	}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("checks %+v, want %+v", cs, want)
	}
}

func TestImageRefPull(t *testing.T) {
	for in, want := range map[string]string{
		"bot@sha256:" + strings.Repeat("a", 64):          "library/bot@sha256:" + strings.Repeat("a", 64),
		"h:5000/bots/voice:0.1":                          "bots/voice:0.1",
		"bots/voice:1@sha256:" + strings.Repeat("b", 64): "bots/voice@sha256:" + strings.Repeat("b", 64),
	} {
		r, err := ParseImageRef(in)
		if err != nil || r.Pull() != want {
			t.Errorf("%s: %q, %v; want %q", in, r.Pull(), err, want)
		}
	}
	for _, name := range []string{"docker.io", "index.docker.io", "registry-1.docker.io", "https://index.docker.io/", "Docker.IO"} {
		if RegistryName(name) != DockerHub {
			t.Errorf("RegistryName(%q) = %q", name, RegistryName(name))
		}
	}
	if a, b := RegistryName("localhost:5000"), RegistryName("http://127.0.0.1:5000"); a == b {
		t.Errorf("localhost and 127.0.0.1 are one registry name: %q", a)
	}
}

// An Agent's spec: each problem names its field.
func TestValidateAgentSpec(t *testing.T) {
	profiles := []string{"agent-1x", "agent-2x"}
	ok := AgentSpec{Image: "ghcr.io/acme/bot:1", ImagePullSecret: "ghcr", SecretSet: "bot-secrets", Profile: "agent-2x",
		Scaling: &AgentScaling{MinAgents: 0, MaxAgents: 5}}
	if err := ValidateAgentSpec(ok, profiles); err != nil {
		t.Fatalf("a valid spec: %v", err)
	}
	if err := ValidateAgentSpec(AgentSpec{Image: "ghcr.io/acme/bot@sha256:" + strings.Repeat("a", 64)}, profiles); err != nil {
		t.Errorf("an image by digest: %v", err)
	}
	for _, tc := range []struct {
		change func(*AgentSpec)
		field  string
	}{
		{func(s *AgentSpec) { s.Image = "" }, "spec.image"},
		{func(s *AgentSpec) { s.Image = "ghcr.io/acme/bot" }, "spec.image"},
		{func(s *AgentSpec) { s.Image = "ghcr.io/Acme/bot:1" }, "spec.image"},
		{func(s *AgentSpec) { s.ImagePullSecret = "no_such" }, "spec.imagePullSecret"},
		{func(s *AgentSpec) { s.SecretSet = "-x" }, "spec.secretSet"},
		{func(s *AgentSpec) { s.Profile = "agent-9x" }, "spec.profile"},
		{func(s *AgentSpec) { s.Scaling = &AgentScaling{MinAgents: -1} }, "spec.scaling.minAgents"},
		{func(s *AgentSpec) { s.Scaling = &AgentScaling{MinAgents: 3, MaxAgents: 2} }, "spec.scaling.minAgents"},
		{func(s *AgentSpec) { s.Scaling = &AgentScaling{MinAgents: 1, MaxAgents: MaxAgents + 1} }, "spec.scaling.maxAgents"},
	} {
		spec := ok
		tc.change(&spec)
		err := ValidateAgentSpec(spec, profiles)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: %v, want an error about %s", spec, err, tc.field)
		}
	}
	if (AgentSpec{}).MinAgents() != 1 || (AgentSpec{Scaling: &AgentScaling{}}).MinAgents() != 0 {
		t.Error("MinAgents: 1 without a scaling, else minAgents")
	}
}

package scaffold

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeConfigFileFlatAndManifest(t *testing.T) {
	flat := `{"project_name":"a","transports":["daily"],"realtime_service":"openai_realtime","recording":true,"video_service":null}`
	p, err := DecodeConfigFile("c.json", []byte(flat))
	if err != nil {
		t.Fatal(err)
	}
	if *p.ProjectName != "a" || !reflect.DeepEqual(p.Transports, []string{"daily"}) || !*p.Recording || p.VideoService != nil || p.Eval != nil {
		t.Fatalf("decoded %+v", p)
	}
	manifest := "apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata:\n  name: a\nspec:\n  transports: [daily]\n  realtime_service: openai_realtime\n  recording: true\n"
	q, err := DecodeConfigFile("c.yaml", []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(Resolve(p), Resolve(q)) {
		t.Fatalf("flat and manifest differ:\n%+v\n%+v", Resolve(p), Resolve(q))
	}
}

func TestDecodeConfigFileErrorsNameFileLineAndKey(t *testing.T) {
	cases := []struct{ in, want string }{
		{"project_name: a\nfoo: 1\n", `c.yaml:2: unknown key "foo"`},
		{"recording: 1\n", "c.yaml:1: recording: want true or false, got a number"},
		{"transports: [daily, 3]\n", "c.yaml:1: transports: want a string, got a number"},
		{"stt_service: [x]\n", "c.yaml:1: stt_service: want a string, got a list"},
		{"recording: true\nrecording: false\n", `c.yaml:2: duplicate key "recording" (first at line 1)`},
		{"- 1\n", "c.yaml:1: want a mapping of config keys"},
		{"", "c.yaml: empty config file"},
		{"{", "c.yaml:1: invalid JSON"},
		{"kind: Other\n", `c.yaml:1: kind: want "ProjectConfig", got "Other"`},
		{"apiVersion: botkit.dev/v1\nkind: ProjectConfig\nspec:\n  project_name: x\n", "c.yaml:4: spec.project_name: the project name goes in metadata.name"},
		{"apiVersion: botkit.dev/v1\nkind: ProjectConfig\nspec:\n  bogus: x\n", `c.yaml:4: unknown key "spec.bogus"`},
		{"a: 1\n---\nb: 2\n", "c.yaml:2: a config file holds one document"},
	}
	for _, c := range cases {
		_, err := DecodeConfigFile("c.yaml", []byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.in, err, c.want)
		}
	}
}

func TestConfigJSONHasEveryKeyInOrderWithNulls(t *testing.T) {
	c := Resolve(Partial{ProjectName: sp("a"), Transports: []string{"daily"}, RealtimeService: sp("openai_realtime")})
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(keys, ConfigKeys()) {
		t.Fatalf("keys %v, want %v", keys, ConfigKeys())
	}
	if !strings.Contains(string(b), `"stt_service":null`) || !strings.Contains(string(b), `"deploy_to_cloud":true`) {
		t.Fatalf("json %s", b)
	}
}

// FuzzDecodeConfigFile checks the decoder never panics, and that whatever it
// accepts survives the round trip through --dry-run JSON and the YAML manifest.
func FuzzDecodeConfigFile(f *testing.F) {
	for _, seed := range []string{
		`{"project_name":"a","transports":["daily"],"realtime_service":"openai_realtime"}`,
		"project_name: a\ntransports: [twilio]\nrecording: true\n",
		"apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata: {name: x}\nspec: {eval: true}\n",
		"a: &x 1\nb: *x\n",
		"{\"a\": 1, \"a\": 2}",
		"transports: !!str daily",
		"recording: yes",
		"",
		"{\"project_name\":\"a\"} {\"b\":1}",
		"{\"eval\": true,}",
		"[1,2] x",
		"transports: " + strings.Repeat("[", 100),
		"{\"transports\":" + strings.Repeat("[", 100),
		"eval:\n" + strings.Repeat("  a:\n", 20),
		"{\"project_name\":\"\\udc00\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeConfigFile("fuzz.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		c := Resolve(p)
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeConfigFile("back.json", raw)
		if err != nil {
			t.Fatalf("own JSON rejected: %v\n%s", err, raw)
		}
		if !reflect.DeepEqual(Resolve(back), c) {
			t.Fatalf("JSON round trip changed the config:\n%+v\n%+v", c, Resolve(back))
		}
		if c.ProjectName == "" {
			return
		}
		y, err := c.ManifestYAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err = DecodeConfigFile("back.yaml", y)
		if err != nil {
			t.Fatalf("own manifest rejected: %v\n%s", err, y)
		}
		if !reflect.DeepEqual(Resolve(back), c) {
			t.Fatalf("manifest round trip changed the config:\n%+v\n%+v", c, Resolve(back))
		}
	})
}

// JSON configs follow JSON's rules: trailing data and trailing commas are
// errors with file:line (as a second YAML document is).
func TestDecodeConfigFileJSONTrailingData(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"project_name\":\"a\"}\n{\"project_name\":\"b\"}\n", "c.json:2: invalid JSON: data after the config object"},
		{"{\"project_name\":\"a\"}\n\ngarbage", "c.json:3: invalid JSON: data after the config object"},
		{"{\n  \"project_name\": \"a\",\n  \"eval\": true,\n}\n", "c.json:4: invalid JSON"},
		{"{\"project_name\":\"a\"", "c.json:1: invalid JSON: the file ends inside"},
	} {
		_, err := DecodeConfigFile("c.json", []byte(c.in))
		cfe, ok := err.(*ConfigFileError)
		if !ok || len(cfe.Problems) != 1 || !strings.HasPrefix(cfe.Problems[0], c.want) {
			t.Errorf("%q: got %v, want %q", c.in, err, c.want)
		}
	}
	if _, err := DecodeConfigFile("c.json", []byte("  {\"project_name\":\"a\"}\n\n")); err != nil {
		t.Errorf("trailing space refused: %v", err)
	}
	big := []byte("{\"project_name\":\"" + strings.Repeat("a", MaxConfigSize) + "\"}")
	if _, err := DecodeConfigFile("c.json", big); err == nil || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("over the limit: %v", err)
	}
}

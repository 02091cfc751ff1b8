package schemagen

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/scaffold"
	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite manifests/schema from the Go types")

// The schemas in manifests/schema are generated from the Go types; this
// test fails when they are out of step (go test ./pkg/apply -run
// TestSchemasInSync -update rewrites them).
func TestSchemasInSync(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "manifests", "schema")
	for _, kind := range SchemaKinds() {
		want, err := Schema(kind)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, SchemaFile(kind))
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is out of date (%v): run go test ./internal/schemagen -run TestSchemasInSync -update", path, err)
		}
	}
}

// yamlToJSON converts a YAML document to the value a JSON Schema validator
// takes.
func yamlToJSON(t *testing.T, src string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compileSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	out := map[string]*jsonschema.Schema{}
	for _, kind := range SchemaKinds() {
		data, err := Schema(kind)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		url := schemaBase + SchemaFile(kind)
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		if out[kind], err = c.Compile(url); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
	}
	return out
}

// The examples in manifests/ pass their schema and botkit's own decoders;
// documents that must fail fail both.
func TestExamplesAndSchemas(t *testing.T) {
	schemas := compileSchemas(t)
	root := filepath.Join(testenv.RepoRoot(t), "manifests")
	for kind, file := range map[string]string{"SecretSet": "secretset.yaml", "ImagePullSecret": "imagepullsecret.yaml", "Agent": "agent.yaml", "ProjectConfig": "projectconfig.yaml"} {
		path := filepath.Join(root, file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas[kind].Validate(yamlToJSON(t, string(data))); err != nil {
			t.Errorf("%s against its schema: %v", file, err)
		}
		docs, problems, notes := apply.Decode(path, data)
		switch kind {
		case "ProjectConfig":
			if len(notes) != 1 || len(docs) != 0 || len(problems) != 0 {
				t.Errorf("%s: apply should skip it: %v %v", file, notes, problems)
			}
			if _, err := scaffold.DecodeConfigFile(path, data); err != nil {
				t.Errorf("%s: botkit create -c refuses it: %v", file, err)
			}
		default:
			if len(problems) != 0 || len(docs) != 1 || docs[0].Kind() != kind {
				t.Errorf("%s: %v", file, problems)
			}
		}
	}

	bad := []struct{ kind, doc, why string }{
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec: {dat: {}}\n", "unknown spec field"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec: {data: {A: 12}}\n", "a number as a value"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec: {data: {A: {fromEnv: X, fromFile: y}}}\n", "two value sources"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec: {data: {1A: {fromEnv: X}}}\n", "bad key"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: -x}\n", "bad name"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x, region: mars}\n", "bad region"},
		{"SecretSet", "apiVersion: botkit.dev/v2\nkind: SecretSet\nmetadata: {name: x}\n", "apiVersion"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {labels: {a: b}}\n", "no name"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec: {keys: [A]}\n", "output-only field"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nstatus: {state: ready}\n", "status"},
		{"ImagePullSecret", "apiVersion: botkit.dev/v1\nkind: ImagePullSecret\nmetadata: {name: x}\nspec: {host: ghcr.io}\n", "no credentials"},
		{"ImagePullSecret", "apiVersion: botkit.dev/v1\nkind: ImagePullSecret\nmetadata: {name: x}\nspec: {host: ghcr.io, credentials: {fromEnv: C}, encode: yes please}\n", "encode not a boolean"},
		{"ProjectConfig", "apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata: {name: x}\nspec: {project_name: y}\n", "project_name in spec"},
		{"ProjectConfig", "apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata: {name: x}\nspec: {recording: maybe}\n", "recording not a boolean"},
		{"ProjectConfig", "apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata: {name: x}\nspec: {bot_flavor: web}\n", "unknown key"},
		{"ProjectConfig", "apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata: {name: x}\nspec: {bot_type: robot, transports: [daily], stt_service: deepgram_stt, llm_service: openai_llm, tts_service: cartesia_tts}\n", "a bot type the catalogue lacks"},
		{"ProjectConfig", "apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata: {name: x}\nspec: {bot_type: web, transports: [carrier_pigeon], stt_service: deepgram_stt, llm_service: openai_llm, tts_service: cartesia_tts}\n", "a transport the catalogue lacks"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x, labels: {bad key!: x}}\nspec: {data: {}}\n", "a label key with a space"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec: null\n", "spec: null"},
		{"SecretSet", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\n", "no spec"},
		{"Agent", "apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: x}\nspec: {secretSet: s}\n", "no image"},
		{"Agent", "apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: x}\nspec: {image: r.example/a:1, profile: huge}\n", "unknown profile"},
		{"Agent", "apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: x}\nspec: {image: r.example/a:1, scaling: {minAgents: -1}}\n", "negative minAgents"},
		{"Agent", "apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: x}\nspec: {image: r.example/a:1, scaling: {minAgents: 1.5}}\n", "fractional minAgents"},
		{"Agent", "apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: x}\nspec: {image: r.example/a:1, replicas: 2}\n", "unknown spec field"},
		{"Agent", "apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: x}\nspec: {image: r.example/a:1}\nstatus: {state: ready}\n", "status"},
	}
	for _, b := range bad {
		if err := schemas[b.kind].Validate(yamlToJSON(t, b.doc)); err == nil {
			t.Errorf("%s (%s): the schema accepts it", b.kind, b.why)
		}
		if b.kind == "ProjectConfig" {
			// botkit create -c refuses it: decoding, or validating what
			// was decoded.
			if p, err := scaffold.DecodeConfigFile("x.yaml", []byte(b.doc)); err == nil && len(scaffold.Validate(scaffold.Resolve(p))) == 0 {
				t.Errorf("ProjectConfig (%s): botkit create -c accepts it", b.why)
			}
			continue
		}
		if _, problems, _ := apply.Decode("x.yaml", []byte(b.doc)); len(problems) == 0 {
			t.Errorf("%s (%s): the decoder accepts it", b.kind, b.why)
		}
	}
}

// The ProjectConfig schema has exactly the config keys of botkit create
// (except project_name, which is metadata.name).
func TestProjectConfigSchemaKeys(t *testing.T) {
	data, err := Schema("ProjectConfig")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Spec struct {
				Properties map[string]any `json:"properties"`
			} `json:"spec"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range scaffold.ConfigKeys() {
		if k != "project_name" {
			want = append(want, k)
		}
	}
	if len(s.Properties.Spec.Properties) != len(want) {
		t.Errorf("schema spec keys %d, config keys %d", len(s.Properties.Spec.Properties), len(want))
	}
	for _, k := range want {
		if _, ok := s.Properties.Spec.Properties[k]; !ok {
			t.Errorf("config key %s missing from the schema", k)
		}
	}
	if strings.Contains(string(data), `"project_name"`) {
		t.Error("project_name in the ProjectConfig schema")
	}
}

// The schema of apply's and diff's -o json is generated from
// resources.ApplyReport, and what they print validates against it.
func TestReportSchema(t *testing.T) {
	want, err := ReportSchema()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testenv.RepoRoot(t), "manifests", "schema", ReportFile)
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is out of date (%v): run go test ./internal/schemagen -run TestReportSchema -update", path, err)
	}
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(ReportFile, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(ReportFile)
	if err != nil {
		t.Fatal(err)
	}
	obj := resources.Object{SecretSet: &resources.SecretSet{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
		Metadata: resources.ObjectMeta{Name: "app"}, Spec: resources.SecretSetSpec{Keys: []string{"A"}}}}
	rep := resources.ApplyReport{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindApplyResult}, ApplySet: "voice",
		Items: []resources.ApplyReportItem{{Kind: resources.KindSecretSet, Name: "app", Organization: "acme", Region: "us-west", Action: resources.ActionConfigured,
			ResourceVersion: "3", Version: 2, ApplySet: "voice",
			Keys:   []resources.KeyChange{{Key: "A", Change: resources.ChangeChanged}},
			Fields: []resources.FieldChange{{Field: "metadata.labels", Change: resources.ChangeChanged}},
			Labels: []resources.LabelChange{{Label: "team", Change: resources.ChangeChanged, From: "voice", To: "support"}},
			Object: &obj}}}
	check := func(name string, r resources.ApplyReport, valid bool) {
		t.Helper()
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); (err == nil) != valid {
			t.Errorf("%s: valid %v, want %v (%v)", name, err == nil, valid, err)
		}
	}
	check("apply result", rep, true)
	bad := rep
	bad.Items = []resources.ApplyReportItem{rep.Items[0]}
	bad.Items[0].Action = "exploded"
	check("unknown action", bad, false)
}

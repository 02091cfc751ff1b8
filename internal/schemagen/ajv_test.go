package schemagen

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// The committed schemas pass an independent validator, ajv (ajv-cli from
// npm), in strict mode, and agree with botkit on documents: the examples
// in manifests/ pass; a bot type or transport the catalogue lacks, a label
// key with a space, a SecretSet without spec or with spec: null fail.
func TestSchemasWithAjv(t *testing.T) {
	if testing.Short() {
		t.Skip("npm ci of ajv-cli; run without -short")
	}
	npm := testenv.LookPath(t, "npm")
	dir := t.TempDir()
	for _, name := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "ajv", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := os.Getenv("BOTKIT_NPM_CACHE")
	if cache == "" {
		cache = t.TempDir()
	}
	install := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--prefer-offline")
	install.Dir = dir
	install.Env = append(os.Environ(), "npm_config_cache="+cache, "npm_config_update_notifier=false")
	if out, err := install.CombinedOutput(); err != nil {
		testenv.Missing(t, "npm ci of ajv-cli failed (the npm registry is needed once): %v\n%s", err, out)
	}
	ajv := filepath.Join(dir, "node_modules", ".bin", "ajv")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(ajv, append(args, "--spec=draft2020", "--strict=true", "-c", "ajv-formats")...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	schemas := filepath.Join(testenv.RepoRoot(t), "manifests", "schema")
	for _, kind := range SchemaKinds() {
		if out, err := run("compile", "-s", filepath.Join(schemas, SchemaFile(kind))); err != nil {
			t.Errorf("ajv --strict refuses %s: %v\n%s", SchemaFile(kind), err, out)
		}
	}
	// asJSON writes a YAML document as a JSON file for ajv.
	asJSON := func(name, doc string) string {
		var v any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), name+".json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	manifests := filepath.Join(testenv.RepoRoot(t), "manifests")
	for kind, file := range map[string]string{"SecretSet": "secretset.yaml", "ImagePullSecret": "imagepullsecret.yaml", "ProjectConfig": "projectconfig.yaml"} {
		data, err := os.ReadFile(filepath.Join(manifests, file))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := run("validate", "-s", filepath.Join(schemas, SchemaFile(kind)), "-d", asJSON(file, string(data))); err != nil {
			t.Errorf("ajv refuses manifests/%s: %v\n%s", file, err, out)
		}
	}
	for _, bad := range []struct{ kind, why, doc string }{
		{"ProjectConfig", "bot_type: robot", "apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata: {name: x}\nspec: {bot_type: robot}\n"},
		{"ProjectConfig", "an unknown transport", "apiVersion: botkit.dev/v1\nkind: ProjectConfig\nmetadata: {name: x}\nspec: {transports: [carrier_pigeon]}\n"},
		{"SecretSet", "a label key with a space", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x, labels: {bad key!: x}}\nspec: {data: {}}\n"},
		{"SecretSet", "spec: null", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec: null\n"},
		{"SecretSet", "no spec", "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\n"},
		{"ImagePullSecret", "a label key with a slash too many", "apiVersion: botkit.dev/v1\nkind: ImagePullSecret\nmetadata: {name: x, labels: {a/b/c: x}}\nspec: {host: ghcr.io, credentials: {fromEnv: C}}\n"},
	} {
		out, err := run("validate", "-s", filepath.Join(schemas, SchemaFile(bad.kind)), "-d", asJSON("bad", bad.doc))
		if err == nil || !strings.Contains(out, "invalid") {
			t.Errorf("ajv accepts a %s with %s:\n%s", bad.kind, bad.why, out)
		}
	}
}

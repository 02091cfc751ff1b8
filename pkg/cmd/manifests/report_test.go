package manifests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// What diff -o json and apply -o json print validates against
// manifests/schema/applyreport.schema.json, and holds no value.
func TestReportsMatchTheirSchema(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "manifests", "schema", "applyreport.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("report.json")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	m := e.write("m.yaml", set("a", ", labels: {team: voice}")+set("b", ""))
	s := e.scope(m)
	validate := func(what string) {
		t.Helper()
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(e.out.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, e.out)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %v\n%s", what, err, e.out)
		}
		e.noCanary(nil)
		e.out.Reset()
	}
	json := func() *printers.Flags { p := newDiffPrintFlags(); p.Output = printers.FormatJSON; return p }
	if err := runDiff(context.Background(), &DiffOptions{ManifestOptions: s, Print: json()}); err != ErrDifferences {
		t.Fatalf("diff: %v, want differences", err)
	}
	validate("diff")
	for _, dry := range []string{DryRunNone, DryRunServer, DryRunClient} {
		if err := runApply(context.Background(), &ApplyOptions{ManifestOptions: s, DryRun: dry, Print: jsonOutput()}); err != nil {
			t.Fatal(err)
		}
		validate("apply --dry-run=" + dry)
	}
}

package printers

import (
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// A report printed with -o yaml keeps its fields in the order of its type
// (a check starts with its id), and still reads back as the same value:
// strings that look like numbers or booleans stay strings.
func TestPrintRowsYAMLKeepsFieldOrder(t *testing.T) {
	report := resources.PreflightReport{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: "PreflightReport"},
		Metadata: resources.PreflightMeta{File: "cloud-deploy.toml"},
		Result:   "ok",
		Checks: []resources.PreflightCheck{
			{ID: "region", Result: "ok", Detail: "123", Line: 3},
			{ID: "image", Result: "ok", Detail: "true: yes, a: b"},
		},
	}
	ios, _, out, _ := iostreams.Test()
	if err := PrintRows(ios, FormatYAML, []string{"CHECK"}, [][]string{{"region"}}, report); err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: ` + resources.APIVersion + `
kind: PreflightReport
metadata:
  file: cloud-deploy.toml
result: ok
checks:
- id: region
  result: ok
  detail: "123"
  line: 3
- id: image
  result: ok
  detail: 'true: yes, a: b'
`
	if out.String() != want {
		t.Fatalf("-o yaml:\n%s\nwant:\n%s", out, want)
	}
	var back resources.PreflightReport
	if err := yaml.UnmarshalStrict(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Checks[0].Detail != "123" || back.Checks[1].Detail != "true: yes, a: b" {
		t.Fatalf("read back: %+v", back.Checks)
	}
}

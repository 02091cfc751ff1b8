package printers

import (
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// canary is planted in every value and credential of the fixtures; no output
// may contain it.
const canary = "canary-5ecret-VALUE"

var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) *time.Time { t := now.Add(-d); return &t }

func fixtures() map[string]resources.Object {
	encode := true
	creds := resources.Literal("robot:" + canary)
	return map[string]resources.Object{
		"secretset": {SecretSet: &resources.SecretSet{
			TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
			Metadata: resources.ObjectMeta{
				Name: "support-bot", Organization: "acme", Region: "us-west",
				Labels:          map[string]string{"tier": "prod", "team": "voice"},
				ResourceVersion: "7", CreationTimestamp: ago(5 * time.Minute), UpdateTimestamp: ago(time.Minute),
			},
			Spec:   resources.SecretSetSpec{Keys: []string{"LOG_LEVEL", "OPENAI_API_KEY"}},
			Status: &resources.Status{State: resources.StateReady},
		}},
		// An input object (as read from a manifest): data holds values,
		// which must show as key names only.
		"input": {SecretSet: &resources.SecretSet{
			Metadata: resources.ObjectMeta{Name: "billing-bot", Region: "eu-central"},
			Spec: resources.SecretSetSpec{Data: map[string]resources.ValueSource{
				"STRIPE_KEY": resources.Literal(canary),
				"DB_URL":     resources.Literal("postgres://u:" + canary + "@db/x"),
				"FROM_ENV":   {FromEnv: "SOME_VAR"},
			}},
		}},
		"imagepullsecret": {ImagePullSecret: &resources.ImagePullSecret{
			TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindImagePullSecret},
			Metadata: resources.ObjectMeta{
				Name: "ghcr-creds", Organization: "acme", Region: "eu-central",
				CreationTimestamp: ago(3*24*time.Hour + 5*time.Hour),
			},
			Spec: resources.ImagePullSecretSpec{Host: "https://ghcr.io", Username: "robot", Credentials: &creds, Encode: &encode},
			Status: &resources.Status{State: resources.StateFailed,
				Message: "registry https://ghcr.io answered 401 Unauthorized\nto the given credentials"},
		}},
		"pending": {SecretSet: &resources.SecretSet{
			TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
			Metadata: resources.ObjectMeta{Name: "old-bot", Organization: "acme", Region: "ap-south",
				CreationTimestamp: ago(400 * 24 * time.Hour)},
			Status: &resources.Status{State: resources.StatePending},
		}},
	}
}

func several() []resources.Object {
	f := fixtures()
	return []resources.Object{f["secretset"], f["imagepullsecret"], f["input"], f["pending"]}
}

func print(t *testing.T, format string, do func(Printer, *iostreams.IOStreams) error) (string, string) {
	t.Helper()
	p, err := New(format, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	ios, _, out, errOut := iostreams.Test()
	if err := do(p, ios); err != nil {
		t.Fatalf("print: %v", err)
	}
	return out.String(), errOut.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update after checking):\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

// TestGolden prints every case in every format and compares stdout and
// stderr with testdata/FORMAT-CASE.golden.
func TestGolden(t *testing.T) {
	f := fixtures()
	cases := map[string]func(Printer, *iostreams.IOStreams) error{
		"list":  func(p Printer, s *iostreams.IOStreams) error { return p.PrintList(s, several()) },
		"empty": func(p Printer, s *iostreams.IOStreams) error { return p.PrintList(s, nil) },
		"one-item-list": func(p Printer, s *iostreams.IOStreams) error {
			return p.PrintList(s, []resources.Object{f["secretset"]})
		},
	}
	for _, name := range []string{"secretset", "imagepullsecret", "input", "pending"} {
		o := f[name]
		cases["object-"+name] = func(p Printer, s *iostreams.IOStreams) error { return p.PrintObject(s, o) }
	}
	for _, format := range Formats() {
		for name, do := range cases {
			t.Run(format+"-"+name, func(t *testing.T) {
				out, errOut := print(t, format, do)
				if strings.Contains(out+errOut, canary) {
					t.Fatalf("output holds a secret value:\n%s%s", out, errOut)
				}
				golden(t, format+"-"+name, "-- stdout --\n"+out+"-- stderr --\n"+errOut)
			})
		}
	}
}

func TestEmptyResult(t *testing.T) {
	for _, format := range Formats() {
		out, errOut := print(t, format, func(p Printer, s *iostreams.IOStreams) error { return p.PrintList(s, []resources.Object{}) })
		switch format {
		case FormatJSON:
			if errOut != "" || !strings.Contains(out, `"items": []`) {
				t.Errorf("json: out %q err %q", out, errOut)
			}
		case FormatYAML:
			if errOut != "" || !strings.Contains(out, "items: []") {
				t.Errorf("yaml: out %q err %q", out, errOut)
			}
		default:
			if out != "" || errOut != NoResourcesMessage+"\n" {
				t.Errorf("%s: out %q err %q", format, out, errOut)
			}
		}
	}
}

// TestMachineFormatsDecode checks that json and yaml output decodes back into
// the resources types: a List for several, the bare object for one.
func TestMachineFormatsDecode(t *testing.T) {
	for _, format := range []string{FormatJSON, FormatYAML} {
		out, _ := print(t, format, func(p Printer, s *iostreams.IOStreams) error { return p.PrintList(s, several()) })
		var l resources.List
		if err := yaml.Unmarshal([]byte(out), &l); err != nil {
			t.Fatalf("%s list: %v", format, err)
		}
		if l.Kind != resources.KindList || l.APIVersion != resources.APIVersion || len(l.Items) != 4 {
			t.Fatalf("%s list: %+v", format, l)
		}
		if got := l.Items[2].SecretSet; got == nil || strings.Join(got.Spec.Keys, ",") != "DB_URL,FROM_ENV,STRIPE_KEY" || got.Spec.Data != nil {
			t.Errorf("%s: input object printed as %+v", format, got)
		}
		if got := l.Items[1].ImagePullSecret; got == nil || got.Spec.Credentials != nil || got.Spec.Username != "robot" {
			t.Errorf("%s: image pull secret printed as %+v", format, got)
		}
		out, _ = print(t, format, func(p Printer, s *iostreams.IOStreams) error { return p.PrintObject(s, fixtures()["secretset"]) })
		var o resources.Object
		if err := yaml.Unmarshal([]byte(out), &o); err != nil || o.SecretSet == nil || o.SecretSet.Metadata.Name != "support-bot" {
			t.Fatalf("%s object: %v %+v", format, err, o)
		}
	}
}

// TestPrintingDoesNotModify makes sure redaction works on a copy: the caller's
// object still holds its data after printing.
func TestPrintingDoesNotModify(t *testing.T) {
	objs := several()
	for _, format := range Formats() {
		print(t, format, func(p Printer, s *iostreams.IOStreams) error { return p.PrintList(s, objs) })
	}
	if len(objs[2].SecretSet.Spec.Data) != 3 || objs[1].ImagePullSecret.Spec.Credentials == nil {
		t.Error("printing modified the caller's objects")
	}
}

func TestEmptyObjectIsAnError(t *testing.T) {
	for _, format := range Formats() {
		p, err := New(format, nil)
		if err != nil {
			t.Fatal(err)
		}
		ios, _, _, _ := iostreams.Test()
		if err := p.PrintList(ios, []resources.Object{{}}); err == nil {
			t.Errorf("%s: empty object printed", format)
		}
		if err := p.PrintObject(ios, resources.Object{}); err == nil {
			t.Errorf("%s: empty object printed", format)
		}
	}
}

func TestFlags(t *testing.T) {
	for args, want := range map[string]string{"": FormatTable, "-o json": FormatJSON, "--output=yaml": FormatYAML, "-owide": FormatWide, "-o name": FormatName} {
		f := NewFlags()
		cmd := &cobra.Command{Use: "x"}
		f.AddFlags(cmd)
		if err := cmd.Flags().Parse(strings.Fields(args)); err != nil {
			t.Fatal(err)
		}
		if f.Output != want {
			t.Errorf("%q: output %q, want %q", args, f.Output, want)
		}
		if _, err := f.ToPrinter(); err != nil {
			t.Errorf("%q: %v", args, err)
		}
		if f.IsTable() != (want == FormatTable || want == FormatWide) {
			t.Errorf("%q: IsTable %v", args, f.IsTable())
		}
	}
	cmd := &cobra.Command{Use: "x"}
	NewFlags().AddFlags(cmd)
	if usage := cmd.Flags().Lookup("output").Usage; !strings.Contains(usage, "table|wide|json|yaml|name") {
		t.Errorf("usage %q does not list the formats", usage)
	}
}

func TestUnknownFormat(t *testing.T) {
	f := &Flags{Output: "jsn"}
	_, err := f.ToPrinter()
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("error %v: exit %d, want a usage error", err, cmdutil.ExitCode(err))
	}
	if want := `--output: unknown value "jsn" (valid: table, wide, json, yaml, name)`; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	// A command that allows fewer formats names those.
	f = NewFlags().WithLines().WithFormats(FormatJSON, FormatName)
	f.Output = FormatTable
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "(valid: json, name)") {
		t.Errorf("-o table where json and name are allowed: %v", err)
	}
	// Parsed by cobra, the same check refuses it before the command runs.
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { t.Error("ran"); return nil }}
	NewFlags().WithLines().WithFormats(FormatJSON, FormatName).AddFlags(cmd)
	cmd.SetArgs([]string{"-o", "table"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "(valid: json, name)") {
		t.Errorf("parsed -o table: %v", err)
	}
}

func TestOperation(t *testing.T) {
	var b strings.Builder
	err := PrintOperations(&b,
		Operation{Ref: "secretset/app", Action: "configured"},
		Operation{Ref: "secretset/new", Action: "created", Detail: "added A, B", DryRun: true},
		Operation{Ref: "secretset/x\x1b[31m", Action: "deleted"})
	if err != nil {
		t.Fatal(err)
	}
	want := "secretset/app configured\nsecretset/new created: added A, B (dry run)\n"
	if got := b.String(); !strings.HasPrefix(got, want) || strings.Contains(got, "\x1b") {
		t.Errorf("lines %q, want %q and a printable third line", got, want)
	}
}

func TestName(t *testing.T) {
	f := fixtures()
	if got := Name(f["secretset"]); got != "secretset/support-bot" {
		t.Error(got)
	}
	if got := Name(f["imagepullsecret"]); got != "imagepullsecret/ghcr-creds" {
		t.Error(got)
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Hour: "0s", 0: "0s", 59 * time.Second: "59s", time.Minute: "1m", 59*time.Minute + 59*time.Second: "59m",
		time.Hour: "1h", 23 * time.Hour: "23h", 24 * time.Hour: "1d", 364 * 24 * time.Hour: "364d",
		365 * 24 * time.Hour: "1y", 800 * 24 * time.Hour: "2y",
	} {
		if got := Age(ago(d), now); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
	if got := Age(nil, now); got != "<unknown>" {
		t.Errorf("Age(nil) = %q", got)
	}
}

// -o json and -o yaml of a list are the contract's List (api/openapi.yaml,
// checked with kin-openapi), empty or not.
func TestListIsTheContractsList(t *testing.T) {
	c := apitest.Load(t)
	schema := c.Doc.Components.Schemas["List"].Value
	for _, objs := range [][]resources.Object{nil, slices.Collect(maps.Values(fixtures()))} {
		for _, format := range []string{FormatJSON, FormatYAML} {
			out, _ := print(t, format, func(p Printer, s *iostreams.IOStreams) error { return p.PrintList(s, objs) })
			var v any
			if err := yaml.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			if err := schema.VisitJSON(v); err != nil {
				t.Errorf("-o %s of %d objects is not the contract's List: %v\n%s", format, len(objs), err, out)
			}
		}
	}
}

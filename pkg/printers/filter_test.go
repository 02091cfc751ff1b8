package printers

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// parse binds f to a command and parses args as cobra would.
func parse(t *testing.T, f *Flags, args ...string) error {
	t.Helper()
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &cmdutil.FlagError{Err: err} })
	f.AddFlags(cmd)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.Execute()
}

// printFiltered prints the fixtures as a List and as one object with the
// flags args.
func printFiltered(t *testing.T, f *Flags, args ...string) (list, one string) {
	t.Helper()
	if err := parse(t, f, args...); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	p, err := f.ToPrinter()
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	ios, _, out, errOut := iostreams.Test()
	if err := p.PrintList(ios, several()); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	list = out.String()
	out.Reset()
	if err := p.PrintObject(ios, fixtures()["secretset"]); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	if errOut.Len() > 0 {
		t.Errorf("%q: stderr %q", args, errOut)
	}
	return list, out.String()
}

func TestJQ(t *testing.T) {
	list, one := printFiltered(t, NewFlags(), "--jq", "if .items then .items[].metadata.name else .metadata.name end")
	if want := "support-bot\nghcr-creds\nbilling-bot\nold-bot\n"; list != want {
		t.Errorf("list: %q, want %q", list, want)
	}
	if want := "support-bot\n"; one != want {
		t.Errorf("object: %q, want %q", one, want)
	}
	// Values that are not strings are compact JSON, one a line; the JSON
	// form is -o json's: key names, never a value.
	list, _ = printFiltered(t, NewFlags(), "-o", "json", "--jq", ".items[]? | {name: .metadata.name, keys: .spec.keys}")
	if !strings.HasPrefix(list, `{"keys":["LOG_LEVEL","OPENAI_API_KEY"],"name":"support-bot"}`+"\n") {
		t.Errorf("objects: %q", list)
	}
	all, _ := printFiltered(t, NewFlags(), "--jq", "..")
	if strings.Contains(all, canary) {
		t.Errorf("--jq .. shows a value: %s", all)
	}
	// A command whose default is its own lines prints the objects.
	f := NewFlags().WithLines().WithFormats(FormatJSON, FormatYAML, FormatName)
	if err := parse(t, f, "--jq", ".kind"); err != nil || f.Lines() {
		t.Errorf("--jq on a command with lines: %v, Lines %v", err, f.Lines())
	}
}

func TestTemplates(t *testing.T) {
	want := "support-bot 7\nghcr-creds \nbilling-bot \nold-bot \n"
	tmpl := `{{range .items}}{{.metadata.name}} {{or .metadata.resourceVersion ""}}{{"\n"}}{{end}}`
	file := filepath.Join(t.TempDir(), "t.tmpl")
	if err := os.WriteFile(file, []byte(tmpl), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--template", tmpl},
		{"-o", "go-template", "--template", tmpl},
		{"-o", "go-template=" + tmpl},
		{"--output=go-template-file=" + file},
	} {
		list, _ := printFiltered(t, NewFlags(), args...)
		if list != want {
			t.Errorf("%q: %q, want %q", args, list, want)
		}
	}
	// A template sees what -o json shows: never a value.
	if list, one := printFiltered(t, NewFlags(), "--template", "{{.}}"); strings.Contains(list+one, canary) {
		t.Errorf("--template {{.}} shows a value: %s%s", list, one)
	}
	// One object is the object itself; numbers print as written.
	_, one := printFiltered(t, NewFlags(), "--template", `{{.metadata.name}} version {{.metadata.resourceVersion}} {{if .spec}}{{len .spec.keys}}{{end}} keys`)
	if one != "support-bot version 7 2 keys" {
		t.Errorf("object: %q", one)
	}
}

// An expression or template that does not parse is a usage error naming the
// flag, when the flag is parsed; combinations that make no sense too.
func TestFilterErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--jq", ".items["}, `"--jq"`},
		{[]string{"--template", "{{.x"}, `"--template"`},
		{[]string{"-o", "go-template={{if}}"}, `"-o, --output"`},
		{[]string{"-o", "go-template-file=/nonexistent/t.tmpl"}, "go-template-file"},
		{[]string{"-o", "yaml", "--jq", ".x"}, "--jq filters the JSON output"},
		{[]string{"--jq", ".x", "--template", "x"}, "--jq and a template"},
		{[]string{"-o", "go-template"}, "-o go-template needs a template"},
		{[]string{"-o", "table", "--template", "x"}, "--template goes with -o go-template"},
	} {
		f := NewFlags()
		err := parse(t, f, c.args...)
		if err == nil {
			_, err = f.ToPrinter()
		}
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v (exit %d), want a usage error with %q", c.args, err, cmdutil.ExitCode(err), c.want)
		}
	}
	// Set without cobra (a run function's test), checked by Validate.
	for _, f := range []*Flags{{JQ: "{"}, {Template: "{{"}, {Output: "go-template={{end}}"}} {
		if err := f.Validate(); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%+v: %v, want a usage error", f, err)
		}
	}
	// An expression that fails on the data: a usage error naming the flag,
	// nothing printed.
	for flag, f := range map[string]*Flags{"--jq": {JQ: `.items[] | error("boom")`}, "--template": {Template: `{{index .items 99}}`}} {
		p, err := f.ToPrinter()
		if err != nil {
			t.Fatal(err)
		}
		ios, _, out, _ := iostreams.Test()
		err = p.PrintList(ios, several())
		var fe *cmdutil.FlagError
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), flag+": ") {
			t.Errorf("%s failing at run time: %v", flag, err)
		}
		if out.Len() > 0 {
			t.Errorf("%s failing at run time printed %q", flag, out)
		}
	}
	// No --jq where json is not a format.
	cmd := &cobra.Command{Use: "x"}
	NewFlags().WithFormats(FormatTable, FormatName).AddFlags(cmd)
	if cmd.Flags().Lookup("jq") != nil || cmd.Flags().Lookup("template") != nil {
		t.Error("--jq or --template on a command without -o json")
	}
}

func TestPrintRowsFiltered(t *testing.T) {
	f := NewFlags()
	if err := parse(t, f, "--jq", ".items | length"); err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := iostreams.Test()
	if err := f.PrintRows(ios, []string{"NAME"}, [][]string{{"a"}, {"b"}}, map[string]any{"items": []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "2\n" {
		t.Errorf("got %q", out)
	}
}

package apply

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// manifestTemplates place a value (%V%) in the value positions of
// manifests, well-formed or not.
var manifestTemplates = []string{
	"apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec:\n  data:\n    A: %V%\n",
	"apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec:\n  data:\n    A: \"%V%\"\n",
	"apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec:\n  data:\n    A: '%V%'\n    B: |\n      %V%\n",
	"apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec:\n  data:\n    A: [\"%V%\"]\n",
	"apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec:\n  data:\n    A: {fromEnv: E, other: \"%V%\"}\n",
	"apiVersion: botkit.dev/v1\nkind: ImagePullSecret\nmetadata: {name: x}\nspec: {host: ghcr.io, credentials: \"%V%\"}\n",
	"apiVersion: botkit.dev/v1\nkind: ImagePullSecret\nmetadata: {name: x}\nspec: {host: ghcr.io, credentials: %V%, encode: %V%}\n",
	`{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"x"},"spec":{"data":{"A":"%V%"}}}`,
	`{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"x"},"spec":{"data":{"A":%V%}}}`,
	`{"apiVersion":"botkit.dev/v1","kind":"List","items":[{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"x"},"spec":{"data":{"A":"%V%","A":"%V%"}}}]}`,
	"apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x}\nspec:\n  data:\n    A: \"%V%\n---\nkind: [\n",
	"apiVersion: botkit.dev/v1\nkind: Agent\nmetadata: {name: x}\nspec: {image: 'r.example/a:1', scaling: {minAgents: %V%, maxAgents: %V%}}\n",
}

// FuzzDecode feeds manifests to the decoder: it never panics, every
// problem has a line within the input and valid UTF-8, and no problem
// holds the value placed in a value position. The seeds are kept in
// testdata/fuzz/FuzzDecode and f.Add.
func FuzzDecode(f *testing.F) {
	for i := range manifestTemplates {
		for _, v := range []string{"s3cr3t-value", `a"b\c`, "12345678", "\xff\xfe", "multi\nline: value", "{fromEnv: X}", "- item"} {
			f.Add(uint8(i), v)
		}
	}
	f.Fuzz(func(t *testing.T, tmpl uint8, value string) {
		value = "Zq9" + value // a value that no message or key text starts with
		src := strings.ReplaceAll(manifestTemplates[int(tmpl)%len(manifestTemplates)], "%V%", value)
		lines := strings.Count(src, "\n") + strings.Count(src, "\r") + 1 // YAML breaks lines at \r too
		docs, problems, _ := Decode("m.yaml", []byte(src))
		for _, p := range problems {
			msg := p.String()
			if len(value) >= 7 && strings.Contains(msg, value) {
				t.Fatalf("problem %q holds the value %q", msg, value)
			}
			if !utf8.ValidString(msg) {
				t.Fatalf("problem is not UTF-8: %q", msg)
			}
			if p.Line < 0 || p.Line > lines+1 {
				t.Fatalf("problem line %d outside the input (%d lines): %s", p.Line, lines, msg)
			}
		}
		for _, d := range docs {
			if d.Object.Kind() == "" || d.Name() == "" {
				t.Fatalf("a document without kind or name: %+v", d)
			}
		}
	})
}

// FuzzDecodeRaw feeds arbitrary bytes: no panic, and a document returned
// without problems is complete.
func FuzzDecodeRaw(f *testing.F) {
	for _, tmpl := range manifestTemplates {
		f.Add([]byte(strings.ReplaceAll(tmpl, "%V%", "v")))
	}
	f.Add([]byte("apiVersion: botkit.dev/v1\nkind: List\nitems:\n- &a {apiVersion: botkit.dev/v1, kind: SecretSet, metadata: {name: x}}\n- *a\n"))
	f.Add([]byte("{\"a\":1}\n{\"b\":"))
	f.Add([]byte("apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata: {name: x, labels: {sealed: \"true\"}}\nspec:\n  data:\n    A:\n      sealed: >-\n        v1.x\n    B: {sealed: |\n        v1.y\n      }\n"))
	f.Add([]byte("{\"kind\":\"SecretSet\",\"spec\":{\"data\":{\"A\":{\"sealed\":\"v\"}}}} {\"kind\":\"List\",\"items\":[{\"kind\":\"SecretSet\",\"spec\":{\"data\":{\"B\":{\"sealed\":\"é\"}}}}]}"))
	f.Add([]byte("kind: " + strings.Repeat("[", 100)))
	f.Add([]byte("a:\n" + strings.Repeat("  b:\n", 20)))
	f.Add([]byte("{\"spec\":" + strings.Repeat("{\"a\":", 20)))
	f.Add([]byte("a: |\n  [[[[[[[[[[[[[[[[[[[[\nb: '[[[[[[[[[[[[[[[[[['\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// reseal's reading: every sealed value at a line of the input.
		srcs, _ := SealedSources("m.yaml", data)
		lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 1
		for _, s := range srcs {
			if s.Line < 1 || s.Line > lines || s.Column < 1 {
				t.Fatalf("sealed value at %d:%d, outside the input (%d lines)", s.Line, s.Column, lines)
			}
		}
		docs, problems, _ := Decode("m.yaml", data)
		if len(problems) == 0 {
			for _, d := range docs {
				if d.Object.Meta() == nil || d.Name() == "" {
					t.Fatalf("incomplete document: %+v", d)
				}
			}
		}
	})
}

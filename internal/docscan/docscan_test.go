package docscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func nest(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

func TestJSON(t *testing.T) {
	for _, c := range []struct {
		doc     string
		problem Problem
		line    int
		path    string
	}{
		{`{"objects":[{"spec":{"data":{"A":{"sealed":"v1.x"}}}}]}`, 0, 0, ""},
		{nest("[", "]", MaxDepth), 0, 0, ""},
		{nest("[", "]", MaxDepth+1), TooDeep, 1, strings.Repeat("[0]", MaxDepth)},
		{strings.Repeat("[", 1<<20), TooDeep, 1, strings.Repeat("[0]", MaxDepth)},
		{"{\"a\":1,\n\"b\":" + nest(`{"c":`, "}", MaxDepth) + "}", TooDeep, 2, "b" + strings.Repeat(".c", MaxDepth-1)},
		{`["x",` + nest("[", "]", MaxDepth) + `]`, TooDeep, 1, "[1]" + strings.Repeat("[0]", MaxDepth-1)},
		{`{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[\"[["}`, 0, 0, ""},
		{`{"set":{"A":"\udc00x"}}`, LoneSurrogate, 1, "set.A"},
		{`{"set":{"A":"x\ud800"}}`, LoneSurrogate, 1, "set.A"},
		{`{"set":{"A":"\ud800\u0041"}}`, LoneSurrogate, 1, "set.A"},
		{`{"remove":["B","\uDFFF"]}`, LoneSurrogate, 1, "remove[1]"},
		{`{"set":{"\udc00":"x"}}`, LoneSurrogate, 1, "set"},
		{`{"set":{"A":"\ud83d\ude00 \u00e9 \\udc00"}}`, 0, 0, ""},
		{`{"set":{"A\"b":{"c":"\udc00"}}}`, LoneSurrogate, 1, `A"b.c`},
		{`{"set":{"A":"\ud800`, LoneSurrogate, 1, "set.A"},
		{`{"set":{"A":"\ud8`, 0, 0, ""},
	} {
		err := JSON([]byte(c.doc))
		if c.problem == 0 {
			if err != nil {
				t.Errorf("%.60q: %v", c.doc, err)
			}
			continue
		}
		if c.path != "" && strings.HasPrefix(c.path, `A"`) {
			c.path = "set." + c.path
		}
		if err == nil || err.Problem != c.problem || err.Line != c.line || err.Path != c.path {
			t.Errorf("%.60q: %#v, want problem %d at line %d, path %q", c.doc, err, c.problem, c.line, c.path)
		}
	}
}

func TestTOML(t *testing.T) {
	for _, c := range []struct {
		doc  string
		line int // 0: no error
	}{
		{"[service]\nname = \"bot\"\nports = [[1, 2], [3]]\n", 0},
		{"x = " + nest("[", "]", MaxDepth) + "\n", 0},
		{"x = " + nest("[", "]", MaxDepth+1) + "\n", 1},
		{"# a comment [[[[[[[[[[[[[[[[[[[[\n\nx = " + strings.Repeat("[", 1<<20), 3},
		{"[a]\nx = " + nest("{y = ", "}", MaxDepth) + "\n", 2},
		{"[a]\nx = " + nest("{y = ", "}", MaxDepth-1) + "\n", 0},
		{"[" + strings.Repeat("a.", MaxDepth) + "a]\n", 1},
		{"[[" + strings.Repeat("a.", MaxDepth-2) + "a]]\n", 0},
		{"s = \"[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"[\"\nl = '[[[[[[[[[[[[[[[[[[[[[[[[[['\n", 0},
		{"m = \"\"\"\n[[[[[[[[[[[[[[[[[[[[[[[[[[\n\"\"\"\nn = '''[[[[[[[[[[[[[[[[[[[[[[[[''''\n", 0},
		{"x = [\n  [1],\n  [2],\n]\n[t]\ny = 1\n", 0},
	} {
		err := TOML([]byte(c.doc))
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%.60q: %v", c.doc, err)
		case c.line != 0 && (err == nil || err.Problem != TooDeep || err.Line != c.line):
			t.Errorf("%.60q: %#v, want too deep at line %d", c.doc, err, c.line)
		}
	}
}

func TestJSONMembers(t *testing.T) {
	for _, c := range []struct {
		doc  string
		path string // "": no error
	}{
		{`{"objects":[` + strings.Repeat(`{},`, 9) + `{}]}`, ""},
		{`{"objects":[` + strings.Repeat(`{},`, 10) + `{}]}`, "objects"},
		{`{"a":{"b":[1,2],` + strings.Repeat(`"k":1,`, 10) + `"z":1}}`, "a"},
		{strings.Repeat(`1,`, 20), ""}, // not in a container: the decoder refuses it
		{`[[` + strings.Repeat(`1,`, 20) + `1]]`, "[0]"},
	} {
		err := JSONMembers([]byte(c.doc), 10)
		switch {
		case c.path == "" && err != nil:
			t.Errorf("%.60q: %v", c.doc, err)
		case c.path != "" && (err == nil || err.Problem != TooManyMembers || err.Path != c.path || !strings.Contains(err.Error(), "more than 10 members")):
			t.Errorf("%.60q: %#v, want too many members at %q", c.doc, err, c.path)
		}
	}
	if err := JSON([]byte(`[` + strings.Repeat(`1,`, 100000) + `1]`)); err != nil {
		t.Errorf("JSON has no member limit: %v", err)
	}
}

func TestErrorNamesThePathNeverAValue(t *testing.T) {
	err := JSON([]byte(`{"set":{"TOKEN":"s3cret-value\udc00"}}`))
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), `"set.TOKEN"`) {
		t.Fatalf("got %v", err)
	}
}

func BenchmarkJSONDeep(b *testing.B) {
	doc := []byte(strings.Repeat("[", 1<<20))
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		_ = JSON(doc)
	}
}

func BenchmarkJSONApply(b *testing.B) {
	doc := []byte(`{"objects":[` + strings.Repeat(`{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot","labels":{"team":"voice"}},"spec":{"data":{"A":"value","B":{"sealed":"v1.0123456789abcdef.abc"}}}},`, 1000) + `{}]}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if err := JSON(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func TestYAML(t *testing.T) {
	for _, c := range []struct {
		doc  string
		line int // 0: no error
	}{
		{"a: " + nest("[", "]", MaxDepth) + "\n", 0},
		{"a: " + nest("[", "]", MaxDepth+1) + "\n", 1},
		{"kind: x\nb: " + strings.Repeat("[", 1<<20), 2},
		{"a: {b: [c, {d: " + nest("[", "]", MaxDepth) + "}]}\n", 1},
		{"- - " + nest("{x: ", "}", MaxDepth+1) + "\n", 1},
		{"a: x[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\nb: '[[[[[[[[[[[[[[[[[[[[['' [[[['\nc: \"[[[[[[[[[[[[[[[[[[[[[\\\" [[[[\"\n", 0},
		{"# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\na: b # [[[[[[[[[[[[[[[[[[[[[[[[[\n", 0},
		{"a: |\n  [[[[[[[[[[[[[[[[[[[[[[[[[[[[\n\n  [[[[[[[[[[[[[[[[[[[[[[[\nb: >-\n  {{{{{{{{{{{{{{{{{{{{{{{{{{{\nc: " + nest("[", "]", MaxDepth+1), 7},
		{"a: &x " + nest("[", "]", MaxDepth+1), 1},
		{"a: !!seq " + nest("[", "]", MaxDepth), 0},
		{"a: [b:c, 'd', \"e\"]\n", 0},
	} {
		err := YAML([]byte(c.doc))
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%.60q: %v", c.doc, err)
		case c.line != 0 && (err == nil || err.Problem != TooDeep || err.Line != c.line):
			t.Errorf("%.60q: %#v, want too deep at line %d", c.doc, err, c.line)
		}
	}
}

// FuzzJSON: on valid JSON, the scan reports too deep exactly when
// encoding/json's tokens nest deeper than MaxDepth, and a lone surrogate
// only where decoding would have replaced it with U+FFFD.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"\u00e9"}]}`, `["\ud83d\ude00"]`, `"\udc00"`, `[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]`, `{"a\"[":"[["}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			_ = JSON(data) // error ignored: malformed input only must not panic or hang
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		depth, deepest := 0, 0
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				depth++
				deepest = max(deepest, depth)
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
		e := JSON(data)
		if e != nil && e.Problem == TooDeep && deepest <= MaxDepth {
			t.Fatalf("%q: too deep, but it nests %d levels", data, deepest)
		}
		if deepest > MaxDepth && e == nil {
			t.Fatalf("%q nests %d levels: %v", data, deepest, e)
		}
		if e != nil && e.Problem == LoneSurrogate {
			var v any
			if err := json.Unmarshal(data, &v); err != nil || !strings.Contains(fmt.Sprint(v), "\uFFFD") {
				t.Fatalf("%q: lone surrogate reported, but it decodes to %v (%v)", data, v, err)
			}
		}
	})
}

package wire

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// bodyTemplates place a value (written as %V%) in every value position of
// the request bodies, well-formed or not.
var bodyTemplates = []string{
	`{"set":{"A":"%V%"}}`,
	`{"set":{"A":%V%}}`,
	`{"set":{"A":["%V%"]}}`,
	`{"set":{"A":"%V%"`,
	`{"set":{"A":"%V%"},"remove":["A"]}`,
	`{"credentials":"%V%","host":"ghcr.io","kind":"ImagePullSecret"}`,
	`{"credentials":%V%}`,
	`{"kind":"SecretSet","metadata":{"name":"x"},"spec":{"data":{"A":"%V%"}}}`,
	`{"kind":"SecretSet","metadata":{"name":"x"},"spec":{"data":{"A":%V%}}}`,
	`{"kind":"SecretSet","metadata":{"name":"x"},"spec":{"data":{"A":{"fromEnv":"E","x":"%V%"}}}}`,
	`{"kind":"ImagePullSecret","metadata":{"name":"x"},"spec":{"host":"h","credentials":"%V%"}}`,
	`{"kind":"SecretSet","metadata":{"name":"x"},"spec":{"data":{"A":"%V%"}}} trailing`,
}

// FuzzDecode feeds request bodies to the decoder: it must never panic, and
// no error message may contain the value placed in a value position.
func FuzzDecode(f *testing.F) {
	for i := range bodyTemplates {
		f.Add(uint8(i), "s3cret-value")
		f.Add(uint8(i), `a"b\c`)
		f.Add(uint8(i), "12345678")
		f.Add(uint8(i), "\xff\xfe")
	}
	f.Fuzz(func(t *testing.T, tmpl uint8, value string) {
		body := strings.ReplaceAll(bodyTemplates[int(tmpl)%len(bodyTemplates)], "%V%", value)
		for _, target := range []any{&resources.Patch{}, &resources.Object{}} {
			err := decodeJSON([]byte(body), target)
			if err == nil {
				continue
			}
			msg := err.Error()
			if len(value) >= 6 && strings.Contains(msg, value) {
				t.Fatalf("error %q echoes the value %q", msg, value)
			}
			if !utf8.ValidString(msg) {
				t.Fatalf("error message is not valid UTF-8: %q", msg)
			}
			var re *resources.Error
			if !errors.As(err, &re) {
				t.Fatalf("decode error %T is not a *resources.Error", err)
			}
			if re.Code != resources.CodeInvalid && re.Code != resources.CodeTooLarge {
				t.Fatalf("decode error has code %s", re.Code)
			}
		}
	})
}

// FuzzDecodeRaw feeds arbitrary bytes: no panic, and whatever decodes
// re-encodes as valid JSON.
func FuzzDecodeRaw(f *testing.F) {
	for _, tmpl := range bodyTemplates {
		f.Add([]byte(strings.ReplaceAll(tmpl, "%V%", "v")))
	}
	f.Add([]byte(`{"labels":{"a/b":"c"},"region":"us-west","encode":false}`))
	f.Add([]byte(strings.Repeat("[", 100)))
	f.Add([]byte(`{"set":` + strings.Repeat(`{"A":`, 20) + `"x"` + strings.Repeat("}", 21)))
	f.Add([]byte(`{"set":{"A":"\udc00x","B":"\ud83d\ude00"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var p resources.Patch
		if err := decodeJSON(body, &p); err == nil {
			if _, err := json.Marshal(p); err != nil {
				t.Fatalf("re-encode patch: %v", err)
			}
		}
		var o resources.Object
		if err := decodeJSON(body, &o); err == nil {
			if _, err := json.Marshal(o); err != nil {
				t.Fatalf("re-encode object: %v", err)
			}
		}
	})
}

// The server's view of an apply body has the fields of resources.ApplyRequest.
func TestApplyRequestMatchesResources(t *testing.T) {
	fields := func(v any) []string {
		var m map[string]any
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	want := fields(resources.ApplyRequest{Objects: []resources.Object{}, ApplySet: "x", Prune: true, Selector: "a", DryRun: true})
	got := fields(RawApplyRequest{Objects: []json.RawMessage{}, ApplySet: "x", Prune: true, Selector: "a", DryRun: true})
	if !slices.Equal(got, want) {
		t.Errorf("RawApplyRequest fields %v, resources.ApplyRequest fields %v", got, want)
	}
}

func TestCheckDuplicateKeys(t *testing.T) {
	for body, want := range map[string]string{
		`{"a":1,"b":{"a":2}}`:                   "",
		`[{"a":1},{"a":1}]`:                     "",
		`{"a":1,"a":2}`:                         `duplicate key "a"`,
		`{"x":[{"k":[1,{"z":1,"z":2}]}]}`:       `duplicate key "z" in "x[0].k[1]"`,
		`{"s":"\u0041","A":1,"\u0041":2}`:       `duplicate key "A"`,
		`{"a":{"b":1},"c":[1,2],"d":{},"e":[]}`: "",
		`{"a":`:                                 "",
	} {
		err := checkDuplicateKeys([]byte(body))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", body, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %s", body, err, want)
		}
	}
}

// decodeJSON is Decode with the limit of a request body (fuzzed).
func decodeJSON(data []byte, v any) error { return Decode(data, v, resources.MaxRequestBytes) }

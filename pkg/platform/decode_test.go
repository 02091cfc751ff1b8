package platform

import (
	"encoding/json"
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
			if ae := asAPIError(err); ae.code != resources.CodeInvalid && ae.code != resources.CodeTooLarge {
				t.Fatalf("decode error has code %s", ae.code)
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

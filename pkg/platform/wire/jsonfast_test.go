package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

func marshalStd(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAppendObjectJSON(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	for _, o := range []store.Object{
		{Name: "a", Kind: "SecretSet", Region: "us-west", Version: 7, State: "pending", CreatedAt: ts, UpdatedAt: ts.Add(time.Second)},
		{Name: "b", Kind: "SecretSet", Region: "eu-central", Version: 1, State: "ready", Keys: map[string]int{"B": 1, "A": 2},
			Labels: map[string]string{"team": "voice", "botkit.dev/x": ""}, CreatedAt: ts, UpdatedAt: ts},
		{Name: "c", Kind: "ImagePullSecret", Region: "ap-south", Host: "https://ghcr.io", Username: "ü\"ser\\\n<&>\u2028", State: "failed",
			Message: "registry unreachable: dial tcp \"x\"\t\x01\xff", CreatedAt: ts, UpdatedAt: ts},
		{Name: "d", Kind: "ImagePullSecret", Host: "h", State: "pending", CreatedAt: ts, UpdatedAt: ts},
		{Name: "e", Kind: "SecretSet", Region: "us-west", State: "ready", Keys: map[string]int{"A": 1}, CreatedAt: ts, UpdatedAt: ts, Managed: true},
		{Name: "f", Kind: "SecretSet", Region: "us-west", State: "ready", CreatedAt: ts, UpdatedAt: ts, Managed: true, ApplySet: "prod<&>"},
	} {
		want := marshalStd(t, Object("acme", o))
		got := AppendObject(nil, "acme", o)
		if !bytes.Equal(got, want) {
			t.Errorf("object %s:\n got %s\nwant %s", o.Name, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\"back\\", "\x00\x1f\x7f", "\xff\xfe", "\u2028\u2029", "<&>", "é✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := marshalStd(t, s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}

// appendTime writes what encoding/json writes for a time.Time.
func FuzzAppendTime(f *testing.F) {
	for _, n := range []int64{0, 1, 1e9, 1767322800123456789, 1767322800100000000, -9e18, 9e18} {
		f.Add(n, false)
	}
	f.Add(int64(1767322800000000700), true)
	f.Fuzz(func(t *testing.T, nanos int64, local bool) {
		tm := time.Unix(0, nanos).UTC()
		if local {
			tm = tm.In(time.FixedZone("x", 3600+1800))
		}
		want, err := json.Marshal(tm)
		if err != nil {
			t.Skip("not encodable")
		}
		got := append(append([]byte{'"'}, appendTime(nil, tm)...), '"')
		if !bytes.Equal(got, want) {
			t.Fatalf("%d: got %s want %s", nanos, got, want)
		}
	})
}

// FuzzDecodePatchFast checks the reflection-free PATCH decoder against the
// general one: whenever it accepts a body, the general decoder accepts it
// too and decodes the same Patch.
func FuzzDecodePatchFast(f *testing.F) {
	for _, s := range []string{
		`{"set":{"KEY_1":"value-1-2"}}`,
		` { "set" : { "A" : "1" , "B" : "" } , "remove" : [ "C" , "D" ] , "labels" : { "team" : "voice" } , "kind" : "SecretSet" , "region" : "us-west" , "host" : "r.example" } `,
		`{}`, `{"set":{}}`, `{"remove":[]}`, `{"labels":{}}`,
		`{"set":{"A":"1","A":"2"}}`, `{"set":{"A":"1"},"set":{"B":"2"}}`,
		`{"Set":{"A":"1"}}`, `{"set":{"A":"a\"b"}}`, `{"set":{"A":null}}`, `{"set":null}`,
		`{"set":{"A":"1"}} x`, `{"set":{"A":"1"}}{}`, `{"set":{"A":"1"},}`, `{"set":{"A":1}}`,
		`{"credentials":"x","encode":true}`, `[]`, `""`, `{"set":{"A":"1"}`,
		`{"set":{"A":"é€😀\u2028"}}`, "{\"set\":{\"A\":\"\x7f\"}}", "{\"set\":{\"A\":\"\t\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) {
			return
		}
		var fast resources.Patch
		if !decodePatchFast(body, &fast) {
			if !reflect.DeepEqual(fast, resources.Patch{}) {
				t.Fatalf("rejected %q but changed the patch: %+v", body, fast)
			}
			return
		}
		if err := checkDuplicateKeys(body); err != nil {
			t.Fatalf("fast decoder accepted %q with duplicate keys: %v", body, err)
		}
		var slow resources.Patch
		if err := decodeStrict(body, &slow); err != nil {
			t.Fatalf("fast decoder accepted %q, the general one refused it: %v", body, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: fast %#v, general %#v", body, fast, slow)
		}
	})
}

// TestDecodePatchFastScope: the bodies the CLI and the benchmark send take
// the fast path; what it must leave to the general decoder (its errors,
// escapes, case-insensitive names, null) does not.
func TestDecodePatchFastScope(t *testing.T) {
	for body, want := range map[string]bool{
		`{"set":{"KEY_1":"value-1-2"}}`:                                 true,
		`{"set":{"A":"1"},"remove":["B"],"labels":{"team":"voice"}}`:    true,
		"{\n  \"kind\": \"SecretSet\",\n  \"region\": \"us-west\"\n}\n": true,
		`{"set":{"A":"1","A":"2"}}`:                                     false, // duplicate: the general decoder's error
		`{"set":{"A":"1"},"set":{"B":"2"}}`:                             false,
		`{"Set":{"A":"1"}}`:                                             false,
		`{"set":{"A":"a\"b"}}`:                                          false,
		`{"set":{"A":null}}`:                                            false,
		`{"set":{"A":"1"}} x`:                                           false,
		`{"set":{"A":"1"},}`:                                            false,
		`{"credentials":"x"}`:                                           false,
		`{"bogus":"x"}`:                                                 false,
	} {
		var p resources.Patch
		if got := decodePatchFast([]byte(body), &p); got != want {
			t.Errorf("decodePatchFast(%s) = %v, want %v", body, got, want)
		}
	}
	var p resources.Patch
	if !decodePatchFast([]byte(`{"set":{"KEY_1":"v"},"remove":["B"]}`), &p) ||
		!reflect.DeepEqual(p, resources.Patch{Set: map[string]string{"KEY_1": "v"}, Remove: []string{"B"}}) {
		t.Errorf("decoded %#v", p)
	}
}

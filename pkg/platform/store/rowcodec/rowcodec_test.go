package rowcodec

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

func TestKeysEncoding(t *testing.T) {
	for _, m := range []map[string]int{nil, {"A": 1}, {"B_2": 0, "A": 65536, "_x": 12}} {
		enc := EncodeKeys(m, nil)
		got, digests, err := DecodeKeys(enc)
		if err != nil || (len(m) > 0 && !maps.Equal(got, m)) || (len(m) == 0 && len(got) != 0) || digests != nil {
			t.Errorf("%v -> %q -> %v, %v", m, enc, got, err)
		}
	}
	if EncodeKeys(map[string]int{"B": 1, "A": 2}, nil) != "A:2,B:1" {
		t.Error("keys are not sorted")
	}
	for _, bad := range []string{"A", "A:x", ":1", "A:1,", "A:1:", "A:1:+/", "A:x:AA"} {
		if _, _, err := DecodeKeys(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A key's digest travels with its size; keys without one stay as they were
// written before digests existed.
func TestKeysDigests(t *testing.T) {
	m := map[string]int{"A": 3, "B": 0, "C": 7}
	digests := map[string][]byte{"A": {0xfb, 0xff, 0x00, 0x10}, "C": bytes.Repeat([]byte{0xee}, 16), "GONE": {1}}
	enc := EncodeKeys(m, digests)
	if strings.Contains(enc, "GONE") {
		t.Errorf("%q: a digest of a key the list does not hold", enc)
	}
	got, gotDigests, err := DecodeKeys(enc)
	if err != nil || !maps.Equal(got, m) || len(gotDigests) != 2 || !bytes.Equal(gotDigests["A"], digests["A"]) || !bytes.Equal(gotDigests["C"], digests["C"]) {
		t.Fatalf("%q -> %v %v, %v", enc, got, gotDigests, err)
	}
	if _, ok := gotDigests["B"]; ok {
		t.Errorf("%q: B has a digest", enc)
	}
	// A list written before digests reads as it always did.
	if got, d, err := DecodeKeys("A:3,B:0"); err != nil || got["A"] != 3 || d != nil {
		t.Errorf("old list: %v %v, %v", got, d, err)
	}
}

func TestLabelsEncoding(t *testing.T) {
	for _, m := range []map[string]string{{"team": "voice"}, {"b": "", "botkit.dev/a": "x.y-z_1"}, {"odd,key": "v=1"}} {
		enc, err := EncodeLabels(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeLabels(enc)
		if err != nil || !maps.Equal(got, m) {
			t.Errorf("%v -> %q -> %v, %v", m, enc, got, err)
		}
	}
	if enc, err := EncodeLabels(nil); err != nil || enc != "" {
		t.Errorf("nil labels: %q", enc)
	}
}

// List reads the key names and label pairs straight from the encoded
// columns; they must agree with the full decoders.
func TestListDecoding(t *testing.T) {
	for _, m := range []map[string]int{nil, {"A": 1}, {"B_2": 0, "A": 65536, "_x": 12}} {
		got, err := KeyNames([]string{"stale"}[:0], EncodeKeys(m, map[string][]byte{"A": {1, 2, 3}}))
		if want := slices.Sorted(maps.Keys(m)); err != nil || !slices.Equal(got, want) {
			t.Errorf("%v: key names %v, %v; want %v", m, got, err, want)
		}
	}
	for _, bad := range []string{"A", ":1", "A:1,", ",A:1"} {
		if _, err := KeyNames(nil, bad); err == nil {
			t.Errorf("key list %q accepted", bad)
		}
	}
	for _, m := range []map[string]string{nil, {"team": "voice"}, {"b": "", "botkit.dev/a": "x.y-z_1"}, {"odd,key": "v=1", "a": "{"}} {
		enc, err := EncodeLabels(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LabelPairs(nil, enc)
		var want []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			want = append(want, k, m[k])
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%v -> %q: pairs %v, %v; want %v", m, enc, got, err, want)
		}
	}
	for _, bad := range []string{"a", "=v", "a=1,", "{"} {
		if _, err := LabelPairs(nil, bad); err == nil {
			t.Errorf("label list %q accepted", bad)
		}
	}
}

// NameList writes what json.Marshal writes for the sorted names, on its
// direct path (plain names) and off it.
func TestNameList(t *testing.T) {
	for _, names := range [][]string{nil, {}, {"B", "A_1", "a.b-c"}, {"x"}, {"K", `q"uote`}, {"<b>&"}, {"é", "A"}, {"tab\t"}, {""}} {
		sorted := slices.Sorted(slices.Values(names))
		if sorted == nil {
			sorted = []string{}
		}
		want, err := json.Marshal(sorted)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NameList(names)
		if err != nil || got != string(want) {
			t.Errorf("NameList(%q) = %s (%v), want %s", names, got, err, want)
		}
	}
}

// decodeNames gives what json.Unmarshal gives for every list of key names
// VersionColumns writes, and for lists it does not write (escapes, spaces,
// null, malformed), which go through json.Unmarshal.
func TestDecodeNamesAsJSON(t *testing.T) {
	for _, s := range []string{
		`[]`, `["A"]`, `["A","B_2","c"]`, `["A",""]`, `[""]`, `null`, `["A", "B"]`, `["A\"B"]`,
		`["\u0041"]`, `["A","B"`, `["A",]`, `[1]`, `["A","B"]x`, ``, `[`, `["é"]`,
	} {
		got, gotErr := decodeNames(s)
		var want []string
		wantErr := json.Unmarshal([]byte(s), &want)
		if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeNames(%q) = %#v, %v; json.Unmarshal gives %#v, %v", s, got, gotErr, want, wantErr)
		}
	}
	names := []string{"OPENAI_API_KEY", "B", "a1"}
	r, err := VersionColumns(store.Version{Added: names})
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeNames(r.Added)
	if err != nil || !reflect.DeepEqual(got, []string{"B", "OPENAI_API_KEY", "a1"}) {
		t.Errorf("decodeNames(VersionColumns(%q).Added = %q) = %q, %v", names, r.Added, got, err)
	}
}

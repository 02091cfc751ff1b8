package scaffold

import (
	"cmp"
	"encoding/json"
	"slices"
	"testing"
)

// --list-options lists every value each enumerated field accepts: the
// catalogue's ids under the seed's keys (stt, transports...), the other
// enumerations under their config keys.
func TestListOptionsCoversEveryEnumeratedField(t *testing.T) {
	raw, err := json.Marshal(ListOptions())
	if err != nil {
		t.Fatal(err)
	}
	var listed map[string]any
	if err := json.Unmarshal(raw, &listed); err != nil {
		t.Fatal(err)
	}
	seedKey := map[string]string{"stt_service": "stt", "llm_service": "llm", "tts_service": "tts", "realtime_service": "realtime", "video_service": "video"}
	for _, f := range Fields() {
		want := KeyValues(f.Key)
		if want == nil {
			continue
		}
		var got []string
		switch v := listed[cmp.Or(seedKey[f.Key], f.Key)].(type) {
		case []any:
			for _, x := range v {
				got = append(got, x.(string))
			}
		case map[string]any: // transports, by kind
			for _, kind := range []string{"web", "telephony"} {
				for _, x := range v[kind].([]any) {
					got = append(got, x.(string))
				}
			}
		default:
			t.Errorf("--list-options lacks %s (%v)", f.Key, want)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("--list-options %s = %v, want %v", f.Key, got, want)
		}
	}
}

// Enumerated (what create asks of every flag when it is built, without the
// catalogue) agrees with KeyValues for every key.
func TestEnumeratedAgreesWithKeyValues(t *testing.T) {
	n := 0
	for _, f := range Fields() {
		if got, want := Enumerated(f.Key), KeyValues(f.Key) != nil; got != want {
			t.Errorf("%s: Enumerated %v, KeyValues lists values %v", f.Key, got, want)
		}
		if Enumerated(f.Key) {
			n++
		}
	}
	if n < 10 || Enumerated("project_name") {
		t.Errorf("%d enumerated keys; project_name enumerated: %v", n, Enumerated("project_name"))
	}
}

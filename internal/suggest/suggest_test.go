package suggest

import (
	"reflect"
	"testing"
)

func TestSuggest(t *testing.T) {
	agents := []string{"oddbot", "support-bot", "sales"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"oddbt", []string{"oddbot"}},
		{"sup", []string{"support-bot"}},
		{"Sales", nil}, // the same name is no suggestion
		{"zzzzzz", nil},
	} {
		if got := Names(tc.name, agents); !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("Names(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got, want := DidYouMean("deepgram", []string{"deepgram_stt", "deepgram_tts", "openai_stt"}), "; did you mean deepgram_stt or deepgram_tts?"; got != want {
		t.Errorf("DidYouMean = %q, want %q", got, want)
	}
	if got := DidYouMean("xyzxyz", []string{"deepgram_stt"}); got != "" {
		t.Errorf("DidYouMean of nothing close = %q", got)
	}
}

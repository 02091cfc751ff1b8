package cmdutil

import (
	"reflect"
	"testing"

	"github.com/spf13/pflag"
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
		if got := Suggest(tc.name, agents); !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("Suggest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got, want := DidYouMean("deepgram", []string{"deepgram_stt", "deepgram_tts", "openai_stt"}), "; did you mean deepgram_stt or deepgram_tts?"; got != want {
		t.Errorf("DidYouMean = %q, want %q", got, want)
	}
	if got := DidYouMean("xyzxyz", []string{"deepgram_stt"}); got != "" {
		t.Errorf("DidYouMean of nothing close = %q", got)
	}
}

func TestSkipFlagHasYesAlias(t *testing.T) {
	for _, args := range [][]string{{"--skip"}, {"-s"}, {"--yes"}, {"-y"}} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		var skip bool
		SkipFlag(fs, &skip, "Delete without confirmation")
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !skip {
			t.Errorf("%v did not skip the confirmation", args)
		}
	}
}

package agentsguide

import (
	"strings"
	"testing"
	"testing/fstest"
)

// The guide starts the bot as the project's README does: a phone
// transport with --proxy (its webhook needs the public host), several web
// transports without --transport (the runner serves them all).
func TestGuideRunCommands(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		run  string
		each []string
	}{
		{[]string{"twilio", "webrtc"}, "uv run bot.py --transport twilio --proxy YOUR_PUBLIC_HOST\n```",
			[]string{"`uv run bot.py --transport twilio --proxy YOUR_PUBLIC_HOST`", "`uv run bot.py --transport webrtc`"}},
		{[]string{"webrtc", "daily", "eval"}, "uv run bot.py\n```",
			[]string{"`uv run bot.py --transport webrtc`", "`uv run bot.py --transport daily`"}},
		{[]string{"exotel"}, "uv run bot.py --transport exotel --proxy YOUR_PUBLIC_HOST\n```", nil},
	} {
		var py strings.Builder
		py.WriteString("transport_params = {\n")
		for _, k := range tc.keys {
			py.WriteString("    \"" + k + "\": lambda: X(),\n")
		}
		py.WriteString("}\n")
		guide := string(Render(Inspect(fstest.MapFS{"bot.py": {Data: []byte(py.String())}}, "p"), "v1"))
		for _, want := range append([]string{tc.run}, tc.each...) {
			if !strings.Contains(guide, want) {
				t.Errorf("%v: the guide lacks %q:\n%s", tc.keys, want, guide)
			}
		}
	}
}

package printers

import (
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

func sessionFixtures() []resources.Session {
	at := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	return []resources.Session{
		{ID: "ses_waiting", Agent: "bot", Transport: "websocket", State: resources.SessionStarting, CreatedAt: *at(5 * time.Second)},
		{ID: "ses_active", Agent: "bot", Deployment: 2, Container: "0123456789ab", Transport: "webrtc", State: resources.SessionActive,
			CreatedAt: *at(3 * time.Minute), StartedAt: at(150 * time.Second), MaxSeconds: 7200},
		{ID: "ses_failed", Agent: "bot", Deployment: 1, Container: "ba9876543210", Transport: "webrtc", State: resources.SessionFailed,
			CreatedAt: *at(2 * time.Hour), StartedAt: at(2 * time.Hour), EndedAt: at(time.Hour), EndReason: "the agent exited 7\nlast line ****"},
	}
}

// The sessions' rows: the agent (container) of each, how long ago it
// started and how long it lasted, an end reason's first line; name as
// session/ID; json as the API's list.
func TestPrintSessions(t *testing.T) {
	ss := sessionFixtures()
	print := func(format string, ss []resources.Session) (string, string) {
		t.Helper()
		ios, _, out, errOut := iostreams.Test()
		f := NewFlags()
		f.Output, f.Now = format, func() time.Time { return now }
		if err := f.PrintSessions(ios, ss); err != nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String()
	}
	want := `ID            STATE      TRANSPORT   AGENT          DEPLOYMENT   STARTED   DURATION   END REASON
ses_waiting   starting   websocket   -              -            -         -          -
ses_active    active     webrtc      0123456789ab   2            2m ago    2m30s      -
ses_failed    failed     webrtc      ba9876543210   1            2h ago    1h0m0s     the agent exited 7
`
	if out, _ := print(FormatTable, ss); out != want {
		t.Errorf("table:\n%s\nwant:\n%s", out, want)
	}
	out, _ := print(FormatWide, ss)
	if l := strings.Split(out, "\n"); !strings.HasSuffix(l[0], "END REASON           CREATED   ENDED    MAX DURATION") ||
		!strings.HasSuffix(l[2], "3m ago    -        2h0m0s") || !strings.HasSuffix(l[3], "2h ago    1h ago   -") {
		t.Errorf("wide:\n%s", out)
	}
	if out, _ := print(FormatName, ss); out != "session/ses_waiting\nsession/ses_active\nsession/ses_failed\n" {
		t.Errorf("name: %q", out)
	}
	if out, _ := print(FormatJSON, ss[1:2]); !strings.HasPrefix(out, "{\n  \"items\": [\n    {\n      \"id\": \"ses_active\",") {
		t.Errorf("json:\n%s", out)
	}
	if out, errOut := print(FormatTable, nil); out != "" || strings.TrimSpace(errOut) != NoResourcesMessage {
		t.Errorf("no sessions: %q %q", out, errOut)
	}
	if out, _ := print(FormatJSON, nil); !strings.Contains(out, `"items": []`) {
		t.Errorf("no sessions, json: %s", out)
	}
}

func TestPoolLine(t *testing.T) {
	for p, want := range map[resources.AgentPool]string{
		{InSession: 1, Idle: 2, Max: 5}: "3 ready (1 in a session, 2 idle), max 5",
		{}:                              "0 ready (0 in a session, 0 idle), no max",
	} {
		if got := PoolLine(p); got != want {
			t.Errorf("PoolLine(%+v) = %q, want %q", p, got, want)
		}
	}
}

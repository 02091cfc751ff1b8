//go:build unix

package platform_test

import (
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/browsertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// The React clients (Vite and Next.js: the Pipecat voice UI kit's console)
// call a deployed agent through the platform as the vanilla client does
// (TestBrowserCallsDeployedAgent): in headless Chromium with a fake
// microphone, Connect reaches the stand-in on a real engine, the console's
// Status shows the agent ready, its Conversation the transcript and the
// reply to a message typed in its text box, the bot's audio plays, and
// Disconnect ends the session. The Vite page sends the public key itself;
// the Next.js page asks only its own server, which adds the key: no request
// of the browser carries an Authorization, and neither the page's console,
// next start's output nor the platform's log shows the key.
func TestBrowserCallsDeployedAgentFromReact(t *testing.T) {
	if testing.Short() {
		t.Skip("npm, Chromium and an engine take minutes; run without -short")
	}
	r := newPageRig(t, 1)
	reactConfig := func(name, server string, transports ...string) scaffold.Config {
		return scaffold.Config{ProjectName: name, BotType: "web", Transports: transports, Mode: "cascade", ClientFramework: "react", ClientServer: server}
	}

	t.Run("react-vite", func(t *testing.T) {
		client := writeWebClient(t, reactConfig("web-call-vite", "vite", "smallwebrtc", "daily"),
			map[string]string{"VITE_PLATFORM_URL": r.v.base, "VITE_AGENT_NAME": "bot", "VITE_PUBLIC_KEY": r.key.Key})
		r.tools.Install(t, client)
		r.page.serve(t, buildPage(t, r.tools, client))

		res := r.consoleCall(t, r.page.url(), r.v.base, r.page.url(), r.v.base+"/")
		// The page sends the key itself, by design: its requests to the
		// platform carry it.
		if len(res.Authorized) == 0 {
			t.Error("no request of the page carried the public key")
		}
	})

	t.Run("react-nextjs", func(t *testing.T) {
		client := writeWebClient(t, reactConfig("web-call-next", "nextjs", "smallwebrtc"),
			map[string]string{"PLATFORM_URL": r.v.base, "AGENT_NAME": "bot", "PUBLIC_KEY": r.key.Key})
		r.tools.Install(t, client)
		browsertest.Run(t, 5*time.Minute, client, r.tools.Env, r.tools.NPM, "run", "build")
		url, output := browsertest.StartNext(t, client, nil)

		// The browser asks nothing of the platform: only its own server.
		res := r.consoleCall(t, url, url, url)
		if len(res.Authorized) > 0 {
			t.Errorf("the browser sent Authorization: %q", res.Authorized)
		}
		if strings.Contains(output(), r.key.Key) {
			t.Error("next start printed the public key")
		}
	})
}

// consoleCall waits for an idle agent, makes a call on the console page at
// pageURL (allow its one other origin) and checks it with checkCall
// (origins: the URL prefixes its requests may have).
func (r callRig) consoleCall(t *testing.T, pageURL, allow string, origins ...string) callResult {
	t.Helper()
	r.idleAgent(t)
	const typed = "deliver order 42"
	var offer *standinapi.Session
	res := call(t, r.tools, r.driver, pageURL, allow, func() { offer = agentCall(t, r.v) },
		"--ui", "console", "--text", typed, "--expect", standinapi.UserLine, "--expect", standinapi.BotLine)
	t.Logf("page loaded at %.0f ms, Connect at %.0f ms, ready at %.0f ms (%.0f ms after Connect); bot audio peak %.3f; transcript %q",
		res.LoadedMs, res.ConnectMs, res.ReadyMs, res.ReadyMs-res.ConnectMs, res.AudioLevel, res.Transcript)
	r.checkCall(t, res, offer, typed, origins...)
	return res
}

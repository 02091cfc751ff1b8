package scaffold

import (
	"fmt"
	"slices"
)

// DeployStep is one command of the way from a created project to a running
// agent, with what it does.
type DeployStep struct {
	Command string
	Does    string
}

// DeploySteps returns the commands that deploy the project in dir ("" or
// ".": the current directory) whose deploy file names agent, then watch the
// agent: the one list that the README's Deploy section, the next steps
// create prints and botkit init's guide (AGENTS.md) show.
func DeploySteps(dir, agent string) []DeployStep {
	path := ""
	if dir != "" && dir != "." {
		path = " " + shellQuote(dir)
	}
	return []DeployStep{
		{"botkit preflight" + path, "everything the deploy needs, checked"},
		{"botkit deploy" + path, "preflight, then the agent runs: its image, the secret set's values"},
		{"botkit cloud agents status " + shellQuote(agent), "the serving deployment and each running agent"},
		{"botkit cloud agents logs " + shellQuote(agent) + " -f", "the agent's logs as it runs (values masked)"},
	}
}

// The transports of a session on botkit's platform (Pipecat Cloud's names).
const (
	SessionWebRTC    = "webrtc"
	SessionWebsocket = "websocket"
	SessionDaily     = "daily"
)

// SessionTransport returns the transport a session of a bot whose
// development runner serves runners ("webrtc", "twilio", ...) is started
// with on the platform: webrtc for SmallWebRTC, websocket for the
// websocket and telephony media-stream transports, daily for Daily's (a
// room the platform makes), "" when the bot serves none of them.
func SessionTransport(runners []string) string {
	if slices.Contains(runners, "webrtc") {
		return SessionWebRTC
	}
	for _, r := range runners {
		switch r {
		case "websocket", "twilio", "telnyx", "plivo", "exotel":
			return SessionWebsocket
		}
	}
	if slices.Contains(runners, "daily") {
		return SessionDaily
	}
	return ""
}

// PlatformURL is where `botkit-platform serve --local` serves by default.
const PlatformURL = "http://127.0.0.1:8787"

// ServeLocal is the command that serves sessions on a laptop: the local
// context's platform, in another terminal, for as long as calls are taken.
var ServeLocal = DeployStep{"botkit-platform serve --local", "in another terminal: the platform that serves calls (local context)"}

// CallSteps returns the commands that call the deployed agent, once
// DeploySteps ran and a platform serves sessions (ServeLocal on a laptop):
// a session started with the context's token, the platform's call page
// (a WebRTC bot), the agent's sessions, and a public key for the clients
// that call it. transport is the session's
// (SessionTransport; webrtc, the platform's default, is not named). The
// README's Deploy section and botkit init's guide end with them.
func CallSteps(agent, transport string) []DeployStep {
	start := "botkit cloud agents start " + shellQuote(agent)
	if transport != "" && transport != SessionWebRTC {
		start += " --transport " + transport
	}
	steps := []DeployStep{{start, "a session on one agent: its id and how to reach it"}}
	if transport == "" || transport == SessionWebRTC {
		steps = append(steps, DeployStep{"botkit cloud agents start " + shellQuote(agent) + " --open", "talk to it in your browser: the platform's call page for it"})
	}
	return append(steps,
		DeployStep{"botkit cloud agents sessions " + shellQuote(agent), "each session: state, agent, duration, why it ended"},
		DeployStep{"KEY=$(botkit cloud organizations keys create --name web)", "a public key for the clients that call it, printed once"},
	)
}

// StartCall is the request a client makes to start a session with agent
// over transport on the platform at PlatformURL, with the public key in
// $KEY: a shell command on two lines, the second indented by indent.
func StartCall(agent, transport, indent string) string {
	if transport == "" {
		transport = SessionWebRTC
	}
	room := ""
	if transport == SessionDaily {
		room = `, "createDailyRoom": true`
	}
	return fmt.Sprintf("curl -s -X POST %s/v1/public/%s/start -H \"Authorization: Bearer $KEY\" \\\n%s  -H 'Content-Type: application/json' -d '{\"transport\": %q%s}'",
		PlatformURL, agent, indent, transport, room)
}

// ProviderStream says where a telephony provider's media stream goes on
// the platform for a bot whose development runner serves runners: Twilio's
// endpoint (its first messages checked) with the agent and the public key
// as TwiML custom parameters, or the generic relay for the other
// providers, whose framing the bot's runner reads itself. "" when the bot
// serves no media-stream provider.
func ProviderStream(runners []string, agent string) string {
	for _, r := range runners {
		switch r {
		case "twilio":
			return "Point the number's TwiML (a TwiML Bin) at the platform's Twilio endpoint; the public key\n" +
				"   and the agent (`" + agent + ".ORGANIZATION`, your organization's name from `botkit cloud\n" +
				"   organizations list`) go in custom parameters (the agent never receives the key):\n\n" +
				"   ```xml\n" +
				"   <Response>\n" +
				"     <Connect>\n" +
				"       <Stream url=\"wss://YOUR-PLATFORM-HOST/ws/twilio\">\n" +
				"         <Parameter name=\"_pipecatCloudServiceHost\" value=\"" + agent + ".ORGANIZATION\"/>\n" +
				"         <Parameter name=\"_botkitPublicKey\" value=\"pk_…\"/>\n" +
				"       </Stream>\n" +
				"     </Connect>\n" +
				"     <Say>All our lines are busy. Please call again later.</Say>\n" +
				"   </Response>\n" +
				"   ```\n\n" +
				"   Each call is a session on its own agent, ended when the call hangs up. When every agent is\n" +
				"   in a call (`max_agents`) the platform closes the stream and Twilio goes on to the `<Say>`."
		case "telnyx", "plivo", "exotel":
			return "Point the provider's media stream at the platform's generic relay, which passes every\n" +
				"   message to the bot as it comes (the bot reads the provider's framing itself):\n" +
				"   `wss://YOUR-PLATFORM-HOST/ws/generic/" + agent + ".ORGANIZATION?key=pk_…` (ORGANIZATION: your\n" +
				"   organization's name, from `botkit cloud organizations list`). Each call is a session on its\n" +
				"   own agent, ended when the call hangs up."
		}
	}
	return ""
}

package scaffold

import (
	"slices"
	"strings"
)

// The commands that start a generated bot locally, in one place: the
// README (its run block and each transport's line), bot.py's docstring,
// create's next steps and botkit init's guide all print these.
//
// Every generated bot.py ends in pipecat.runner.run.main(), Pipecat's
// development runner. Without --transport it serves every transport at
// once (a client names one per session); --transport R serves R alone. A
// media-stream telephony transport (Twilio, Telnyx, Plivo, Exotel) also
// needs --proxy: the public host its webhook answer points the provider's
// websocket at (wss://HOST/ws), which the runner serves only for the
// transport given with --transport.

// PublicHostPlaceholder stands for the host a tunnel (ngrok) gives the
// runner's port, in the commands shown to the user.
const PublicHostPlaceholder = "YOUR_PUBLIC_HOST"

// RunPrefix is how the README and the next steps start the bot.
const RunPrefix = "uv run bot.py"

// mediaStream reports whether t is a telephony transport whose calls reach
// the bot over the provider's websocket (not over Daily rooms): the runner
// needs --proxy for it.
func (t Transport) mediaStream() bool {
	return t.Kind == TransportTelephony && t.Runner != "daily"
}

// runnerNeedsProxy reports whether the runner's --transport value r is a
// media-stream transport's (per the catalogue).
func runnerNeedsProxy(r string) bool {
	for _, t := range catalog().transports {
		if t.Runner == r && t.mediaStream() {
			return true
		}
	}
	return false
}

// RunArgs returns the runner arguments that serve the transport with
// runner value r alone: "--transport r", with "--proxy YOUR_PUBLIC_HOST"
// for a media-stream telephony transport.
func RunArgs(r string) string {
	a := "--transport " + r
	if runnerNeedsProxy(r) {
		a += " --proxy " + PublicHostPlaceholder
	}
	return a
}

// RunCommand returns the command that starts a bot whose bot.py serves
// the runner values runners (transport_params' keys in order; "eval" is
// left out, it has its own section). One transport: that one. Several:
// without --transport, so that the runner serves them all and a client
// picks one per session; but when one of them is a media-stream telephony
// transport, the first such (a phone call needs its webhook, which the
// runner serves only for --transport).
func RunCommand(runners []string) string {
	var rs []string
	for _, r := range runners {
		if r != "eval" && r != "" {
			rs = append(rs, r)
		}
	}
	switch {
	case len(rs) == 0:
		return RunPrefix
	case len(rs) == 1:
		return RunPrefix + " " + RunArgs(rs[0])
	}
	for _, r := range rs {
		if runnerNeedsProxy(r) {
			return RunPrefix + " " + RunArgs(r)
		}
	}
	return RunPrefix
}

// ServesAll reports whether RunCommand(runners) starts the runner without
// --transport, serving every transport.
func ServesAll(runners []string) bool {
	return !strings.Contains(RunCommand(runners), "--transport")
}

// baseTransports returns the transports of c, each listed variant mapped
// to its base transport, in the order of c.Transports.
func baseTransports(c Config) []Transport {
	var out []Transport
	for _, id := range c.Transports {
		t, ok := LookupTransport(id)
		if !ok {
			continue
		}
		if t.VariantOf != "" {
			if base, ok := LookupTransport(t.VariantOf); ok {
				t = base
			}
		}
		out = append(out, t)
	}
	return out
}

// runners returns the distinct runner values of c's transports, in order.
func runners(c Config) []string {
	var out []string
	for _, t := range baseTransports(c) {
		if t.Runner != "" && !slices.Contains(out, t.Runner) {
			out = append(out, t.Runner)
		}
	}
	return out
}

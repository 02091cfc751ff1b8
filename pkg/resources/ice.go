package resources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// ICEServer is a STUN or TURN server as WebRTC's RTCIceServer names it: a
// TURN server's username and credential let a peer relay through it (the
// credential is a secret: it is never in a log or an error).
type ICEServer struct {
	URLs       []string `json:"urls"`
	Username   string   `json:"username,omitempty"`
	Credential string   `json:"credential,omitempty"`
}

// ICEConfig is the ICE servers of a WebRTC session: in a start's answer
// (iceConfig) and what an agent reads at its ICE_CONFIG_URL
// ({"iceConfig": ICEConfig}).
type ICEConfig struct {
	ICEServers []ICEServer `json:"iceServers"`
}

// AgentICEConfig is what an agent reads at its ICE_CONFIG_URL.
type AgentICEConfig struct {
	ICEConfig ICEConfig `json:"iceConfig"`
}

// MaxICEServers bounds the ICE servers a platform hands out.
const MaxICEServers = 16

// ParseICEServers reads an operator's ICE servers file:
// {"iceServers": [{"urls": "stun:HOST[:PORT]" or ["turn:HOST:PORT?transport=udp", …],
// "username": "…", "credential": "…"}, …]}. Every url is stun:, stuns:,
// turn: or turns:; a TURN server has a username and a credential. Its
// errors name the server by index and never hold a username, a
// credential, nor the file's text.
func ParseICEServers(b []byte) ([]ICEServer, error) {
	var f struct {
		ICEServers []struct {
			URLs       json.RawMessage `json:"urls"`
			Username   string          `json:"username"`
			Credential string          `json:"credential"`
		} `json:"iceServers"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not an ICE servers file: want {\"iceServers\": [{\"urls\": …, \"username\": …, \"credential\": …}]} (%s)", jsonProblem(err))
	}
	if dec.More() {
		return nil, fmt.Errorf("not an ICE servers file: text after its JSON object")
	}
	if len(f.ICEServers) > MaxICEServers {
		return nil, fmt.Errorf("iceServers: at most %d servers", MaxICEServers)
	}
	out := make([]ICEServer, 0, len(f.ICEServers))
	for i, s := range f.ICEServers {
		var urls []string
		var one string
		switch {
		case json.Unmarshal(s.URLs, &one) == nil:
			urls = []string{one}
		case json.Unmarshal(s.URLs, &urls) == nil:
		default:
			return nil, fmt.Errorf("iceServers[%d].urls: want a URL or a list of URLs", i)
		}
		if len(urls) == 0 {
			return nil, fmt.Errorf("iceServers[%d].urls: no URL", i)
		}
		turn := false
		for j, u := range urls {
			scheme, ok := iceURLScheme(u)
			if !ok {
				return nil, fmt.Errorf("iceServers[%d].urls[%d]: want stun: or stuns:HOST[:PORT], turn: or turns:HOST[:PORT][?transport=udp|tcp]", i, j)
			}
			turn = turn || strings.HasPrefix(scheme, "turn")
		}
		if turn && (s.Username == "" || s.Credential == "") {
			return nil, fmt.Errorf("iceServers[%d]: a TURN server needs its username and credential", i)
		}
		out = append(out, ICEServer{URLs: urls, Username: s.Username, Credential: s.Credential})
	}
	return out, nil
}

// jsonProblem says what is wrong with a JSON text without quoting any of
// it (a syntax error's offset, a known field's name and type).
func jsonProblem(err error) string {
	switch e := err.(type) {
	case *json.SyntaxError:
		return fmt.Sprintf("invalid JSON at byte %d", e.Offset)
	case *json.UnmarshalTypeError:
		return fmt.Sprintf("%s: want a %s", e.Field, e.Type)
	}
	// A field it does not know, named by nothing here: its name could
	// be a secret put in the wrong place.
	return "a field it does not know, or invalid JSON"
}

// iceURLScheme returns the scheme of an ICE server's URL (RFC 7064, RFC
// 7065) when it is one: stun or stuns with a host and an optional port,
// turn or turns with, also, an optional transport.
func iceURLScheme(u string) (string, bool) {
	if len(u) > 512 || strings.ContainsAny(u, " \t\r\n@/#") {
		return "", false
	}
	scheme, rest, ok := strings.Cut(u, ":")
	if !ok || rest == "" {
		return "", false
	}
	switch scheme {
	case "stun", "stuns", "turn", "turns":
	default:
		return "", false
	}
	hostport, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery {
		if !strings.HasPrefix(scheme, "turn") {
			return "", false
		}
		q, err := url.ParseQuery(query)
		if err != nil || len(q) != 1 || (q.Get("transport") != "udp" && q.Get("transport") != "tcp") {
			return "", false
		}
	}
	p, err := url.Parse("//" + hostport)
	if err != nil || p.Hostname() == "" || p.Path != "" || p.User != nil {
		return "", false
	}
	return scheme, true
}

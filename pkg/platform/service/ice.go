package service

import (
	"crypto/subtle"
	"encoding/base64"
	"net/url"
	"slices"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// ICE servers (docs/sessions.md): the operator's STUN and TURN servers,
// handed to the caller in a webrtc session's start answer and to every
// agent at its ICE_CONFIG_URL, a URL of this platform that names the
// organization and the agent with a token (in its query: no log line
// holds it) only that agent's containers are given: it reads the ICE
// servers and nothing else.

// ICEConfigEnv is the variable that tells an agent where it reads its ICE
// servers.
const ICEConfigEnv = "ICE_CONFIG_URL"

// iceTokenPurpose names the agent token of ICE_CONFIG_URL.
const iceTokenPurpose = "ice-config"

func (s *Service) iceToken(org, agent string) string {
	return base64.RawURLEncoding.EncodeToString(s.sealer.AgentToken(iceTokenPurpose, org, agent))
}

// AgentEnv returns the variables the platform gives org's agent named
// agent: ICE_CONFIG_URL when agents reach this platform (AgentURL).
func (s *Service) AgentEnv(org, agent string) map[string]string {
	if s.agentURL == "" {
		return nil
	}
	return map[string]string{ICEConfigEnv: s.agentURL + "/v1/ice-config/" + url.PathEscape(org) + "/" + url.PathEscape(agent) + "?token=" + s.iceToken(org, agent)}
}

// iceConfig is the platform's ICE servers, nil when it has none.
func (s *Service) iceConfig() *resources.ICEConfig {
	if len(s.iceServers) == 0 {
		return nil
	}
	return &resources.ICEConfig{ICEServers: slices.Clone(s.iceServers)}
}

// AgentICEConfig is what an agent reads at its ICE_CONFIG_URL
// ({"iceConfig": {"iceServers": [...]}}; none: an empty list): token must
// be the one that URL carries for org's agent, else not found.
func (s *Service) AgentICEConfig(org, agent, token string) (resources.AgentICEConfig, error) {
	want := s.iceToken(org, agent)
	if subtle.ConstantTimeCompare([]byte(token), []byte(want)) != 1 {
		return resources.AgentICEConfig{}, errNotFound("not found")
	}
	out := resources.AgentICEConfig{ICEConfig: resources.ICEConfig{ICEServers: slices.Clone(s.iceServers)}}
	if out.ICEConfig.ICEServers == nil {
		out.ICEConfig.ICEServers = []resources.ICEServer{}
	}
	return out, nil
}

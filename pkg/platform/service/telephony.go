package service

import (
	"context"
	"strings"

	"github.com/botkit-dev/botkit/pkg/platform/agents"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Calls (docs/sessions.md, "Phone calls"): a telephony provider's
// websocket names the agent as Pipecat Cloud's serviceHost does,
// AGENT.ORGANIZATION; the platform starts a websocket session on that agent
// and relays the socket to the agent's /ws for as long as it lasts.

// Call is a session started for a relayed websocket: its id and the
// endpoint of its agent.
type Call struct {
	SessionID string
	Endpoint  string
	sess      store.Session
}

// StartCall starts a websocket session on the agent serviceHost names
// (AGENT.ORGANIZATION), which must be of pp's organization: another
// organization's agent is not found, as an unknown one.
func (s *Service) StartCall(ctx context.Context, pp PublicPrincipal, serviceHost string) (*Call, error) {
	name, org, ok := strings.Cut(serviceHost, ".")
	if !ok || name == "" || org == "" || strings.Contains(org, ".") {
		return nil, errInvalid("serviceHost %q: want AGENT.ORGANIZATION", serviceHost)
	}
	if org != pp.org.Name {
		return nil, errAgentNotFound(name)
	}
	a, err := s.agent(ctx, Principal{org: pp.org}, name)
	if err != nil {
		return nil, err
	}
	if s.agents == nil {
		return nil, s.noRuntime(a.Region)
	}
	id := agents.NewSessionID()
	sess, err := s.agents.StartSession(ctx, a, id, agents.SessionInput{Transport: resources.TransportWebsocket, Body: []byte("{}")})
	if err != nil {
		return nil, err
	}
	ep, err := s.liveEndpoint(ctx, sess)
	if err != nil {
		s.agents.StopSession(context.WithoutCancel(ctx), sess, "its agent could not be reached for the call")
		return nil, err
	}
	return &Call{SessionID: id, Endpoint: ep, sess: sess}, nil
}

// EndCall ends call c's session with reason (its socket closed): its
// agent is stopped and the pool refilled.
func (s *Service) EndCall(ctx context.Context, c *Call, reason string) {
	s.agents.StopSession(ctx, c.sess, reason)
}

package service

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"

	"github.com/botkit-dev/botkit/pkg/platform/agents"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Sessions (docs/sessions.md): a caller starts a session on an agent —
// with a public key (the public API) or an API token (the CLI) — and
// reaches that session's agent, and no other, while it lives.

// SessionStart is a start as the HTTP layer hands it over: the request,
// and where the websocket of its wsUrl is reached (ws://HOST or wss://HOST,
// as the caller reached the platform).
type SessionStart struct {
	Request resources.SessionStartRequest
	WSBase  string
}

// StartSession starts a session on p's agent name (the private API).
func (s *Service) StartSession(ctx context.Context, p Principal, name string, in SessionStart) (resources.SessionStarted, error) {
	return s.startSession(ctx, p.org, name, in)
}

// PublicStart starts a session on agent name of pp's organization (POST
// /v1/public/{agent}/start): another organization's agent is not found.
func (s *Service) PublicStart(ctx context.Context, pp PublicPrincipal, name string, in SessionStart) (resources.SessionStarted, error) {
	return s.startSession(ctx, pp.org, name, in)
}

func (s *Service) startSession(ctx context.Context, org store.Org, name string, in SessionStart) (resources.SessionStarted, error) {
	req := in.Request
	switch req.Transport {
	case "":
		req.Transport = resources.TransportWebRTC
	case resources.TransportWebRTC, resources.TransportWebsocket, resources.TransportDaily:
	default:
		return resources.SessionStarted{}, errInvalid("transport: %q: want webrtc, websocket or daily", req.Transport)
	}
	body := bytes.TrimSpace(req.Body)
	if len(body) == 0 || string(body) == "null" {
		body = []byte("{}")
	}
	if body[0] != '{' {
		return resources.SessionStarted{}, errInvalid("body: want a JSON object (the agent's POST /bot body)")
	}
	var roomProps map[string]json.RawMessage
	if req.CreateDailyRoom || req.Transport == resources.TransportDaily || len(req.DailyRoomProperties) > 0 {
		var err error
		if roomProps, err = s.dailyRequest(in.Request); err != nil {
			return resources.SessionStarted{}, err
		}
		req.Transport = resources.TransportDaily
	}
	p := Principal{org: org}
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return resources.SessionStarted{}, err
	}
	if s.agents == nil {
		return resources.SessionStarted{}, s.noRuntime(a.Region)
	}
	id := agents.NewSessionID()
	out := resources.SessionStarted{SessionID: id}
	sin := agents.SessionInput{Transport: req.Transport, Body: body}
	if req.Transport == resources.TransportWebRTC {
		out.ICEConfig = s.iceConfig()
	}
	if req.Transport == resources.TransportWebsocket {
		tok := make([]byte, 24)
		_, _ = rand.Read(tok) // error ignored: crypto/rand.Read never fails (Go 1.24+)
		raw := base64.RawURLEncoding.EncodeToString(tok)
		h := sha256.Sum256([]byte(raw))
		sin.WSToken = h[:]
		out.WSURL = in.WSBase + "/v1/public/" + url.PathEscape(a.Name) + "/sessions/" + id + "/ws?token=" + raw
	}
	if roomProps != nil {
		room, err := s.makeRoom(ctx, a, id, roomProps)
		if err != nil {
			return resources.SessionStarted{}, err
		}
		sin.RoomURL, sin.RoomToken, sin.Ended = room.url, room.botToken, func() { s.dropRoom(id) }
		out.DailyRoom, out.DailyToken = room.url, room.callerToken
	}
	if _, err := s.agents.StartSession(ctx, a, id, sin); err != nil {
		if roomProps != nil {
			s.dropRoom(id)
		}
		return resources.SessionStarted{}, err
	}
	return out, nil
}

func wireSession(ss store.Session) resources.Session {
	out := resources.Session{ID: ss.ID, Agent: ss.Agent, Deployment: ss.Deployment, Transport: ss.Transport, State: ss.State,
		CreatedAt: ss.CreatedAt, StartedAt: ss.StartedAt, EndedAt: ss.EndedAt, EndReason: ss.EndReason, MaxSeconds: ss.MaxSeconds}
	if !ss.Pending() {
		out.Container = ss.Container
		if len(out.Container) > 12 {
			out.Container = out.Container[:12]
		}
	}
	return out
}

// Sessions lists p's agent's sessions, newest first.
func (s *Service) Sessions(ctx context.Context, p Principal, name string) (resources.SessionList, error) {
	list := resources.SessionList{Items: []resources.Session{}}
	a, err := s.agent(ctx, p, name)
	if err != nil {
		return list, err
	}
	rows, err := s.store.Sessions(ctx, a.ID, 1000)
	if err != nil {
		return list, err
	}
	for _, ss := range rows {
		list.Items = append(list.Items, wireSession(ss))
	}
	return list, nil
}

func errSessionNotFound(id string) *resources.Error {
	return errNotFound("session %q not found", id)
}

// session reads session id of p's agent name (a 404 for another agent's).
func (s *Service) session(ctx context.Context, org store.Org, name, id string) (store.Session, error) {
	ss, err := s.store.Session(ctx, org.ID, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && ss.Agent != name {
		return ss, errSessionNotFound(id)
	}
	ss.OrgName = org.Name
	return ss, err
}

// Session returns session id of p's agent name.
func (s *Service) Session(ctx context.Context, p Principal, name, id string) (resources.Session, error) {
	if _, err := s.agent(ctx, p, name); err != nil {
		return resources.Session{}, err
	}
	ss, err := s.session(ctx, p.org, name, id)
	if err != nil {
		return resources.Session{}, err
	}
	return wireSession(ss), nil
}

// StopSession ends session id of p's agent name: its agent is stopped and
// the pool refilled.
func (s *Service) StopSession(ctx context.Context, p Principal, name, id string) (resources.Session, error) {
	if _, err := s.agent(ctx, p, name); err != nil {
		return resources.Session{}, err
	}
	ss, err := s.session(ctx, p.org, name, id)
	if err != nil {
		return resources.Session{}, err
	}
	if ss.Live() {
		s.agents.StopSession(ctx, ss, "stopped by "+p.actor())
		if ss, err = s.session(ctx, p.org, name, id); err != nil {
			return resources.Session{}, err
		}
	}
	return wireSession(ss), nil
}

// PublicSessionEndpoint authenticates a request to session id of agent
// name with its public key (raw: the bearer credential) and returns who
// calls and where the request goes, in one store read: the key, by its
// hash, and the session, of the key's organization, read together. So a
// deleted key is refused, and an ended session not found, from the
// commit that deleted or ended it on, on every replica. An unknown or
// deleted key is ErrPublicKeyUnauthenticated; an unknown session, ended,
// or another agent's or organization's, is not found (with the caller).
func (s *Service) PublicSessionEndpoint(ctx context.Context, raw, name, id string) (PublicPrincipal, string, error) {
	if !strings.HasPrefix(raw, PublicKeyPrefix) || len(raw) > 256 {
		return PublicPrincipal{}, "", ErrPublicKeyUnauthenticated
	}
	hash := hashToken(raw)
	k, ss, err := s.store.PublicKeySession(ctx, hash, id)
	if errors.Is(err, store.ErrNotFound) {
		// The key or the session: which one is missing says 401 or 404.
		pp, err := s.AuthenticatePublicKey(ctx, raw)
		if err != nil {
			return pp, "", err
		}
		return pp, "", errSessionNotFound(id)
	}
	if err != nil {
		return PublicPrincipal{}, "", err
	}
	if subtle.ConstantTimeCompare(k.Hash, hash) != 1 || k.DeletedAt != nil {
		return PublicPrincipal{}, "", ErrPublicKeyUnauthenticated
	}
	pp := principalOf(k)
	if ss.Agent != name {
		return pp, "", errSessionNotFound(id)
	}
	ss.OrgName = k.OrgName
	ep, err := s.liveEndpoint(ctx, ss)
	return pp, ep, err
}

func (s *Service) liveEndpoint(ctx context.Context, ss store.Session) (string, error) {
	if !ss.Live() || ss.State != resources.SessionActive {
		return "", errSessionNotFound(ss.ID)
	}
	ep, err := s.agents.Endpoint(ctx, ss)
	var re *resources.Error
	if errors.As(err, &re) && re.Code == resources.CodeNotFound {
		return "", errSessionNotFound(ss.ID)
	}
	return ep, err
}

// SessionWebsocket is where the websocket of session id's wsUrl goes: the
// one-time token is checked and spent (a second use is not found), then
// the agent's endpoint.
func (s *Service) SessionWebsocket(ctx context.Context, name, id, token string) (string, error) {
	if token == "" {
		return "", errSessionNotFound(id)
	}
	h := sha256.Sum256([]byte(token))
	var ss store.Session
	err := s.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.SessionByID(ctx, id)
		if errors.Is(err, store.ErrNotFound) || err == nil && (cur.Agent != name || len(cur.WSToken) == 0 || subtle.ConstantTimeCompare(cur.WSToken, h[:]) != 1) {
			return errSessionNotFound(id)
		}
		if err != nil {
			return err
		}
		cur.WSToken = nil
		ss = cur
		return tx.UpdateSession(ctx, cur)
	})
	if err != nil {
		return "", err
	}
	return s.liveEndpoint(ctx, ss)
}

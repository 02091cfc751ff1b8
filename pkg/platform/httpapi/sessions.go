package httpapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Sessions: the private routes (an API token), the public start and the
// session proxy (a public key, Pipecat Cloud's paths and shapes).

// MaxSessionBody bounds a start's body and a proxied request's.
const MaxSessionBody = 1 << 20

// wsBase is where the caller reached the platform, as a websocket base:
// ws://HOST, or wss://HOST behind TLS.
func wsBase(r *http.Request) string {
	if r.TLS != nil {
		return "wss://" + r.Host
	}
	return "ws://" + r.Host
}

func (a *api) handleStartSession(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	a.startSession(w, r, http.StatusCreated, func(ctx context.Context, in service.SessionStart) (resources.SessionStarted, error) {
		return a.svc.StartSession(ctx, p, r.PathValue("name"), in)
	})
}

// startSession decodes a start's body, starts the session with start and
// answers status with how to reach it (never cached: wsUrl's token).
func (a *api) startSession(w http.ResponseWriter, r *http.Request, status int, start func(context.Context, service.SessionStart) (resources.SessionStarted, error)) {
	var req resources.SessionStartRequest
	if err := decodeBody(w, r, &req, MaxSessionBody); err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := start(r.Context(), service.SessionStart{Request: req, WSBase: wsBase(r)})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, out)
}

func (a *api) handleSessions(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	list, err := a.svc.Sessions(r.Context(), p, r.PathValue("name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (a *api) handleSession(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	s, err := a.svc.Session(r.Context(), p, r.PathValue("name"), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s)
}

func (a *api) handleStopSession(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	s, err := a.svc.StopSession(r.Context(), p, r.PathValue("name"), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s)
}

// publicPrincipal authenticates a request of the public API with its
// public key, and answers CORS for the key's origins: a browser's request
// from another origin is answered only with that origin allowed (no
// origin: same-origin only).
func (a *api) publicPrincipal(w http.ResponseWriter, r *http.Request) (service.PublicPrincipal, bool) {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		writeError(w, service.ErrPublicKeyUnauthenticated)
		return service.PublicPrincipal{}, false
	}
	pp, err := a.svc.AuthenticatePublicKey(r.Context(), strings.TrimSpace(raw))
	if err != nil {
		a.fail(w, r, err)
		return pp, false
	}
	allowOrigin(w, r, pp)
	return pp, true
}

// allowOrigin answers CORS for key pp's origins: a browser's request from
// one of them may read the answer.
func allowOrigin(w http.ResponseWriter, r *http.Request, pp service.PublicPrincipal) {
	if origin := r.Header.Get("Origin"); origin != "" && pp.AllowsOrigin(origin) {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
	}
}

// handlePublicPreflight answers a browser's CORS preflight of the public
// API: the methods and headers a client sends. Which origins may call is
// the key's to say, on the request itself (a preflight carries no key).
func (a *api) handlePublicPreflight(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE")
		w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
		w.Header().Set("Access-Control-Max-Age", "600")
		w.Header().Add("Vary", "Origin")
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *api) handlePublicStart(w http.ResponseWriter, r *http.Request) {
	pp, ok := a.publicPrincipal(w, r)
	if !ok {
		return
	}
	a.startSession(w, r, http.StatusOK, func(ctx context.Context, in service.SessionStart) (resources.SessionStarted, error) {
		return a.svc.PublicStart(ctx, pp, r.PathValue("agent"), in)
	})
}

// handleAgentICEConfig answers an agent's read of its ICE_CONFIG_URL: the
// platform's ICE servers (never cached: TURN credentials).
func (a *api) handleAgentICEConfig(w http.ResponseWriter, r *http.Request) {
	out, err := a.svc.AgentICEConfig(r.PathValue("org"), r.PathValue("agent"), r.URL.Query().Get("token"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
}

// handleSessionProxy forwards a request to the session's agent, at the
// path given, while the session lives: the public key and the hop-by-hop
// headers stay here, the agent gets X-Daily-Session-Id; its answer goes
// back as it is (a redirect is not followed). `ws` with the session's
// one-time token is its websocket, both ways.
func (a *api) handleSessionProxy(w http.ResponseWriter, r *http.Request) {
	agent, id, path := r.PathValue("agent"), r.PathValue("id"), r.PathValue("path")
	if !cleanProxyPath(path) {
		notFound(w, r)
		return
	}
	var endpoint string
	var err error
	if path == "ws" && r.Header.Get("Authorization") == "" {
		endpoint, err = a.svc.SessionWebsocket(r.Context(), agent, id, r.URL.Query().Get("token"))
	} else {
		raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			writeError(w, service.ErrPublicKeyUnauthenticated)
			return
		}
		var pp service.PublicPrincipal
		pp, endpoint, err = a.svc.PublicSessionEndpoint(r.Context(), strings.TrimSpace(raw), agent, id)
		if pp.KeyID() != "" {
			allowOrigin(w, r, pp)
		}
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if r.ContentLength > MaxSessionBody {
		writeError(w, resources.Errorf(resources.CodeTooLarge, "the request body is over %d bytes", MaxSessionBody))
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, MaxSessionBody)
	}
	sessionProxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), proxyTargetKey{}, proxyTarget{endpoint, path, id})))
}

// proxyTarget is where a request to a session goes: its agent's endpoint,
// the path there, and the session's id.
type proxyTarget struct{ endpoint, path, id string }

type proxyTargetKey struct{}

// sessionProxy forwards every session's requests (one proxy, its target
// in each request's context).
var sessionProxy = &httputil.ReverseProxy{
	Rewrite: func(pr *httputil.ProxyRequest) {
		t := pr.In.Context().Value(proxyTargetKey{}).(proxyTarget)
		pr.Out.URL.Scheme, pr.Out.URL.Host = "http", t.endpoint
		pr.Out.URL.Path, pr.Out.URL.RawPath = "/"+t.path, ""
		if pr.In.URL.RawQuery != "" {
			q := pr.In.URL.Query()
			q.Del("token")
			pr.Out.URL.RawQuery = q.Encode()
		}
		pr.Out.Host = t.endpoint
		pr.Out.Header.Del("Authorization")
		pr.Out.Header.Del("Cookie")
		pr.Out.Header.Set("X-Daily-Session-Id", t.id)
	},
	Transport: agentTransport,
	// FlushInterval 0: an answer of known length is written as it comes,
	// with no flush of its own (a flush per answer cost a timer, a
	// goroutine and a write of its own); one of unknown length (a stream,
	// server-sent events) goes on at once, as the reverse proxy does for
	// those; a websocket is copied both ways as it comes.
	ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, resources.Errorf(resources.CodeTooLarge, "the request body is over %d bytes", MaxSessionBody))
			return
		}
		writeErrorStatus(w, http.StatusBadGateway, resources.Errorf(resources.CodeUnavailable, "the session's agent did not answer"))
	},
}

// cleanProxyPath reports whether path is a relative path of clean
// segments: no empty, "." or ".." segment, no scheme, no backslash.
func cleanProxyPath(path string) bool {
	if path == "" || strings.ContainsAny(path, "\\?#") || strings.Contains(path, "://") {
		return false
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// agentTransport reaches agents on their network: no proxy from the
// environment, dials bounded.
var agentTransport = &http.Transport{
	Proxy: nil,
	DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: 10 * time.Second}
		return d.DialContext(ctx, network, addr)
	},
	MaxIdleConnsPerHost:   4,
	IdleConnTimeout:       30 * time.Second,
	ResponseHeaderTimeout: 2 * time.Minute,
}

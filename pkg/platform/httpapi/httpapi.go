// Package httpapi is the platform's HTTP layer: the routes of
// api/openapi.yaml, strict body decoding, authentication from the
// Authorization header, the request log and metrics, and the one mapping of
// the service's errors to statuses (resources.HTTPStatus). Every operation
// is the service's (package service); this package only translates.
package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/wire"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Route is one route of the API, with its path in OpenAPI form.
type Route struct {
	Method string
	Path   string
	Body   bool // takes a JSON request body (and answers 415 to any other)
}

// route is one line of the routing table: the route and what serves it.
type route struct {
	Route
	serve func(*api, http.ResponseWriter, *http.Request)
}

// routeTable is the routing: the mux and Routes both come from it, so a
// route is added with one line.
var routeTable = []route{
	{Route{"GET", "/healthz", false}, (*api).handleHealthz},
	{Route{"GET", "/metrics", false}, (*api).handleMetrics},
	{Route{"GET", "/v1/me", false}, (*api).handleMe},
	{Route{"GET", "/v1/regions", false}, (*api).handleRegions},
	{Route{"GET", "/v1/organizations/{org}/secrets", false}, (*api).handleList},
	{Route{"GET", "/v1/organizations/{org}/secrets/{name}", false}, (*api).handleGet},
	{Route{"PATCH", "/v1/organizations/{org}/secrets/{name}", true}, (*api).handlePatch},
	{Route{"PUT", "/v1/organizations/{org}/secrets/{name}", true}, (*api).handlePut},
	{Route{"DELETE", "/v1/organizations/{org}/secrets/{name}", false}, (*api).handleDelete},
	{Route{"DELETE", "/v1/organizations/{org}/secrets/{name}/keys/{key}", false}, (*api).handleDeleteKey},
	{Route{"GET", "/v1/organizations/{org}/secrets/{name}/versions", false}, (*api).handleVersions},
	{Route{"GET", "/v1/organizations/{org}/secrets/{name}/versions/{version}", false}, (*api).handleVersion},
	{Route{"POST", "/v1/organizations/{org}/secrets/{name}/versions/{version}/rollback", false}, (*api).handleRollback},
	{Route{"GET", "/v1/organizations/{org}/audit", false}, (*api).handleAudit},
	{Route{"POST", "/v1/organizations/{org}/apply", true}, postJSON(resources.MaxApplyRequestBytes, (*service.Service).Apply)},
	{Route{"POST", "/v1/organizations/{org}/delete", true}, postJSON(resources.MaxApplyRequestBytes, (*service.Service).DeleteMany)},
	{Route{"GET", "/v1/organizations/{org}/sealing-key", false}, (*api).handleSealingKey},
	{Route{"POST", "/v1/organizations/{org}/reseal", true}, postJSON(resources.MaxApplyRequestBytes, (*service.Service).Reseal)},
	{Route{"POST", "/v1/organizations/{org}/preflight", true}, postJSON(1<<20, (*service.Service).Preflight)},
	{Route{"POST", "/v1/organizations/{org}/keys", true}, (*api).handleCreatePublicKey},
	{Route{"GET", "/v1/organizations/{org}/keys", false}, (*api).handlePublicKeys},
	{Route{"DELETE", "/v1/organizations/{org}/keys/{id}", false}, (*api).handleDeletePublicKey},

	{Route{"GET", "/v1/organizations/{org}/agents", false}, (*api).handleAgents},
	{Route{"GET", "/v1/organizations/{org}/agents/{name}", false}, (*api).handleAgent},
	{Route{"PUT", "/v1/organizations/{org}/agents/{name}", true}, (*api).handlePutAgent},
	{Route{"PATCH", "/v1/organizations/{org}/agents/{name}", true}, (*api).handlePatchAgent},
	{Route{"DELETE", "/v1/organizations/{org}/agents/{name}", false}, (*api).handleDeleteAgent},
	{Route{"GET", "/v1/organizations/{org}/agents/{name}/deployments", false}, (*api).handleDeployments},
	{Route{"POST", "/v1/organizations/{org}/agents/{name}/deployments", true}, (*api).handleDeploy},
	{Route{"GET", "/v1/organizations/{org}/agents/{name}/deployments/{number}", false}, (*api).handleDeployment},
	{Route{"GET", "/v1/organizations/{org}/agents/{name}/status", false}, (*api).handleAgentStatus},
	{Route{"POST", "/v1/organizations/{org}/agents/{name}/rollback", true}, (*api).handleAgentRollback},
	{Route{"POST", "/v1/organizations/{org}/agents/{name}/restart", true}, (*api).handleAgentRestart},
	{Route{"GET", "/v1/organizations/{org}/agents/{name}/logs", false}, (*api).handleAgentLogs},
	{Route{"GET", "/v1/organizations/{org}/agents/{name}/sessions", false}, (*api).handleSessions},
	{Route{"POST", "/v1/organizations/{org}/agents/{name}/sessions", true}, (*api).handleStartSession},
	{Route{"GET", "/v1/organizations/{org}/agents/{name}/sessions/{id}", false}, (*api).handleSession},
	{Route{"DELETE", "/v1/organizations/{org}/agents/{name}/sessions/{id}", false}, (*api).handleStopSession},

	// The public API (a public key; a browser's preflight carries none).
	{Route{"POST", "/v1/public/{agent}/start", true}, (*api).handlePublicStart},
	{Route{"OPTIONS", "/v1/public/{agent}/start", false}, (*api).handlePublicPreflight},
	{Route{"GET", proxyPath, false}, (*api).handleSessionProxy},
	{Route{"POST", proxyPath, false}, (*api).handleSessionProxy},
	{Route{"PUT", proxyPath, false}, (*api).handleSessionProxy},
	{Route{"PATCH", proxyPath, false}, (*api).handleSessionProxy},
	{Route{"DELETE", proxyPath, false}, (*api).handleSessionProxy},
	{Route{"OPTIONS", proxyPath, false}, (*api).handlePublicPreflight},
	// Phone calls: a telephony provider's websocket (telephony.go).
	{Route{"GET", "/ws/{provider}", false}, (*api).handleTelephony},
	{Route{"GET", "/ws/generic/{serviceHost}", false}, (*api).handleGenericHost},

	// What agents read (their ICE_CONFIG_URL: a token of the agent's in
	// its query, which no log line holds).
	{Route{"GET", "/v1/ice-config/{org}/{agent}", false}, (*api).handleAgentICEConfig},

	// The call page (callpage.go): a page of the platform's own that calls
	// the agent its path names, with the key in its URL's fragment.
	{Route{"GET", "/call/{agent}", false}, (*api).handleCallPage},
	{Route{"GET", "/call/assets/{file}", false}, (*api).handleCallAsset},
}

// proxyPath is the session proxy's route: {path} is one or more segments
// (served as {path...}).
const proxyPath = "/v1/public/{agent}/sessions/{id}/{path}"

// muxPattern is rt's pattern for http.ServeMux: a trailing {path} takes
// the rest of the path.
func muxPattern(path string) string {
	if rest, ok := strings.CutSuffix(path, "/{path}"); ok {
		return rest + "/{path...}"
	}
	return path
}

// Routes lists every route the Handler serves (the contract tests check
// them, and which take a body, against api/openapi.yaml both ways).
func Routes() []Route {
	routes := make([]Route, len(routeTable))
	for i, rt := range routeTable {
		routes[i] = rt.Route
	}
	return routes
}

// Metrics receives the HTTP layer's measurements and serves /metrics.
type Metrics interface {
	// Request is one HTTP request: its route pattern, method, status code
	// and duration.
	Request(route, method string, code int, d time.Duration)
	// Handler serves GET /metrics (nil: the route answers 404).
	Handler() http.Handler
}

// Options configure the handler.
type Options struct {
	Service *service.Service
	Metrics Metrics      // nil: nothing is measured, /metrics answers 404
	Logger  *slog.Logger // request logs (never bodies or values); nil discards
	// Streams, when not nil, ends the answers that stream (the agents'
	// followed logs) when it ends: a server that stops does not wait for
	// its followers.
	Streams context.Context
	// CallPage is the call page's files (index.html, assets/) served at
	// /call/{agent}; nil: those routes answer 404.
	CallPage fs.FS
}

type api struct {
	svc      *service.Service
	metrics  Metrics
	log      *slog.Logger
	idPrefix string
	streams  context.Context
	callPage fs.FS
	reqSeq   atomic.Uint64
	listBufs sync.Pool // *[]byte, see getListBuf
}

// New returns the handler of every route of api/openapi.yaml, /healthz and
// /metrics.
func New(opts Options) http.Handler {
	a := &api{svc: opts.Service, metrics: opts.Metrics, log: opts.Logger, streams: opts.Streams, callPage: opts.CallPage}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	idb := make([]byte, 4)
	_, _ = rand.Read(idb) // error ignored: crypto/rand.Read never fails (Go 1.24+)
	a.idPrefix = hex.EncodeToString(idb) + "-"
	return a.routes()
}

type ctxKey struct{}

// reqInfo is filled while a request is served, for the request log.
type reqInfo struct {
	id    string
	route string
	org   string
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's writer (the
// logs stream flushes each line).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func (a *api) routes() http.Handler {
	mux := http.NewServeMux()
	paths := map[string][]string{}
	for _, rt := range routeTable {
		serve, route, body := rt.serve, rt.Path, rt.Body
		mux.HandleFunc(rt.Method+" "+muxPattern(rt.Path), func(w http.ResponseWriter, r *http.Request) {
			if info, ok := r.Context().Value(ctxKey{}).(*reqInfo); ok {
				info.route = route
			}
			if body && !isJSON(r.Header.Get("Content-Type")) {
				writeUnsupportedMediaType(w, r)
				return
			}
			serve(a, w, r)
		})
		paths[rt.Path] = append(paths[rt.Path], rt.Method)
	}
	for path, methods := range paths {
		allow := strings.Join(methods, ", ")
		mux.HandleFunc(muxPattern(path), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			// 405 and 415, the statuses that are not their code's (invalid).
			writeErrorStatus(w, http.StatusMethodNotAllowed, resources.Errorf(resources.CodeInvalid,
				"method %s is not allowed on this route (allowed: %s)", r.Method, allow))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		notFound(w, r)
	})
	return a.observe(cleanPaths(mux))
}

func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, resources.Errorf(resources.CodeNotFound, "no such route: %s %s", r.Method, r.URL.Path))
}

// cleanPaths answers a path that is not clean (//, /./, /../) with the
// JSON 404 of an unknown route. http.ServeMux would answer it with a
// redirect to the cleaned path (307, an HTML body), which an API client
// must never have to follow: a route is spelled one way.
func cleanPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "" || p[0] != '/' || !isClean(p) {
			notFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isClean reports whether p (starting with "/") has no empty, "." or ".."
// segment, but for a trailing "/".
func isClean(p string) bool {
	for seg := range strings.SplitSeq(strings.TrimSuffix(p[1:], "/"), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return p == "/"
		}
	}
	return true
}

// isJSON reports whether a request's Content-Type is application/json
// (parameters aside but for a charset other than UTF-8).
func isJSON(ct string) bool {
	if ct == "application/json" {
		return true // what the CLI sends: no parsing, no allocation
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// writeUnsupportedMediaType answers a body that is not sent as JSON: 415,
// code invalid, nothing read or changed.
func writeUnsupportedMediaType(w http.ResponseWriter, r *http.Request) {
	ct := r.Header.Get("Content-Type")
	what := "no Content-Type"
	if ct != "" {
		what = "Content-Type " + wire.QuoteField(ct)
	}
	w.Header().Set("Accept", "application/json")
	writeErrorStatus(w, http.StatusUnsupportedMediaType, resources.Errorf(resources.CodeInvalid,
		"the request body was sent with %s; send it as application/json", what))
}

// observe adds a request ID, the request log and metrics. Bodies are never
// logged.
func (a *api) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &reqInfo{id: a.requestID(), route: "unmatched"}
		sw := &statusWriter{ResponseWriter: w}
		sw.Header().Set("X-Request-Id", info.id)
		defer func() {
			if p := recover(); p != nil {
				a.log.Error("panic serving request", "request_id", info.id, "route", info.route)
				if sw.status == 0 {
					writeError(sw, service.ErrInternal)
				}
			}
			d := time.Since(start)
			code := sw.status
			if code == 0 {
				code = http.StatusOK
			}
			if a.metrics != nil {
				a.metrics.Request(info.route, r.Method, code, d)
			}
			if info.route == "/healthz" || info.route == "/metrics" {
				return
			}
			if sw.status >= http.StatusOK {
				// The answer goes out before its log line is written (not
				// after: the line's write is a system call of its own). A
				// switched protocol (1xx) owns its connection.
				_ = http.NewResponseController(sw).Flush() // error ignored: the client went away; the line says what was answered
			}
			a.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("request_id", info.id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.String("route", info.route), slog.Int("status", code), slog.Int("bytes", sw.bytes),
				slog.String("org", info.org), slog.Duration("duration", d), slog.String("remote", r.RemoteAddr))
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), ctxKey{}, info)))
	})
}

// requestID returns a process-unique request ID: a random prefix chosen at
// startup and a counter.
func (a *api) requestID() string {
	return a.idPrefix + strconv.FormatUint(a.reqSeq.Add(1), 36)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeError(w, service.ErrInternal)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes()) // error ignored: the client went away; nothing to tell it
}

// writeError answers re with its code's status.
func writeError(w http.ResponseWriter, re *resources.Error) {
	writeErrorStatus(w, resources.HTTPStatus(re.Code), re)
}

func writeErrorStatus(w http.ResponseWriter, status int, re *resources.Error) {
	switch status {
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.Itoa(max(int(re.RetryAfter.Round(time.Second)/time.Second), 1)))
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="botkit"`)
	}
	writeJSON(w, status, resources.ErrorResponse{Error: resources.ErrorDetail{Code: re.Code, Message: re.Message, Details: re.Details}})
}

// fail answers err; an unexpected error (not the service's) is logged
// (without values: store errors never hold them) and answered with a
// generic 500.
func (a *api) fail(w http.ResponseWriter, r *http.Request, err error) {
	re, ok := service.AsError(err)
	if !ok {
		id := ""
		if info, ok := r.Context().Value(ctxKey{}).(*reqInfo); ok {
			id = info.id
		}
		a.log.Error("request failed", "request_id", id, "error", err.Error())
	}
	writeError(w, re)
}

// decodeBody decodes a JSON request body of at most limit bytes strictly
// (wire.Decode). Error messages never quote the body.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, limit int) error {
	body := http.MaxBytesReader(w, r.Body, int64(limit))
	data, err := io.ReadAll(body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return wire.BodyTooLarge(limit)
		}
		return resources.Errorf(resources.CodeInvalid, "reading the request body failed")
	}
	return wire.Decode(data, v, limit)
}

func (a *api) handleHealthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// handleMetrics serves Options.Metrics' exposition; a platform without one
// (the CLI's embedded platform) has none to serve.
func (a *api) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if a.metrics != nil {
		if h := a.metrics.Handler(); h != nil {
			h.ServeHTTP(w, r)
			return
		}
	}
	writeError(w, resources.Errorf(resources.CodeNotFound, "this platform exports no metrics"))
}

// authenticate resolves the request's principal.
func (a *api) authenticate(w http.ResponseWriter, r *http.Request) (service.Principal, bool) {
	p, err := a.svc.Authenticate(r.Context(), r.Header.Get("Authorization"))
	if err != nil {
		a.fail(w, r, err)
		return p, false
	}
	if info, ok := r.Context().Value(ctxKey{}).(*reqInfo); ok {
		info.org = p.Org().Name
	}
	return p, true
}

// orgPrincipal authenticates and checks the {org} of the path.
func (a *api) orgPrincipal(w http.ResponseWriter, r *http.Request) (service.Principal, bool) {
	p, ok := a.authenticate(w, r)
	if !ok {
		return p, false
	}
	if err := p.CheckOrg(r.PathValue("org")); err != nil {
		a.fail(w, r, err)
		return p, false
	}
	return p, true
}

func (a *api) handleMe(w http.ResponseWriter, r *http.Request) {
	if p, ok := a.authenticate(w, r); ok {
		writeJSON(w, http.StatusOK, p.Me())
	}
}

func (a *api) handleRegions(w http.ResponseWriter, r *http.Request) {
	if _, ok := a.authenticate(w, r); ok {
		writeJSON(w, http.StatusOK, a.svc.Regions())
	}
}

func (a *api) handleList(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	req := service.ListRequest{Region: q.Get("region"), Kind: q.Get("kind"), LabelSelector: q.Get("labelSelector"),
		Limit: q.Get("limit"), Continue: q.Get("continue")}
	org := p.Org().Name
	bp := a.getListBuf()
	defer a.putListBuf(bp)
	buf := append((*bp)[:0], `{"apiVersion":"`+resources.APIVersion+`","kind":"List","items":[`...)
	n := 0
	next, err := a.svc.List(r.Context(), p, req, func(it *store.ListItem) {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = wire.AppendItem(buf, org, it)
		n++
	})
	*bp = buf
	if err != nil {
		a.fail(w, r, err)
		return
	}
	buf = append(buf, `],"metadata":{`...)
	if next != "" {
		buf = append(buf, `"continue":`...)
		buf = wire.AppendString(buf, next)
	}
	buf = append(buf, "}}\n"...)
	*bp = buf
	writeRaw(w, http.StatusOK, buf)
}

// Lists are encoded into pooled buffers: a list of 10,000 sets is a few
// MB, which would otherwise be grown and copied for every request.
const maxPooledListBuf = 32 << 20

func (a *api) getListBuf() *[]byte {
	if bp, ok := a.listBufs.Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, 0, 64<<10)
	return &b
}

func (a *api) putListBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledListBuf {
		a.listBufs.Put(bp)
	}
}

// writeRaw writes an already encoded JSON body.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body) // error ignored: the client went away; nothing to tell it
}

// writeObject writes one object (key names, never values).
func writeObject(w http.ResponseWriter, status int, org string, o store.Object) {
	writeRaw(w, status, append(wire.AppendObject(make([]byte, 0, 512), org, o), '\n'))
}

func setETag(w http.ResponseWriter, o store.Object) {
	w.Header().Set("ETag", `"`+strconv.FormatInt(o.Version, 10)+`"`)
}

func (a *api) handleGet(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	o, err := a.svc.Get(r.Context(), p, r.PathValue("name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	setETag(w, o)
	writeObject(w, http.StatusOK, p.Org().Name, o)
}

func (a *api) handlePatch(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	var pt resources.Patch
	if err := decodeBody(w, r, &pt, resources.MaxRequestBytes); err != nil {
		a.fail(w, r, err)
		return
	}
	pc := service.Precondition{IfMatch: r.Header.Get("If-Match"), IfNoneMatch: r.Header.Get("If-None-Match")}
	o, created, err := a.svc.Merge(r.Context(), p, r.PathValue("name"), pt, pc)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeWritten(w, p.Org().Name, o, created)
}

func (a *api) handlePut(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	dryRun := false
	switch v := r.URL.Query().Get("dryRun"); v {
	case "", "false":
	case "true", "All":
		dryRun = true
	default:
		writeError(w, resources.Errorf(resources.CodeInvalid, "dryRun: want true or false"))
		return
	}
	var raw json.RawMessage
	if err := decodeBody(w, r, &raw, resources.MaxRequestBytes); err != nil {
		a.fail(w, r, err)
		return
	}
	in, err := wire.DecodeObject(raw)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	o, pl, created, err := a.svc.Replace(r.Context(), p, r.PathValue("name"), in, r.Header.Get("If-Match"), dryRun)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if dryRun {
		writeJSON(w, http.StatusOK, pl)
		return
	}
	writeWritten(w, p.Org().Name, o, created)
}

func (a *api) handleDelete(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	o, err := a.svc.Delete(r.Context(), p, r.PathValue("name"), r.Header.Get("If-Match"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeObject(w, http.StatusOK, p.Org().Name, o)
}

func (a *api) handleDeleteKey(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	o, err := a.svc.DeleteKey(r.Context(), p, r.PathValue("name"), r.PathValue("key"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	setETag(w, o)
	writeObject(w, http.StatusOK, p.Org().Name, o)
}

func (a *api) handleAudit(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	items, err := a.svc.Audit(r.Context(), p, r.URL.Query().Get("limit"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resources.AuditList{Items: items})
}

// writeWritten answers a write with the object, its ETag, and 201 when the
// write created it.
func writeWritten(w http.ResponseWriter, org string, o store.Object, created bool) {
	setETag(w, o)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeObject(w, status, org, o)
}

func (a *api) handleVersions(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	list, err := a.svc.Versions(r.Context(), p, r.PathValue("name"), q.Get("limit"), q.Get("continue"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (a *api) handleVersion(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	v, err := a.svc.Version(r.Context(), p, r.PathValue("name"), r.PathValue("version"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (a *api) handleRollback(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	o, err := a.svc.Rollback(r.Context(), p, r.PathValue("name"), r.PathValue("version"), r.Header.Get("If-Match"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	setETag(w, o)
	writeObject(w, http.StatusOK, p.Org().Name, o)
}

func (a *api) handleSealingKey(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	k, err := a.svc.SealingKey(r.Context(), p)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, k)
}

// postJSON serves an operation of an organization that takes a JSON body
// of at most limit bytes (strictly decoded) and answers 200 with JSON:
// apply, delete, reseal, preflight.
func postJSON[Req, Res any](limit int, op func(*service.Service, context.Context, service.Principal, Req) (Res, error)) func(*api, http.ResponseWriter, *http.Request) {
	return func(a *api, w http.ResponseWriter, r *http.Request) {
		p, ok := a.orgPrincipal(w, r)
		if !ok {
			return
		}
		var req Req
		if err := decodeBody(w, r, &req, limit); err != nil {
			a.fail(w, r, err)
			return
		}
		res, err := op(a.svc, r.Context(), p, req)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	}
}

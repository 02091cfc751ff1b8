package platform

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Route is one route of the API, with its path in OpenAPI form.
type Route struct {
	Method string
	Path   string
}

// Routes lists every route the Handler serves (the contract test checks it
// against api/openapi.yaml both ways).
func Routes() []Route {
	return []Route{
		{"GET", "/healthz"},
		{"GET", "/metrics"},
		{"GET", "/v1/me"},
		{"GET", "/v1/regions"},
		{"GET", "/v1/organizations/{org}/secrets"},
		{"GET", "/v1/organizations/{org}/secrets/{name}"},
		{"PATCH", "/v1/organizations/{org}/secrets/{name}"},
		{"PUT", "/v1/organizations/{org}/secrets/{name}"},
		{"DELETE", "/v1/organizations/{org}/secrets/{name}"},
		{"DELETE", "/v1/organizations/{org}/secrets/{name}/keys/{key}"},
		{"GET", "/v1/organizations/{org}/audit"},
		{"POST", "/v1/organizations/{org}/apply"},
		{"POST", "/v1/organizations/{org}/delete"},
	}
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

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handlers := map[Route]http.HandlerFunc{
		{"GET", "/healthz"}:                                             s.handleHealthz,
		{"GET", "/metrics"}:                                             s.handleMetrics,
		{"GET", "/v1/me"}:                                               s.handleMe,
		{"GET", "/v1/regions"}:                                          s.handleRegions,
		{"GET", "/v1/organizations/{org}/secrets"}:                      s.handleList,
		{"GET", "/v1/organizations/{org}/secrets/{name}"}:               s.handleGet,
		{"PATCH", "/v1/organizations/{org}/secrets/{name}"}:             s.handlePatch,
		{"PUT", "/v1/organizations/{org}/secrets/{name}"}:               s.handlePut,
		{"DELETE", "/v1/organizations/{org}/secrets/{name}"}:            s.handleDelete,
		{"DELETE", "/v1/organizations/{org}/secrets/{name}/keys/{key}"}: s.handleDeleteKey,
		{"GET", "/v1/organizations/{org}/audit"}:                        s.handleAudit,
		{"POST", "/v1/organizations/{org}/apply"}:                       s.handleApply,
		{"POST", "/v1/organizations/{org}/delete"}:                      s.handleDeleteMany,
	}
	paths := map[string][]string{}
	for _, rt := range Routes() {
		h := handlers[rt]
		route := rt.Path
		mux.HandleFunc(rt.Method+" "+rt.Path, func(w http.ResponseWriter, r *http.Request) {
			if info, ok := r.Context().Value(ctxKey{}).(*reqInfo); ok {
				info.route = route
			}
			h(w, r)
		})
		paths[rt.Path] = append(paths[rt.Path], rt.Method)
	}
	for path, methods := range paths {
		allow := strings.Join(methods, ", ")
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, newErr(http.StatusMethodNotAllowed, resources.CodeInvalid, "method %s is not allowed on this route (allowed: %s)", r.Method, allow))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, newErr(http.StatusNotFound, resources.CodeNotFound, "no such route: %s %s", r.Method, r.URL.Path))
	})
	return s.observe(mux)
}

// observe adds a request ID, the request log and metrics. Bodies are never
// logged.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &reqInfo{id: s.requestID(), route: "unmatched"}
		sw := &statusWriter{ResponseWriter: w}
		sw.Header().Set("X-Request-Id", info.id)
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic serving request", "request_id", info.id, "route", info.route)
				if sw.status == 0 {
					writeError(sw, newErr(http.StatusInternalServerError, resources.CodeInternal, "internal error"))
				}
			}
			d := time.Since(start)
			code := sw.status
			if code == 0 {
				code = http.StatusOK
			}
			s.metrics.Request(info.route, r.Method, code, d)
			if info.route == "/healthz" || info.route == "/metrics" {
				return
			}
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("request_id", info.id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.String("route", info.route), slog.Int("status", code), slog.Int("bytes", sw.bytes),
				slog.String("org", info.org), slog.Duration("duration", d), slog.String("remote", r.RemoteAddr))
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), ctxKey{}, info)))
	})
}

// requestID returns a process-unique request ID: a random prefix chosen at
// startup and a counter.
func (s *Server) requestID() string {
	return s.idPrefix + strconv.FormatUint(s.reqSeq.Add(1), 36)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeError(w, newErr(http.StatusInternalServerError, resources.CodeInternal, "internal error"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, err error) {
	ae := asAPIError(err)
	switch ae.status {
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="botkit"`)
	}
	writeJSON(w, ae.status, resources.ErrorResponse{Error: resources.ErrorDetail{Code: ae.code, Message: ae.msg, Details: ae.details}})
}

// fail writes err; unexpected errors are logged (without values: store
// errors never hold them) and answered with a generic 500.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	var mbe *http.MaxBytesError
	if !errors.As(err, &ae) && !errors.As(err, &mbe) {
		id := ""
		if info, ok := r.Context().Value(ctxKey{}).(*reqInfo); ok {
			id = info.id
		}
		s.log.Error("request failed", "request_id", id, "error", err.Error())
	}
	writeError(w, err)
}

// decodeBody decodes a JSON request body of at most MaxRequestBytes strictly
// (unknown fields, duplicate keys and trailing data are errors). Error
// messages never quote the body.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	return decodeBodyLimit(w, r, v, resources.MaxRequestBytes)
}

// decodeBodyLimit is decodeBody with another size limit.
func decodeBodyLimit(w http.ResponseWriter, r *http.Request, v any, limit int) error {
	body := http.MaxBytesReader(w, r.Body, int64(limit))
	data, err := io.ReadAll(body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errBodyTooLarge(limit)
		}
		return errInvalid("reading the request body failed")
	}
	return decodeJSONLimit(data, v, limit)
}

// decodeJSON is the body decoder (fuzzed by FuzzDecode).
func decodeJSON(data []byte, v any) error {
	return decodeJSONLimit(data, v, resources.MaxRequestBytes)
}

func decodeJSONLimit(data []byte, v any, limit int) error {
	if len(data) > limit {
		return errBodyTooLarge(limit)
	}
	if !utf8.Valid(data) {
		return errInvalid("request body is not valid UTF-8")
	}
	if p, ok := v.(*resources.Patch); ok && decodePatchFast(data, p) {
		return nil
	}
	if err := checkDuplicateKeys(data); err != nil {
		return err
	}
	if err := checkNoNull(data); err != nil {
		return err
	}
	if err := decodeStrict(data, v); err != nil {
		return errInvalid("request body: %s", describeDecodeError(err))
	}
	return nil
}

// decodeStrict decodes one JSON value into v: unknown fields and trailing
// data are errors.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailingData
	}
	return nil
}

var errTrailingData = errors.New("unexpected data after the JSON value")

// checkNoNull refuses a null anywhere in a request body: api/openapi.yaml
// allows none, and a null would decode as "absent" — `{"set": null}` as an
// empty merge, a body `null` as `{}`. The message names where (keys only).
// Malformed JSON is left to the decoder to report.
func checkNoNull(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var path []string // the keys (or "[]") down to the current value
	var expectKey []bool
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		inObject := len(expectKey) > 0 && expectKey[len(expectKey)-1]
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				expectKey = append(expectKey, t == '{')
				if t == '[' {
					path = append(path, "[]")
				}
				continue
			default:
				expectKey = expectKey[:len(expectKey)-1]
				if t == ']' {
					path = path[:len(path)-1]
				}
			}
		case string:
			if inObject && dec.More() {
				// A key: its value comes next.
				path = append(path, t)
				expectKey[len(expectKey)-1] = false
				continue
			}
		case nil:
			where := strings.Join(path, ".")
			if where == "" {
				return errInvalid("request body: null is not a request; send an object")
			}
			return errInvalid("request body: %s is null; omit the field instead", safeField(where))
		}
		// A value ended: back to expecting a key in an object.
		if len(expectKey) > 0 && !expectKey[len(expectKey)-1] && len(path) > 0 && path[len(path)-1] != "[]" {
			path = path[:len(path)-1]
			expectKey[len(expectKey)-1] = true
		}
	}
}

// checkDuplicateKeys reports an object key given twice in one JSON object,
// at any depth (encoding/json would silently keep the last). The message
// names the key and its path (keys only, never a value). Malformed JSON is
// left to the decoder to report.
func checkDuplicateKeys(data []byte) error {
	type frame struct {
		object  bool
		keys    map[string]struct{}
		key     string // object: the current key
		index   int    // array: the current index
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack[:len(stack)-1] {
			if f.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				fmt.Fprintf(&b, "[%d]", f.index)
			}
		}
		return b.String()
	}
	// value is called after a complete value inside the top frame.
	value := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.object {
			f.wantKey = true
		} else {
			f.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // EOF, or a syntax error the decoder reports
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
			continue
		case string:
			if top != nil && top.object && top.wantKey {
				if top.keys == nil {
					top.keys = map[string]struct{}{}
				}
				if _, dup := top.keys[t]; dup {
					where := path()
					if where == "" {
						return errInvalid("request body: duplicate key %s", safeField(t))
					}
					return errInvalid("request body: duplicate key %s in %s", safeField(t), safeField(where))
				}
				top.keys[t] = struct{}{}
				top.key, top.wantKey = t, false
				continue
			}
		}
		value()
	}
}

func describeDecodeError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte offset %d", se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("field %s: expected %s", safeField(te.Field), te.Type.String())
		}
		return fmt.Sprintf("expected %s", te.Type.String())
	case errors.Is(err, io.EOF):
		return "empty body, expected a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON"
	case errors.Is(err, resources.ErrValueSource):
		return resources.ErrValueSource.Error()
	case errors.Is(err, errTrailingData):
		return errTrailingData.Error()
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown field " + safeField(strings.Trim(f, `"`))
	}
	return "could not be decoded (check the field types against api/openapi.yaml)"
}

// safeField keeps a field path printable and short. Field paths are object
// keys and key names, never values.
func safeField(f string) string {
	if len(f) > 200 {
		f = f[:200] + "..."
	}
	return strconv.Quote(f)
}

func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// handleMetrics serves Options.Metrics' exposition; a platform without one
// (the CLI's embedded platform) has none to serve.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if h := s.metrics.Handler(); h != nil {
		h.ServeHTTP(w, r)
		return
	}
	writeError(w, newErr(http.StatusNotFound, resources.CodeNotFound, "this platform exports no metrics"))
}

// authenticate resolves the request's principal.
func (s *Server) authenticate(r *http.Request) (principal, error) {
	ctx := r.Context()
	h := r.Header.Get("Authorization")
	if h == "" {
		if s.opts.NoAuthOrg == "" {
			return principal{}, errUnauthenticated
		}
		org, err := s.store.Org(ctx, s.opts.NoAuthOrg)
		if err != nil {
			return principal{}, err
		}
		if info, ok := ctx.Value(ctxKey{}).(*reqInfo); ok {
			info.org = org.Name
		}
		return principal{org: org, user: "local"}, nil
	}
	scheme, tok, ok := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(tok, TokenPrefix) || len(tok) > 256 {
		return principal{}, errUnauthenticated
	}
	hash := hashToken(tok)
	t, ep, ok := s.tokens.get(hash)
	if !ok {
		var err error
		t, err = s.store.TokenByHash(ctx, hash)
		if errors.Is(err, store.ErrNotFound) {
			return principal{}, errUnauthenticated
		}
		if err != nil {
			return principal{}, err
		}
		if subtle.ConstantTimeCompare(t.Hash, hash) != 1 || t.RevokedAt != nil {
			return principal{}, errUnauthenticated
		}
		s.tokens.put(hash, t, ep)
	}
	org := store.Org{ID: t.OrgID, Name: t.OrgName, DefaultRegion: t.OrgRegion}
	if info, ok := ctx.Value(ctxKey{}).(*reqInfo); ok {
		info.org = org.Name
	}
	return principal{org: org, user: t.User, tokenID: t.ID}, nil
}

// orgPrincipal authenticates and checks the {org} of the path: any other
// organization than the token's is "organization … not found".
func (s *Server) orgPrincipal(w http.ResponseWriter, r *http.Request) (principal, bool) {
	p, err := s.authenticate(r)
	if err != nil {
		s.fail(w, r, err)
		return p, false
	}
	if org := r.PathValue("org"); org != p.org.Name {
		// Another organization's routes answer as a missing
		// organization's do, on every route: nothing tells them apart.
		writeError(w, errOrgNotFound(org))
		return p, false
	}
	return p, true
}

func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) {
	p, err := s.authenticate(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resources.Me{User: p.user, TokenID: p.tokenID,
		Organizations: []resources.Organization{{Name: p.org.Name, DefaultRegion: p.org.DefaultRegion}}})
}

func (s *Server) handleRegions(w http.ResponseWriter, r *http.Request) {
	if _, err := s.authenticate(r); err != nil {
		s.fail(w, r, err)
		return
	}
	var list resources.RegionList
	for _, name := range resources.Regions() {
		list.Items = append(list.Items, resources.Region{Name: name, Default: name == resources.DefaultRegion})
	}
	writeJSON(w, http.StatusOK, list)
}

// Maximum page size of a list.
const maxListLimit = 10000

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	p, ok := s.orgPrincipal(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	lq := store.ListQuery{OrgID: p.org.ID, Region: q.Get("region"), Kind: q.Get("kind")}
	if lq.Region != "" {
		if err := resources.ValidateRegion(lq.Region); err != nil {
			writeError(w, errInvalid("region: %v", err))
			return
		}
	}
	if lq.Kind != "" {
		if err := resources.ValidateKind(lq.Kind); err != nil {
			writeError(w, errInvalid("kind: %v", err))
			return
		}
	}
	sel, err := resources.ParseSelector(q.Get("labelSelector"))
	if err != nil {
		writeError(w, errInvalid("labelSelector: %v", err))
		return
	}
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListLimit {
			writeError(w, errInvalid("limit: want a number from 1 to %d", maxListLimit))
			return
		}
		limit = n
	}
	if c := q.Get("continue"); c != "" {
		// A token is the base64 of the last name of the previous page: it
		// must decode to a valid object name, or it is not one of ours.
		after, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil || resources.ValidateName(string(after)) != nil {
			writeError(w, errInvalid("continue: not a token returned by a previous list"))
			return
		}
		lq.After = string(after)
	}
	bp := s.getListBuf()
	defer s.putListBuf(bp)
	buf := append((*bp)[:0], `{"apiVersion":"`+resources.APIVersion+`","kind":"List","items":[`...)
	n := 0
	last, next := "", ""
	var labels map[string]string // the item's labels, for a selector
	err = s.store.List(r.Context(), lq, func(it *store.ListItem) (bool, error) {
		if len(sel) > 0 {
			if labels == nil {
				labels = map[string]string{}
			}
			clear(labels)
			for i := 0; i+1 < len(it.LabelPairs); i += 2 {
				labels[it.LabelPairs[i]] = it.LabelPairs[i+1]
			}
			if !sel.Matches(labels) {
				return true, nil
			}
		}
		if limit > 0 && n == limit {
			next = base64.RawURLEncoding.EncodeToString([]byte(last))
			return false, nil
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = appendItemJSON(buf, p.org.Name, it)
		last = it.Name
		n++
		return true, nil
	})
	*bp = buf
	if err != nil {
		s.fail(w, r, err)
		return
	}
	buf = append(buf, `],"metadata":{`...)
	if next != "" {
		buf = append(buf, `"continue":`...)
		buf = appendJSONString(buf, next)
	}
	buf = append(buf, "}}\n"...)
	*bp = buf
	writeRaw(w, http.StatusOK, buf)
}

// Lists are encoded into pooled buffers: a list of 10,000 sets is a few
// MB, which would otherwise be grown and copied for every request.
const maxPooledListBuf = 32 << 20

func (s *Server) getListBuf() *[]byte {
	if bp, ok := s.listBufs.Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, 0, 64<<10)
	return &b
}

func (s *Server) putListBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledListBuf {
		s.listBufs.Put(bp)
	}
}

// writeRaw writes an already encoded JSON body.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeObject writes one object (key names, never values).
func writeObject(w http.ResponseWriter, status int, org string, o store.Object) {
	writeRaw(w, status, append(appendObjectJSON(make([]byte, 0, 512), org, o), '\n'))
}

func setETag(w http.ResponseWriter, o store.Object) {
	w.Header().Set("ETag", `"`+strconv.FormatInt(o.Version, 10)+`"`)
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	p, ok := s.orgPrincipal(w, r)
	if !ok {
		return
	}
	o, err := s.store.Object(r.Context(), p.org.ID, name)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, errObjectNotFound(name))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	setETag(w, o)
	writeObject(w, http.StatusOK, p.org.Name, o)
}

func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	p, ok := s.orgPrincipal(w, r)
	if !ok {
		return
	}
	var pt resources.Patch
	if err := decodeBody(w, r, &pt); err != nil {
		s.fail(w, r, err)
		return
	}
	pc := precondition{ifMatch: r.Header.Get("If-Match"), ifNoneMatch: r.Header.Get("If-None-Match")}
	if pc.ifNoneMatch != "" && strings.TrimSpace(pc.ifNoneMatch) != "*" {
		s.fail(w, r, errInvalid("If-None-Match: only * is supported"))
		return
	}
	o, created, err := s.merge(r.Context(), p, name, pt, pc)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeWritten(w, p.org.Name, o, created)
}

func (s *Server) handlePut(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	p, ok := s.orgPrincipal(w, r)
	if !ok {
		return
	}
	dryRun := false
	switch v := r.URL.Query().Get("dryRun"); v {
	case "", "false":
	case "true", "All":
		dryRun = true
	default:
		writeError(w, errInvalid("dryRun: want true or false"))
		return
	}
	var raw json.RawMessage
	if err := decodeBody(w, r, &raw); err != nil {
		s.fail(w, r, err)
		return
	}
	in, err := decodeObject(raw)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	o, pl, created, err := s.replace(r.Context(), p, name, in, r.Header.Get("If-Match"), dryRun)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if dryRun {
		writeJSON(w, http.StatusOK, pl)
		return
	}
	writeWritten(w, p.org.Name, o, created)
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	p, ok := s.orgPrincipal(w, r)
	if !ok {
		return
	}
	o, err := s.deleteObject(r.Context(), p, name, r.Header.Get("If-Match"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeObject(w, http.StatusOK, p.org.Name, o)
}

func (s *Server) handleDeleteKey(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	p, ok := s.orgPrincipal(w, r)
	if !ok {
		return
	}
	o, err := s.deleteKey(r.Context(), p, name, r.PathValue("key"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	setETag(w, o)
	writeObject(w, http.StatusOK, p.org.Name, o)
}

// AuditEntry is one record of GET /v1/organizations/{org}/audit.
type AuditEntry struct {
	Time   time.Time `json:"time"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	Kind   string    `json:"kind"`
	Name   string    `json:"name"`
	Region string    `json:"region"`
	Keys   []string  `json:"keys"`
}

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	p, ok := s.orgPrincipal(w, r)
	if !ok {
		return
	}
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			writeError(w, errInvalid("limit: want a number from 1 to 1000"))
			return
		}
		limit = n
	}
	recs, err := s.store.Audit(r.Context(), p.org.Name, limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	items := make([]AuditEntry, 0, len(recs))
	for _, a := range recs {
		items = append(items, AuditEntry{Time: a.At, Actor: a.Actor, Action: a.Action, Kind: a.Kind, Name: a.Name, Region: a.Region, Keys: a.Keys})
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
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

func (s *Server) handleApply(w http.ResponseWriter, r *http.Request) {
	p, ok := s.orgPrincipal(w, r)
	if !ok {
		return
	}
	var req applyWire
	if err := decodeBodyLimit(w, r, &req, resources.MaxApplyRequestBytes); err != nil {
		s.fail(w, r, err)
		return
	}
	if req.Objects == nil {
		s.fail(w, r, errInvalid("objects is required (a list; [] with prune applies no object and prunes)"))
		return
	}
	res, err := s.apply(r.Context(), p, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) handleDeleteMany(w http.ResponseWriter, r *http.Request) {
	p, ok := s.orgPrincipal(w, r)
	if !ok {
		return
	}
	var req resources.DeleteRequest
	if err := decodeBodyLimit(w, r, &req, resources.MaxApplyRequestBytes); err != nil {
		s.fail(w, r, err)
		return
	}
	if req.Objects == nil {
		s.fail(w, r, errInvalid("objects is required (a list of the objects to delete)"))
		return
	}
	res, err := s.deleteMany(r.Context(), p, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

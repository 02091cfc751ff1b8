// Package client is the typed client of the platform API (api/openapi.yaml).
// It talks to a remote platform over HTTP, or to the embedded local platform
// in-process through the same code (an http.RoundTripper that serves the
// platform's handler, see NewInProcess; pkg/embedded opens the embedded platform).
//
// Every API error is returned as *resources.Error, the type the platform's
// service returns in process, whose ErrorCode is the API's
// error code; cmdutil maps codes to exit codes (the one mapping). A platform
// that cannot be reached is a *NetworkError, one whose TLS certificate is not
// accepted a *CertificateError (runtime failures, exit 1).
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/internal/redact"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// Defaults of Options.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultRetries      = 4
	DefaultPollInterval = 250 * time.Millisecond
)

// IfAbsent, given as the ifMatch of Merge, makes the merge conditional on the
// object not existing yet (If-None-Match: *): a concurrent creation is a
// conflict instead of a silent merge.
const IfAbsent = "absent"

// Options configure a Client.
type Options struct {
	// BaseURL is the platform's URL (https://host[:port][/prefix]).
	BaseURL string
	// Token is sent as "Authorization: Bearer <token>" when not empty.
	Token string
	// Transport carries the requests (nil: a clone of
	// http.DefaultTransport).
	Transport http.RoundTripper
	// Timeout bounds each attempt of a request, reading the answer included
	// (0: DefaultTimeout).
	Timeout time.Duration
	// Retries is how many times an idempotent request (GET, PUT, DELETE) is
	// retried on 429, 502, 503, 504 or a reset connection (0:
	// DefaultRetries; negative: never).
	Retries int
	// PollInterval is the first delay between two reads of Wait (0:
	// DefaultPollInterval); it grows up to 2s.
	PollInterval time.Duration
	// UserAgent is sent with every request (default "botkit").
	UserAgent string
	// AllowInsecureHTTP lets the token go over plain http:// to a host
	// other than this machine (BOTKIT_INSECURE_HTTP=1). Without it New
	// refuses such a URL when there is a token.
	AllowInsecureHTTP bool
	// AuthHint is appended to the message of a 401 (what to do about a
	// refused token).
	AuthHint string
	// CA is a private certificate authority trusted besides the system's
	// for https:// (with the default Transport only). A file that cannot
	// be used makes New fail with a *CAFileError.
	CA CAFile
	// CAHint is appended to the message of a certificate signed by an
	// unknown authority when no CA file was given (how to give one).
	CAHint string
}

// Client calls the platform API. The methods follow the API's routes; List
// follows `continue` pages itself. Idempotent requests are retried with
// backoff on 429/502/503/504 and connection resets; PATCH is not.
// A Client is safe for concurrent use.
type Client struct {
	base    *url.URL
	host    string // what errors call the platform
	token   string
	hc      *http.Client
	timeout time.Duration
	retries int
	poll    time.Duration
	ua      string
	hint    string
	ca      CAFile
	caHint  string
	// backoff returns the delay before retry number n (1-based); tests
	// shorten it.
	backoff func(n int) time.Duration

	inProcess *InProcess // nil for a remote platform
}

// New returns a client of the platform at opts.BaseURL. A token is never
// sent over plain http:// to another machine unless opts.AllowInsecureHTTP.
func New(opts Options) (*Client, error) {
	u, err := ParseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	if opts.Token != "" && u.Scheme == "http" && !isLoopback(u.Hostname()) && !opts.AllowInsecureHTTP {
		return nil, &resources.Error{Code: resources.CodeInvalid, Message: fmt.Sprintf(
			"refusing to send the API token over plain http:// to %s, where anyone on the way can read it: use https://, or set BOTKIT_INSECURE_HTTP=1 to allow it", u.Host)}
	}
	if opts.CA.Path != "" && opts.Transport == nil {
		tr, err := caTransport(opts.CA)
		if err != nil {
			return nil, err
		}
		opts.Transport = tr
	}
	return newClient(u, u.Host, opts), nil
}

func newClient(u *url.URL, host string, opts Options) *Client {
	c := &Client{base: u, host: host, token: opts.Token, timeout: opts.Timeout, retries: opts.Retries,
		poll: opts.PollInterval, ua: opts.UserAgent, hint: opts.AuthHint, ca: opts.CA, caHint: opts.CAHint, backoff: backoff}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	switch {
	case c.retries == 0:
		c.retries = DefaultRetries
	case c.retries < 0:
		c.retries = 0
	}
	if c.poll <= 0 {
		c.poll = DefaultPollInterval
	}
	if c.ua == "" {
		c.ua = UserAgent("dev")
	}
	tr := opts.Transport
	if tr == nil {
		tr = http.DefaultTransport.(*http.Transport).Clone()
	}
	c.hc = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		// A redirect would resend the token elsewhere; the API never
		// redirects.
		return http.ErrUseLastResponse
	}}
	return c
}

// UserAgent returns botkit's User-Agent for version.
func UserAgent(version string) string {
	return fmt.Sprintf("botkit/%s (%s/%s)", version, runtime.GOOS, runtime.GOARCH)
}

// ParseURL checks a platform URL: http or https, a host, no query, no user
// information. The error names the problem, never a token.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, &resources.Error{Code: resources.CodeInvalid, Message: fmt.Sprintf("API URL %q: want http(s)://host[:port]", redact.Location(raw))}
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, &resources.Error{Code: resources.CodeInvalid, Message: fmt.Sprintf("API URL %q: no user, query or fragment allowed", redact.Location(raw))}
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// isLoopback reports whether host is this machine: localhost or a
// loopback address.
func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Host names the platform in messages: the URL's host, or "the embedded
// local platform".
func (c *Client) Host() string { return c.host }

// BaseURL returns the platform's URL ("" for the embedded platform).
func (c *Client) BaseURL() string {
	if c.inProcess != nil {
		return ""
	}
	return c.base.String()
}

// Embedded reports whether the platform runs in this process (the embedded
// local platform, see NewInProcess).
func (c *Client) Embedded() bool { return c.inProcess != nil }

// Close releases the client. For the embedded platform it lets the
// provisioner finish what the process started (bounded) and closes the
// database; for a remote platform it closes idle connections.
func (c *Client) Close() error {
	c.hc.CloseIdleConnections()
	if c.inProcess != nil && c.inProcess.Close != nil {
		return c.inProcess.Close()
	}
	return nil
}

// MaxResponseBytes bounds the body of an answer the client reads: the
// platform's largest (a page of 1,000 objects) is far below it.
const MaxResponseBytes = 64 << 20

// ResponseTooLargeError is an answer whose body is over MaxResponseBytes:
// not read further, a runtime failure (exit 1).
type ResponseTooLargeError struct {
	Host, Method, Path string
	Limit              int
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("the platform at %s answered %s %s with a body over %d MiB; not read further", e.Host, e.Method, e.Path, e.Limit>>20)
}

// NetworkError is a request that got no answer: the platform could not be
// reached, the connection broke, or no answer came within the timeout.
// It is a runtime failure (exit 1).
type NetworkError struct {
	Host string // the platform's host
	Err  error  // the cause, without the URL
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("cannot reach the platform at %s: %v", e.Host, e.Err)
}

func (e *NetworkError) Unwrap() error { return e.Err }

// ListOptions filter a list.
type ListOptions struct {
	Region        string // "" = all regions
	Kind          string // "" = all kinds; resources.KindSecretSet / KindImagePullSecret
	LabelSelector string
	// Limit is the page size asked for (0: the server's choice, one page
	// of everything on botkit-platform). List returns every page either way.
	Limit int
}

// Me returns the token's user and organizations (GET /v1/me).
func (c *Client) Me(ctx context.Context) (resources.Me, error) {
	var me resources.Me
	_, err := c.do(ctx, http.MethodGet, "/v1/me", nil, nil, nil, &me)
	return me, err
}

// Regions lists the regions (GET /v1/regions).
func (c *Client) Regions(ctx context.Context) ([]resources.Region, error) {
	var rl resources.RegionList
	_, err := c.do(ctx, http.MethodGet, "/v1/regions", nil, nil, nil, &rl)
	return rl.Items, err
}

// List lists the objects of org, all pages, ordered by name.
func (c *Client) List(ctx context.Context, org string, opts ListOptions) ([]resources.Object, error) {
	q := url.Values{}
	if opts.Region != "" {
		q.Set("region", opts.Region)
	}
	if opts.Kind != "" {
		q.Set("kind", opts.Kind)
	}
	if opts.LabelSelector != "" {
		q.Set("labelSelector", opts.LabelSelector)
	}
	if opts.Limit > 0 {
		q.Set("limit", fmt.Sprint(opts.Limit))
	}
	var items []resources.Object
	seen := map[string]bool{}
	for {
		var page resources.List
		if _, err := c.do(ctx, http.MethodGet, orgPath(org, "secrets"), q, nil, nil, &page); err != nil {
			return nil, err
		}
		items = append(items, page.Items...)
		next := page.Metadata.Continue
		if next == "" {
			return items, nil
		}
		if seen[next] {
			return nil, &resources.Error{Code: resources.CodeInternal,
				Message: fmt.Sprintf("the platform at %s returned the same list page twice", c.host)}
		}
		seen[next] = true
		q.Set("continue", next)
	}
}

// Get returns one object, key names only.
func (c *Client) Get(ctx context.Context, org, name string) (resources.Object, error) {
	var o resources.Object
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "secrets", name), nil, nil, nil, &o)
	return o, err
}

// Merge sends one atomic PATCH (creating the object when missing). ifMatch,
// when not empty, makes it conditional: a resourceVersion (the object must
// still be at that version), "*" (it must exist) or IfAbsent (it must not
// exist yet); a failed condition is a conflict. created reports whether the
// object was created. A PATCH is never retried.
func (c *Client) Merge(ctx context.Context, org, name string, p resources.Patch, ifMatch string) (obj resources.Object, created bool, err error) {
	body, err := json.Marshal(p)
	if err != nil {
		return obj, false, fmt.Errorf("encoding the merge of %s: %w", name, err)
	}
	h := http.Header{}
	switch ifMatch {
	case "":
	case IfAbsent:
		h.Set("If-None-Match", "*")
	default:
		h.Set("If-Match", ifMatch)
	}
	status, err := c.do(ctx, http.MethodPatch, orgPath(org, "secrets", name), nil, h, body, &obj)
	return obj, status == http.StatusCreated, err
}

// Replace sends one PUT: the object becomes exactly o (the apply path).
// ifMatch as in Merge ("*" or a resourceVersion). created reports whether
// the object was created.
func (c *Client) Replace(ctx context.Context, org string, o resources.Object, ifMatch string) (obj resources.Object, created bool, err error) {
	m := o.Meta()
	if m == nil {
		return obj, false, errors.New("replace: empty object")
	}
	body, err := json.Marshal(o)
	if err != nil {
		return obj, false, fmt.Errorf("encoding %s: %w", m.Name, err)
	}
	h := http.Header{}
	if ifMatch != "" {
		h.Set("If-Match", ifMatch)
	}
	status, err := c.do(ctx, http.MethodPut, orgPath(org, "secrets", m.Name), nil, h, body, &obj)
	return obj, status == http.StatusCreated, err
}

// Delete deletes an object and returns it as it was.
func (c *Client) Delete(ctx context.Context, org, name string) (resources.Object, error) {
	var o resources.Object
	_, err := c.do(ctx, http.MethodDelete, orgPath(org, "secrets", name), nil, nil, nil, &o)
	return o, err
}

// DeleteKey removes one key of a secret set and returns the set.
func (c *Client) DeleteKey(ctx context.Context, org, name, key string) (resources.Object, error) {
	var o resources.Object
	_, err := c.do(ctx, http.MethodDelete, orgPath(org, "secrets", name, "keys", key), nil, nil, nil, &o)
	return o, err
}

// Versions returns the history of the object name, newest first, every
// kept version (all pages).
func (c *Client) Versions(ctx context.Context, org, name string) ([]resources.ObjectVersion, error) {
	var out []resources.ObjectVersion
	q := url.Values{}
	for {
		var page resources.ObjectVersionList
		if _, err := c.do(ctx, http.MethodGet, orgPath(org, "secrets", name, "versions"), q, nil, nil, &page); err != nil {
			return out, err
		}
		out = append(out, page.Items...)
		if page.Metadata.Continue == "" {
			return out, nil
		}
		q.Set("continue", page.Metadata.Continue)
	}
}

// Version returns one version of the object name: its key names, never
// a value.
func (c *Client) Version(ctx context.Context, org, name string, version int64) (resources.ObjectVersion, error) {
	var v resources.ObjectVersion
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "secrets", name, "versions", strconv.FormatInt(version, 10)), nil, nil, nil, &v)
	return v, err
}

// Rollback writes the contents of version as the object's next version,
// when the object is still at resourceVersion ifMatch ("" = any). A POST
// is never retried.
func (c *Client) Rollback(ctx context.Context, org, name string, version int64, ifMatch string) (resources.Object, error) {
	h := http.Header{}
	if ifMatch != "" {
		h.Set("If-Match", `"`+ifMatch+`"`)
	}
	var o resources.Object
	_, err := c.do(ctx, http.MethodPost, orgPath(org, "secrets", name, "versions", strconv.FormatInt(version, 10), "rollback"), nil, h, nil, &o)
	return o, err
}

// Apply sends every object of one organization in one request (POST
// /v1/organizations/{org}/apply), which the platform applies in one
// transaction: all of them, or none. With req.DryRun it returns what apply
// would do and writes nothing. A failure of some objects is a *resources.Error
// whose Details name each of them. A POST is never retried.
func (c *Client) Apply(ctx context.Context, org string, req resources.ApplyRequest) (resources.ApplyResult, error) {
	var res resources.ApplyResult
	err := c.post(ctx, orgPath(org, "apply"), req, &res)
	return res, err
}

// DeleteObjects deletes the named objects of one organization in one
// transaction (POST /v1/organizations/{org}/delete): all of them, or none
// (a missing one is not found unless req.IgnoreNotFound). Never retried.
func (c *Client) DeleteObjects(ctx context.Context, org string, req resources.DeleteRequest) (resources.DeleteResult, error) {
	var res resources.DeleteResult
	err := c.post(ctx, orgPath(org, "delete"), req, &res)
	return res, err
}

// SealingKey returns the organization's public sealing key (GET
// /v1/organizations/{org}/sealing-key): what botkit seal encrypts to.
func (c *Client) SealingKey(ctx context.Context, org string) (resources.SealingKey, error) {
	var k resources.SealingKey
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "sealing-key"), nil, nil, nil, &k)
	return k, err
}

// Reseal has the platform encrypt sealed values of the organization again,
// to its current key (POST /v1/organizations/{org}/reseal). The values
// never leave the platform decrypted.
func (c *Client) Reseal(ctx context.Context, org string, values []string) (resources.ResealResult, error) {
	var res resources.ResealResult
	err := c.post(ctx, orgPath(org, "reseal"), resources.ResealRequest{Values: values}, &res)
	return res, err
}

// Preflight has the platform check a deploy's secret set, image pull secret
// and image (POST /v1/organizations/{org}/preflight); nothing is written.
func (c *Client) Preflight(ctx context.Context, org string, req resources.PreflightRequest) (resources.PreflightResult, error) {
	var res resources.PreflightResult
	err := c.post(ctx, orgPath(org, "preflight"), req, &res)
	return res, err
}

func (c *Client) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encoding the request: %w", err)
	}
	_, err = c.do(ctx, http.MethodPost, path, nil, nil, body, out)
	return err
}

// Wait polls the object until its status is ready or failed (or ctx ends)
// and returns it. The caller maps failed to exit 1.
func (c *Client) Wait(ctx context.Context, org, name string) (resources.Object, error) {
	objs, err := c.WaitAll(ctx, org, []string{name})
	if len(objs) == 0 {
		return resources.Object{}, err
	}
	return objs[0], err
}

// WaitAll polls the objects of org named in names until none is pending
// (or ctx ends) and returns them, in names order: the one wait loop. Each
// round is one request: a get for one object, a list for several, however
// many they are. An object that is gone (deleted meanwhile) is a not-found
// error.
func (c *Client) WaitAll(ctx context.Context, org string, names []string) ([]resources.Object, error) {
	delay := c.poll
	for {
		var all []resources.Object
		var err error
		if len(names) == 1 {
			var o resources.Object
			o, err = c.Get(ctx, org, names[0])
			all = []resources.Object{o}
		} else {
			all, err = c.List(ctx, org, ListOptions{})
		}
		if err != nil {
			return nil, err
		}
		byName := make(map[string]resources.Object, len(all))
		for _, o := range all {
			byName[o.Meta().Name] = o
		}
		out := make([]resources.Object, 0, len(names))
		pending := false
		for _, n := range names {
			o, ok := byName[n]
			if !ok {
				return nil, &resources.Error{Code: resources.CodeNotFound,
					Message: fmt.Sprintf("%s was deleted while waiting for it", n)}
			}
			if st := o.Status(); st == nil || st.State == resources.StatePending {
				pending = true
			}
			out = append(out, o)
		}
		if !pending {
			return out, nil
		}
		if err := pause(ctx, &delay); err != nil {
			return out, err
		}
	}
}

// maxPollDelay caps the growing pause between the polls of Wait and WaitAll.
const maxPollDelay = 2 * time.Second

// pause waits *delay, or returns ctx's error when ctx ends first; then it
// grows *delay by half, to at most maxPollDelay.
func pause(ctx context.Context, delay *time.Duration) error {
	return pauseUpTo(ctx, delay, maxPollDelay)
}

// pauseUpTo is pause with its own cap.
func pauseUpTo(ctx context.Context, delay *time.Duration, most time.Duration) error {
	t := time.NewTimer(*delay)
	select {
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	case <-t.C:
	}
	*delay = min(*delay*3/2, most)
	return nil
}

// fixedSegments are the path segments orgPath writes as they are: the
// API's own words, never a name.
var fixedSegments = map[string]bool{
	"secrets": true, "keys": true, "versions": true, "rollback": true,
	"agents": true, "deployments": true, "status": true, "restart": true, "logs": true,
}

// orgPath builds /v1/organizations/{org}/{parts...} with every segment
// escaped.
func orgPath(org string, parts ...string) string {
	var b strings.Builder
	b.WriteString("/v1/organizations/")
	b.WriteString(url.PathEscape(org))
	for _, p := range parts {
		b.WriteByte('/')
		if fixedSegments[p] {
			b.WriteString(p)
			continue
		}
		b.WriteString(url.PathEscape(p))
	}
	return b.String()
}

// idempotent reports whether a request may be sent again when its answer
// was lost or refused for load.
func idempotent(method string) bool {
	return method == http.MethodGet || method == http.MethodPut || method == http.MethodDelete || method == http.MethodHead
}

// do sends one API request (retrying idempotent ones), decodes a 2xx answer
// into out and returns its status; any other answer is a *resources.Error.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, h http.Header, body []byte, out any) (int, error) {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawPath = c.base.Path + path
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}
	for attempt := 0; ; attempt++ {
		status, retryAfter, err := c.once(ctx, method, &u, h, body, out)
		if err == nil {
			return status, nil
		}
		if attempt >= c.retries || !idempotent(method) || !retryable(status, err) || ctx.Err() != nil {
			return status, err
		}
		d := c.backoff(attempt + 1)
		if retryAfter > d {
			d = min(retryAfter, 10*time.Second)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return status, ctx.Err()
		case <-t.C:
		}
	}
}

// retryable: a load-shedding or gateway answer, or a connection the peer
// reset or closed before answering.
func retryable(status int, err error) bool {
	var re *resources.Error
	if errors.As(err, &re) {
		switch status {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var ne *NetworkError
	return errors.As(err, &ne) && isReset(ne.Err)
}

func (c *Client) once(ctx context.Context, method string, u *url.URL, h http.Header, body []byte, out any) (status int, retryAfter time.Duration, err error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, u.String(), rd)
	if err != nil {
		return 0, 0, fmt.Errorf("building the request to %s: %w", c.host, err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", c.ua)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, 0, c.netErr(ctx, actx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return resp.StatusCode, 0, c.netErr(ctx, actx, err)
	}
	if len(data) > MaxResponseBytes {
		return resp.StatusCode, 0, &ResponseTooLargeError{Host: c.host, Method: method, Path: u.Path, Limit: MaxResponseBytes}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		ra := parseRetryAfter(resp.Header.Get("Retry-After"))
		e := c.apiError(resp, data)
		e.RetryAfter = ra
		return resp.StatusCode, ra, e
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, 0, &resources.Error{Code: resources.CodeInternal,
				Message: fmt.Sprintf("the platform at %s answered %s %s with a body that is not the API's JSON (%s)", c.host, method, u.Path, describeJSONError(err))}
		}
	}
	return resp.StatusCode, 0, nil
}

// apiError decodes an error answer. The body is used only when it is the
// API's error object; otherwise the message names the status only.
func (c *Client) apiError(resp *http.Response, data []byte) *resources.Error {
	var er resources.ErrorResponse
	e := &resources.Error{Code: resources.CodeOfStatus(resp.StatusCode),
		Message: fmt.Sprintf("the platform at %s answered %s", c.host, statusText(resp))}
	if json.Unmarshal(data, &er) == nil && er.Error.Code != "" && er.Error.Message != "" {
		e.Code, e.Message, e.Details = er.Error.Code, er.Error.Message, er.Error.Details
	}
	if resp.StatusCode == http.StatusUnauthorized && c.hint != "" {
		e.Message += ": " + c.hint
	}
	return e
}

func statusText(resp *http.Response) string {
	if t := http.StatusText(resp.StatusCode); t != "" {
		return fmt.Sprintf("HTTP %d %s", resp.StatusCode, t)
	}
	return fmt.Sprintf("HTTP %d", resp.StatusCode)
}

// describeJSONError says where a body stopped being JSON, never quoting it.
func describeJSONError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("unexpected %s at byte %d", te.Value, te.Offset)
	}
	return "unexpected content"
}

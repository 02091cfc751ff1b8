// Package apitest checks live HTTP exchanges with the platform against its
// contract, api/openapi.yaml (kin-openapi's openapi3filter): a request the
// contract allows, a response it describes.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// Contract is api/openapi.yaml, loaded and validated.
type Contract struct {
	Doc    *openapi3.T
	router routers.Router
}

// Load loads the contract of the repository the test runs in.
func Load(t testing.TB) *Contract {
	t.Helper()
	registerDecoders()
	doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join(testenv.RepoRoot(t), "api", "openapi.yaml"))
	if err != nil {
		t.Fatalf("api/openapi.yaml: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("api/openapi.yaml does not validate: %v", err)
	}
	doc.Servers = nil // match the test server's address
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &Contract{Doc: doc, router: r}
}

// registerDecoders lets responses of the call page's types be checked
// (their schemas are strings).
var registerDecoders = sync.OnceFunc(func() {
	for _, ct := range []string{"text/html", "text/javascript", "text/css"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
})

var options = &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: false}

// CheckRequest returns the contract's objection to req with body (nil when
// it allows it).
func (c *Contract) CheckRequest(req *http.Request, body []byte) error {
	req, route, params, err := c.findRoute(req)
	if err != nil {
		return err
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: options})
}

// CheckResponse returns the contract's objection to a response of req.
func (c *Contract) CheckResponse(req *http.Request, status int, header http.Header, body []byte) error {
	req, route, params, err := c.findRoute(req)
	if err != nil {
		return err
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: options}
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: header, Body: io.NopCloser(bytes.NewReader(body)), Options: options})
}

// proxied matches the session proxy's paths, whose last parameter, path,
// is one or more segments (the router matches one).
var proxied = regexp.MustCompile(`^(/v1/public/[^/]+/sessions/[^/]+/)(.+/.*)$`)

// findRoute returns the contract's route of req, and req as routed: a
// session proxy's path of several segments has its slashes escaped, one
// segment as the router reads it.
func (c *Contract) findRoute(req *http.Request) (*http.Request, *routers.Route, map[string]string, error) {
	if m := proxied.FindStringSubmatch(req.URL.Path); m != nil {
		r := req.Clone(req.Context())
		r.URL.Path, r.URL.RawPath = m[1]+strings.ReplaceAll(m[2], "/", "%2F"), ""
		req = r
	}
	route, params, err := c.router.FindRoute(req)
	return req, route, params, err
}

// JSONLines is the media type of the answers that stream JSON values, one
// a line (the agents' logs).
const JSONLines = "application/x-ndjson"

// CheckJSONLines returns the contract's objection to a JSONLines response
// of req: a status it lists with that media type, and each line a JSON
// value its schema allows (openapi3filter does not read the type).
func (c *Contract) CheckJSONLines(req *http.Request, status int, body []byte) error {
	_, route, _, err := c.findRoute(req)
	if err != nil {
		return err
	}
	ref := route.Operation.Responses.Status(status)
	if ref == nil || ref.Value == nil || ref.Value.Content.Get(JSONLines) == nil {
		return fmt.Errorf("%s %s: no %d response of type %s", req.Method, route.Path, status, JSONLines)
	}
	schema := ref.Value.Content.Get(JSONLines).Schema.Value
	for i, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n")) {
		if len(line) == 0 && len(body) == 0 {
			break
		}
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			return fmt.Errorf("line %d is not JSON: %v", i+1, err)
		}
		if err := schema.VisitJSON(v); err != nil {
			return fmt.Errorf("line %d: %v", i+1, err)
		}
	}
	return nil
}

// Reply is a response as read.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends method path (on base, with body and headers) over real HTTP,
// checks the response against the contract (failing t when it is not
// described by it) and returns it with the contract's objection to the
// request (nil: the contract allows it).
func (c *Contract) Do(t testing.TB, base, method, path, body string, header map[string]string) (Reply, error) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	reqErr := c.CheckRequest(req, []byte(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckResponse(req, resp.StatusCode, resp.Header, data); err != nil {
		t.Errorf("%s %s: the %d response is not what api/openapi.yaml describes: %v\n%s", method, path, resp.StatusCode, err, data)
	}
	return Reply{resp.StatusCode, resp.Header, data}, reqErr
}

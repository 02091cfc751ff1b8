package resources

import (
	"fmt"
	"time"
)

// Wire types of the platform API (api/openapi.yaml) that are not objects.

// Error codes of the platform API ({"error":{"code","message"}}). The HTTP
// status of each is in statusByCode, the one table both sides use.
const (
	CodeInvalid         = "invalid"         // 400
	CodeUnauthenticated = "unauthenticated" // 401
	CodeForbidden       = "forbidden"       // 403
	CodeNotFound        = "not_found"       // 404
	CodeConflict        = "conflict"        // 409
	CodeTooLarge        = "too_large"       // 413: body over 1 MiB, or a value/key/set limit
	CodeInternal        = "internal"        // 500
	CodeUnavailable     = "unavailable"     // 503: the platform's database cannot be reached; retry
	// CodeUnprocessable: a valid request the platform cannot carry out
	// (a deploy to a region with no runtime, an image its pull secret
	// cannot resolve): 422, exit 1.
	CodeUnprocessable = "unprocessable"
	// CodeAtCapacity: every agent an agent may run is in a session (429,
	// with Retry-After): try again shortly.
	CodeAtCapacity = "at_capacity"
)

// statusByCode is the HTTP status of each code: the platform's HTTP layer
// answers an error with it, and the client reads a status back into a code
// when an answer has no error body (a proxy's page).
var statusByCode = map[string]int{
	CodeInvalid:         400,
	CodeUnauthenticated: 401,
	CodeForbidden:       403,
	CodeNotFound:        404,
	CodeConflict:        409,
	CodeTooLarge:        413,
	CodeInternal:        500,
	CodeUnavailable:     503,
	CodeUnprocessable:   422,
	CodeAtCapacity:      429,
}

// HTTPStatus is the HTTP status of code (500 for a code this version does
// not know).
func HTTPStatus(code string) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	return 500
}

// CodeOfStatus is the code of an HTTP error status: the inverse of
// HTTPStatus, with the statuses a proxy or net/http itself may answer
// (405, 412, 422 and the 5xx family) read as the nearest code.
func CodeOfStatus(status int) string {
	for code, s := range statusByCode {
		if s == status {
			return code
		}
	}
	switch {
	case status == 405:
		return CodeInvalid
	case status == 412:
		return CodeConflict
	case status == 502 || status == 504:
		return CodeUnavailable
	}
	return CodeInternal
}

// Error is a domain error carrying one of the codes above. Core logic
// returns it (or wraps it); the platform's HTTP layer turns the code into a
// status and the command line's root into an exit code; the client reads
// an error answer back into it, so errors.As finds the same *Error in
// process and over the network. Its message is shown to users, so it never
// holds a value.
type Error struct {
	Code    string
	Message string
	// Details lists every object that failed, for the operations on many
	// objects (apply, delete); Message then speaks of the first of them.
	Details []ObjectError
	// Field is the field of the object the error is about (a dot path
	// such as "spec.data.KEY"), when it is about one: apply's details
	// carry it so the CLI can point at the manifest's line.
	Field string
	// RetryAfter, with CodeAtCapacity, is how long to wait before trying
	// again (the Retry-After header).
	RetryAfter time.Duration
}

// Errorf is an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return e.Message }

// ErrorCode returns the error's code.
func (e *Error) ErrorCode() string { return e.Code }

// Is makes a code-only *Error (no Message) a sentinel: errors.Is(err,
// &Error{Code: CodeNotFound}) is true for every not-found error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// ErrorDetail is the body of an API error.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Details lists every object that failed, for the operations on many
	// objects (apply, delete); Message then speaks of the first of them.
	Details []ObjectError `json:"details,omitempty"`
}

// ObjectError is the problem with one object of an apply or delete request.
// Index is the object's position in the request's objects.
type ObjectError struct {
	Index   int    `json:"index"`
	Kind    string `json:"kind,omitempty"`
	Name    string `json:"name,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Field is the object's field the problem is in ("spec.data.KEY"),
	// when it is in one.
	Field string `json:"field,omitempty"`
}

// ErrorResponse is {"error":{"code":...,"message":...}}.
type ErrorResponse struct {
	Error ErrorDetail `json:"error"`
}

// Patch is the body of PATCH /v1/organizations/{org}/secrets/{name}: a merge
// that creates the object when it does not exist.
//
// For a SecretSet (the default kind): Set adds or overwrites keys, Remove
// deletes keys (missing ones are ignored), both in one transaction.
// For an ImagePullSecret: Host and Credentials (both required at creation)
// replace the stored ones; Encode as in ImagePullSecretSpec.
// Region, when given, must equal the object's region (409 otherwise); at
// creation it defaults to the organization's default region. Labels, when
// given, replace the object's labels.
type Patch struct {
	Kind        string            `json:"kind,omitempty"`
	Region      string            `json:"region,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Set         map[string]string `json:"set,omitempty"`
	Remove      []string          `json:"remove,omitempty"`
	Host        string            `json:"host,omitempty"`
	Credentials *string           `json:"credentials,omitempty"`
	Encode      *bool             `json:"encode,omitempty"`
}

// Organization is an organization as shown by GET /v1/me.
type Organization struct {
	Name          string `json:"name"`
	DefaultRegion string `json:"defaultRegion"`
}

// Me is the answer of GET /v1/me.
type Me struct {
	User          string         `json:"user"`
	TokenID       string         `json:"tokenId,omitempty"`
	Organizations []Organization `json:"organizations"`
}

// Region is one region.
type Region struct {
	Name    string `json:"name"`
	Default bool   `json:"default"`
}

// RegionList is the answer of GET /v1/regions.
type RegionList struct {
	Items []Region `json:"items"`
}

// AuditEntry is one record of GET /v1/organizations/{org}/audit: who did
// what to which object, and which keys it touched (never values).
type AuditEntry struct {
	Time   time.Time `json:"time"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	Kind   string    `json:"kind"`
	Name   string    `json:"name"`
	Region string    `json:"region"`
	Keys   []string  `json:"keys"`
}

// AuditList is the body of GET /v1/organizations/{org}/audit.
type AuditList struct {
	Items []AuditEntry `json:"items"`
}

// KindVersionList is the kind of an object's history
// (GET .../secrets/{name}/versions).
const KindVersionList = "VersionList"

// ObjectVersion is one version of an object's contents: the write that
// made it and, read one at a time, the key names it holds. Never a value.
type ObjectVersion struct {
	Version int64     `json:"version"`
	Time    time.Time `json:"time"`
	Actor   string    `json:"actor"`
	Source  string    `json:"source"` // set, unset, image-pull-secret, replace, apply, rollback, migration
	Added   []string  `json:"added"`
	Changed []string  `json:"changed"`
	Removed []string  `json:"removed"`
	// Keys, Labels, Host and Username are the version's contents (GET of
	// one version only).
	Keys     []string          `json:"keys,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Host     string            `json:"host,omitempty"`
	Username string            `json:"username,omitempty"`
}

// ObjectVersionList is an object's history, newest first.
type ObjectVersionList struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Items      []ObjectVersion `json:"items"`
	Metadata   ListMeta        `json:"metadata"`
}

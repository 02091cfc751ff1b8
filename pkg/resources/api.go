package resources

// Wire types of the platform API (api/openapi.yaml) that are not objects.

// Error codes of the platform API ({"error":{"code","message"}}) and the
// HTTP statuses they come with.
const (
	CodeInvalid         = "invalid"         // 400
	CodeUnauthenticated = "unauthenticated" // 401
	CodeForbidden       = "forbidden"       // 403
	CodeNotFound        = "not_found"       // 404
	CodeConflict        = "conflict"        // 409
	CodeTooLarge        = "too_large"       // 413: body over 1 MiB, or a value/key/set limit
	CodeInternal        = "internal"        // 500
	CodeUnavailable     = "unavailable"     // 503: the platform's database cannot be reached; retry
)

// Error is a domain error carrying one of the codes above. Core logic
// returns it (or wraps it); the platform's HTTP layer turns the code into a
// status and the command line's root into an exit code. Its message is shown
// to users, so it never holds a value.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// ErrorCode returns the error's code.
func (e *Error) ErrorCode() string { return e.Code }

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

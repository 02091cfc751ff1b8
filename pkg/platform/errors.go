package platform

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// apiError is an error with an HTTP status and a machine-readable code.
// Its message is shown to clients, so it never holds a value.
type apiError struct {
	status  int
	code    string
	msg     string
	details []resources.ObjectError // per object, for apply and delete
}

func (e *apiError) Error() string { return e.msg }

func newErr(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, msg: fmt.Sprintf(format, args...)}
}

func errInvalid(format string, args ...any) *apiError {
	return newErr(http.StatusBadRequest, resources.CodeInvalid, format, args...)
}

func errTooLarge(format string, args ...any) *apiError {
	return newErr(http.StatusRequestEntityTooLarge, resources.CodeTooLarge, format, args...)
}

func errConflict(format string, args ...any) *apiError {
	return newErr(http.StatusConflict, resources.CodeConflict, format, args...)
}

// errObjectNotFound is the one 404 for an object: the same for a missing
// object and for another organization's object.
func errObjectNotFound(name string) *apiError {
	return newErr(http.StatusNotFound, resources.CodeNotFound, "secret %q not found", name)
}

func errOrgNotFound(org string) *apiError {
	return newErr(http.StatusNotFound, resources.CodeNotFound, "organization %q not found", org)
}

// errUnavailable answers requests while the database cannot be reached
// (a PostgreSQL store restarting): nothing was written, retry later.
var errUnavailable = newErr(http.StatusServiceUnavailable, resources.CodeUnavailable,
	"the platform's database is unavailable; nothing was changed, retry shortly")

// errBusy answers a write that waited too long for the lock another
// process holds on a SQLite database (on the CLI's embedded platform:
// another botkit command writing).
var errBusy = newErr(http.StatusServiceUnavailable, resources.CodeUnavailable,
	"the platform's database is locked by another process (on the embedded local platform: another botkit command that is writing); nothing was changed, run the command again when it has finished")

var errUnauthenticated = newErr(http.StatusUnauthorized, resources.CodeUnauthenticated,
	"missing, unknown or revoked API token (send Authorization: Bearer <token>)")

func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errBodyTooLarge(resources.MaxRequestBytes)
	}
	if errors.Is(err, store.ErrUnavailable) {
		return errUnavailable
	}
	if errors.Is(err, store.ErrBusy) {
		return errBusy
	}
	return newErr(http.StatusInternalServerError, resources.CodeInternal, "internal error")
}

func errBodyTooLarge(limit int) *apiError {
	return errTooLarge("request body is larger than %d bytes (%d MiB)", limit, limit>>20)
}

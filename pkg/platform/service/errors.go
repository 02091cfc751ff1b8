package service

import (
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The service's errors are *resources.Error: a code and a message (never a
// value). The HTTP layer gives each code its status (resources.HTTPStatus).

func errInvalid(format string, args ...any) *resources.Error {
	return resources.Errorf(resources.CodeInvalid, format, args...)
}

func errTooLarge(format string, args ...any) *resources.Error {
	return resources.Errorf(resources.CodeTooLarge, format, args...)
}

func errConflict(format string, args ...any) *resources.Error {
	return resources.Errorf(resources.CodeConflict, format, args...)
}

func errNotFound(format string, args ...any) *resources.Error {
	return resources.Errorf(resources.CodeNotFound, format, args...)
}

// errObjectNotFound is the one "not found" of an object: the same for a
// missing object and for another organization's object.
func errObjectNotFound(name string) *resources.Error {
	return errNotFound("secret %q not found", name)
}

// ErrOrgNotFound is the answer to any organization but the caller's own:
// a missing organization and another one's are told apart nowhere.
func ErrOrgNotFound(org string) *resources.Error {
	return errNotFound("organization %q not found", org)
}

// errUnavailable answers requests while the database cannot be reached
// (a PostgreSQL store restarting): nothing was written, retry later.
var errUnavailable = &resources.Error{Code: resources.CodeUnavailable,
	Message: "the platform's database is unavailable; nothing was changed, retry shortly"}

// errBusy answers a write that waited too long for the lock another
// process holds on a SQLite database (on the CLI's embedded platform:
// another botkit command writing).
var errBusy = &resources.Error{Code: resources.CodeUnavailable,
	Message: "the platform's database is locked by another process (on the embedded local platform: another botkit command that is writing); nothing was changed, run the command again when it has finished"}

// errStorageFull answers a write the database refused because its disk is
// full: nothing was changed, and the write may succeed once space is freed.
var errStorageFull = &resources.Error{Code: resources.CodeUnavailable,
	Message: "the platform's storage is full; nothing was changed"}

// ErrUnauthenticated answers a request without a valid token.
var ErrUnauthenticated = &resources.Error{Code: resources.CodeUnauthenticated,
	Message: "missing, unknown or revoked API token (send Authorization: Bearer <token>)"}

// ErrInternal is what a client is told of an unexpected error (the error
// itself is logged).
var ErrInternal = &resources.Error{Code: resources.CodeInternal, Message: "internal error"}

// AsError is err as the client sees it: a *resources.Error as is, the
// store's "unavailable", "busy" and "storage full" as 503s that say nothing
// was changed, and anything else as ErrInternal. ok is false for the last:
// an unexpected error, to be logged.
func AsError(err error) (re *resources.Error, ok bool) {
	if errors.As(err, &re) {
		return re, true
	}
	if errors.Is(err, store.ErrUnavailable) {
		return errUnavailable, true
	}
	if errors.Is(err, store.ErrBusy) {
		return errBusy, true
	}
	if errors.Is(err, store.ErrStorageFull) {
		return errStorageFull, true
	}
	return ErrInternal, false
}

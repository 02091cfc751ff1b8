// Package credentials keeps API tokens in the OS keyring (service
// "botkit:<host>") through go-keyring, every call bounded by 3 seconds, and
// resolves which token a command uses: BOTKIT_TOKEN, else the config file
// (only there after `auth login --insecure-storage`, or a login that found
// no keyring), else the keyring.
package credentials

import (
	"errors"
	"fmt"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// Store keeps one token per platform host.
type Store interface {
	// Get returns the token of host, or an error matching ErrNotFound.
	Get(host string) (string, error)
	Set(host, token string) error
	// Delete removes the token of host; a missing one is ErrNotFound.
	Delete(host string) error
}

// ErrNotFound is a host without a stored token.
var ErrNotFound = errors.New("no token stored")

// Timeout bounds every keyring call.
const Timeout = 3 * time.Second

// keyringUser is the account name of the keyring entries.
const keyringUser = "api-token"

// Service returns the keyring service of host.
func Service(host string) string { return "botkit:" + host }

// Keyring is the Store of the OS keyring (Secret Service over D-Bus on
// Linux, the Keychain on macOS, the Credential Manager on Windows).
type Keyring struct {
	// Timeout bounds each call (0: Timeout).
	Timeout time.Duration
}

// UnavailableError is a keyring that cannot be used: no Secret Service on
// the session bus, no session bus at all, a locked or hung keyring. It is an
// authentication problem (exit 4) whose message says how to proceed.
type UnavailableError struct {
	Err error // the cause
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("the OS keyring is not available (%v): set BOTKIT_TOKEN in the environment, or log in with `botkit auth login`, which keeps the token in the config file (mode 0600) when there is no keyring (--insecure-storage: always)", e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// ErrorCode makes an UnavailableError an authentication failure (see
// cmdutil.Coded).
func (e *UnavailableError) ErrorCode() string { return resources.CodeUnauthenticated }

// Get returns the token of host.
func (k Keyring) Get(host string) (string, error) {
	var tok string
	err := k.call(func() error {
		var err error
		tok, err = keyring.Get(Service(host), keyringUser)
		return err
	})
	return tok, err
}

// Set stores the token of host.
func (k Keyring) Set(host, token string) error {
	return k.call(func() error { return keyring.Set(Service(host), keyringUser, token) })
}

// Delete removes the token of host.
func (k Keyring) Delete(host string) error {
	return k.call(func() error { return keyring.Delete(Service(host), keyringUser) })
}

// call runs f bounded by the timeout: a keyring that does not answer (a
// D-Bus activation that never completes, a locked collection waiting for a
// password prompt) is unavailable, not a hang. f keeps running in its
// goroutine until it returns; the process does not wait for it.
func (k Keyring) call(f func() error) error {
	if err := sessionBus(); err != nil {
		return &UnavailableError{Err: err}
	}
	d := k.Timeout
	if d <= 0 {
		d = Timeout
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		switch {
		case err == nil:
			return nil
		case errors.Is(err, keyring.ErrNotFound):
			return ErrNotFound
		}
		return &UnavailableError{Err: err}
	case <-t.C:
		return &UnavailableError{Err: fmt.Errorf("no answer within %s", d)}
	}
}

// Source says where a token comes from.
type Source string

// Sources of a token, in the order Resolve tries them.
const (
	SourceNone        Source = ""
	SourceEnvironment Source = "environment" // BOTKIT_TOKEN
	SourceKeyring     Source = "keyring"
	SourceFile        Source = "file" // the config file (--insecure-storage)
)

// Resolve returns the token for host and where it comes from: envToken
// (BOTKIT_TOKEN) when set, else fileToken (the config file's: it is there
// only when the last login chose --insecure-storage, and then the keyring is
// not asked at all — a hung keyring costs such a user nothing), else the
// keyring's. No token anywhere is ("", SourceNone, nil); an unreachable
// keyring with no other token is its *UnavailableError.
func Resolve(store Store, host, envToken, fileToken string) (string, Source, error) {
	if envToken != "" {
		return envToken, SourceEnvironment, nil
	}
	if fileToken != "" {
		return fileToken, SourceFile, nil
	}
	tok, err := store.Get(host)
	switch {
	case err == nil && tok != "":
		return tok, SourceKeyring, nil
	case err == nil, errors.Is(err, ErrNotFound):
		return "", SourceNone, nil
	}
	return "", SourceNone, err
}

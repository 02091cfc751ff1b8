//go:build !unix || darwin

package credentials

// sessionBus: the Keychain and the Credential Manager need no session bus.
func sessionBus() error { return nil }

// Package credentials keeps API tokens in the OS keyring (service
// "botkit:<host>") through go-keyring, every call bounded by 3 seconds.
package credentials

// Store keeps one token per platform host.
type Store interface {
	Get(host string) (string, error)
	Set(host, token string) error
	Delete(host string) error
}

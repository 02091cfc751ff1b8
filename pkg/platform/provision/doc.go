// Package provision moves the platform's pending objects to ready or
// failed: secret sets at once, image pull secrets after a check against
// their registry (claimed, so that of several servers on one database
// exactly one checks each; leased, so that a dead server's claims pass to
// another). It is the platform's one HTTP client of the outside world: the
// registry checks, through a client that refuses link-local and cloud
// metadata addresses.
package provision

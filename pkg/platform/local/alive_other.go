//go:build !unix

package local

// processAlive: no cheap look here; /healthz decides.
func processAlive(int) bool { return true }

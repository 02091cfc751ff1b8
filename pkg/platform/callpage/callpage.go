// Package callpage is the page the platform serves at /call/{agent}: the
// project's vanilla web client (pkg/scaffold's), built to call the agent
// its URL names on the platform that serves it, with the public key the
// URL's fragment holds (#key=pk_…, which a browser never sends). dist/ is
// the build, committed so that the platform serves it without npm;
// internal/callpagegen makes it and its test checks it matches its source:
//
//	go run ./internal/callpagegen
package callpage

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// FS is the built page: index.html and assets/.
func FS() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // "dist" is a valid path, embedded above
	}
	return sub
}

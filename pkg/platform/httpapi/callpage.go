package httpapi

import (
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// callPageCSP keeps the call page to its own origin: it loads and asks
// nothing of another host (its WebRTC media goes to the agent, which CSP
// does not govern). blob: and data: are the audio worklets and the icon.
const callPageCSP = "default-src 'self'; script-src 'self' blob: data:; worker-src 'self' blob: data:; " +
	"style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' blob: mediastream:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// callPageType is the type of a file of the page, by its extension (fixed:
// not the system's mime.types); false: the page has no such file.
func callPageType(name string) (string, bool) {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8", true
	case ".js":
		return "text/javascript; charset=utf-8", true
	case ".css":
		return "text/css; charset=utf-8", true
	}
	return "", false
}

// handleCallPage serves the call page of any agent name: the page reads the
// agent from its path and the public key from its fragment, which no
// request carries; whether the agent exists is for the page's start to
// find, with a key.
func (a *api) handleCallPage(w http.ResponseWriter, r *http.Request) {
	a.serveCallFile(w, r, "index.html", "no-cache")
}

// handleCallAsset serves the page's scripts and styles (their names hold
// their content's hash).
func (a *api) handleCallAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if strings.HasPrefix(name, ".") {
		noCallFile(w, name)
		return
	}
	a.serveCallFile(w, r, "assets/"+name, "public, max-age=31536000, immutable")
}

func (a *api) serveCallFile(w http.ResponseWriter, r *http.Request, name, cache string) {
	if a.callPage == nil {
		writeError(w, resources.Errorf(resources.CodeNotFound, "this platform serves no call page"))
		return
	}
	data, err := fs.ReadFile(a.callPage, name)
	if err != nil {
		noCallFile(w, name)
		return
	}
	ct, ok := callPageType(name)
	if !ok {
		noCallFile(w, name)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.Itoa(len(data)))
	h.Set("Cache-Control", cache)
	h.Set("Content-Security-Policy", callPageCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data) // error ignored: the caller went away
}

// noCallFile answers a file the call page does not have (404).
func noCallFile(w http.ResponseWriter, name string) {
	writeError(w, resources.Errorf(resources.CodeNotFound, "the call page has no file %q", name))
}

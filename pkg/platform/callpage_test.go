package platform_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
)

// The call page over real HTTP, every exchange checked against
// api/openapi.yaml: /call/NAME serves the page (HTML, kept to its origin by
// its Content-Security-Policy), whose scripts and styles load from the
// platform itself under /call/assets/, relative to the page; an unknown
// asset is 404, another method 405.
func TestCallPageRoute(t *testing.T) {
	c := apitest.Load(t)
	base, _ := platformtest.Start(t, platform.Options{DisableProvisioner: true, DataDir: t.TempDir()})
	do := func(method, path string, want int) apitest.Reply {
		t.Helper()
		r, err := c.Do(t, base, method, path, "", nil)
		if err != nil {
			t.Errorf("%s %s: api/openapi.yaml: %v", method, path, err)
		}
		if r.Status != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
		}
		return r
	}
	page := do("GET", "/call/support-bot", 200)
	if ct := page.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(string(page.Body), -1)
	var assets int
	for _, m := range refs {
		ref := m[1]
		if strings.HasPrefix(ref, "data:") {
			continue
		}
		if !strings.HasPrefix(ref, "./assets/") {
			t.Errorf("the page loads %q: want ./assets/… (its own origin, relative to the page)", ref)
			continue
		}
		u, err := url.Parse(base + "/call/support-bot")
		if err != nil {
			t.Fatal(err)
		}
		abs, err := u.Parse(ref)
		if err != nil {
			t.Fatal(err)
		}
		r := do("GET", abs.Path, 200)
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/") || len(r.Body) == 0 {
			t.Errorf("%s: %s, %d bytes", abs.Path, r.Header.Get("Content-Type"), len(r.Body))
		}
		assets++
	}
	if assets == 0 {
		t.Errorf("the page loads no script: %s", page.Body)
	}
	do("GET", "/call/assets/none.js", 404)
	do("GET", "/call/assets/.hidden.js", 404)
	res, err := http.Post(base+"/call/support-bot", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close() // error ignored: only the status is read
	if res.StatusCode != 405 {
		t.Errorf("POST /call/support-bot: %d, want 405", res.StatusCode)
	}
}

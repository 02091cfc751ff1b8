package provision

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
)

// tokenImageRegistry is a registry that speaks the bearer-token flow of
// Docker Hub and GHCR (the real docker-registry of the preflight scenarios
// only does htpasswd basic auth; a token service cannot run here). It holds
// "bots/voice" with tag "list" (a Docker manifest list: arm64 and amd64),
// tag "amd" (a Docker v2 manifest whose config says amd64) and serves
// anonymous pulls of "library/public:1" (no config platform).
func tokenImageRegistry(t *testing.T, user, pass string) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			scope := r.URL.Query().Get("scope")
			u, p, ok := r.BasicAuth()
			switch {
			case scope == "repository:library/public:pull" && !ok:
				_, _ = w.Write([]byte(`{"access_token":"anon"}`)) // error ignored: the client reports a broken answer
			case ok && u == user && p == pass && scope == "repository:bots/voice:pull":
				_, _ = w.Write([]byte(`{"token":"pull-voice"}`)) // error ignored: as above
			default:
				w.WriteHeader(http.StatusUnauthorized)
			}
			return
		}
		auth := r.Header.Get("Authorization")
		public := strings.HasPrefix(r.URL.Path, "/v2/library/public/")
		if !(auth == "Bearer pull-voice" || public && auth == "Bearer anon") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+srv.URL+`/token",service="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if !strings.Contains(r.Header.Get("Accept"), "application/vnd.docker.distribution.manifest.list.v2+json") && strings.Contains(r.URL.Path, "/manifests/") {
			t.Errorf("manifest request without the manifest list media type: %q", r.Header.Get("Accept"))
		}
		switch r.URL.Path {
		case "/v2/bots/voice/manifests/list":
			w.Header().Set("Docker-Content-Digest", "sha256:"+strings.Repeat("a", 64))
			_, _ = w.Write([]byte(manifestList)) // error ignored: as above
		case "/v2/bots/voice/manifests/amd":
			_, _ = w.Write([]byte(`{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json","config":{"digest":"sha256:cfg"}}`)) // error ignored: as above
		case "/v2/bots/voice/blobs/sha256:cfg":
			_, _ = w.Write([]byte(`{"os":"linux","architecture":"amd64"}`)) // error ignored: as above
		case "/v2/library/public/manifests/1":
			_, _ = w.Write([]byte(`{"schemaVersion":2,"config":{"digest":"sha256:none"}}`)) // error ignored: as above
		case "/v2/library/public/blobs/sha256:none":
			_, _ = w.Write([]byte(`{}`)) // error ignored: as above
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

const manifestList = `{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.list.v2+json","manifests":[
	{"digest":"sha256:1","platform":{"os":"linux","architecture":"arm64","variant":"v8"}},
	{"digest":"sha256:2","platform":{"os":"linux","architecture":"amd64"}},
	{"digest":"sha256:3","platform":{"os":"unknown","architecture":"unknown"}}]}`

func TestCheckImage(t *testing.T) {
	srv := tokenImageRegistry(t, "bot", "pw")
	p := &Provisioner{client: newGuardedClient(true, 5*time.Second)}
	creds := base64.StdEncoding.EncodeToString([]byte("bot:pw"))
	wrong := base64.StdEncoding.EncodeToString([]byte("bot:nope"))
	for name, tc := range map[string]struct {
		check     ImageCheck
		outcome   string
		digest    string
		platforms []string
	}{
		"manifest list":    {ImageCheck{Repository: "bots/voice", Reference: "list", Credentials: creds}, ImageFound, "sha256:" + strings.Repeat("a", 64), []string{"linux/amd64", "linux/arm64/v8"}},
		"single manifest":  {ImageCheck{Repository: "bots/voice", Reference: "amd", Credentials: creds}, ImageFound, "", []string{"linux/amd64"}},
		"missing tag":      {ImageCheck{Repository: "bots/voice", Reference: "9.9", Credentials: creds}, ImageNotFound, "", nil},
		"wrong password":   {ImageCheck{Repository: "bots/voice", Reference: "list", Credentials: wrong}, ImageUnauthorized, "", nil},
		"no credentials":   {ImageCheck{Repository: "bots/voice", Reference: "list"}, ImageUnauthorized, "", nil},
		"anonymous public": {ImageCheck{Repository: "library/public", Reference: "1"}, ImageFound, "", nil},
	} {
		tc.check.Base = srv.URL
		r := p.CheckImage(context.Background(), tc.check)
		if r.Outcome != tc.outcome || tc.digest != "" && r.Digest != tc.digest || !slices.Equal(r.Platforms, tc.platforms) {
			t.Errorf("%s: %+v", name, r)
		}
		if r.Outcome == ImageFound && !strings.HasPrefix(r.Digest, "sha256:") {
			t.Errorf("%s: digest %q", name, r.Digest)
		}
	}
	// Unreachable: said so, not as a refusal.
	r := p.CheckImage(context.Background(), ImageCheck{Base: "http://127.0.0.1:1", Repository: "x/y", Reference: "1"})
	if r.Outcome != ImageUnreachable || !strings.Contains(r.Message, "unreachable") {
		t.Errorf("unreachable registry: %+v", r)
	}
}

// An image found is answered from memory for ImageMemo with the same
// credentials (deploy's preflight, then its deployment, ask once): a tag
// pushed again meanwhile shows once the memory is older than that; other
// credentials are asked (and refused) at once. On the real docker-registry.
func TestCheckImageRemembersFoundImages(t *testing.T) {
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), "bot", "memo-pass")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	first, err := registrytest.Push(reg.URL, "bot", "memo-pass", "bots/voice:1", "linux/amd64")
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	p := &Provisioner{client: newGuardedClient(true, 5*time.Second), now: func() time.Time { return clock }}
	creds := base64.StdEncoding.EncodeToString([]byte("bot:memo-pass"))
	check := ImageCheck{Base: reg.URL, Repository: "bots/voice", Reference: "1", Credentials: creds}
	if r := p.CheckImage(context.Background(), check); r.Outcome != ImageFound || r.Digest != first {
		t.Fatalf("first check: %+v, want %s", r, first)
	}
	second, err := registrytest.Push(reg.URL, "bot", "memo-pass", "bots/voice:1", "linux/arm64")
	if err != nil || second == first {
		t.Fatalf("pushing the tag again: %s %v", second, err)
	}
	clock = clock.Add(ImageMemo - time.Second)
	if r := p.CheckImage(context.Background(), check); r.Digest != first {
		t.Errorf("within the memory: %+v, want the first digest %s", r, first)
	}
	wrong := check
	wrong.Credentials = base64.StdEncoding.EncodeToString([]byte("bot:other"))
	if r := p.CheckImage(context.Background(), wrong); r.Outcome != ImageUnauthorized {
		t.Errorf("other credentials: %+v", r)
	}
	clock = clock.Add(2 * time.Second)
	if r := p.CheckImage(context.Background(), check); r.Outcome != ImageFound || r.Digest != second {
		t.Errorf("after the memory: %+v, want the second digest %s", r, second)
	}
}

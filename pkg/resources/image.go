package resources

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync"
)

// ImageRef is a parsed container image reference:
// [HOST[:PORT]/]REPOSITORY[:TAG][@DIGEST], as Docker reads it.
type ImageRef struct {
	// Registry is the registry's host[:port] as written, "docker.io" when
	// the reference names none (Docker Hub).
	Registry   string
	Repository string // "library/python" for Docker Hub's "python"
	Tag        string
	Digest     string // "sha256:…"
}

// DockerHub is the registry name of Docker Hub.
const DockerHub = "docker.io"

// The patterns of an image reference, compiled at their first use, not at
// init (`botkit --version` never needs them). Lengths are checked apart
// (maxTagLen, digestLen): a bounded repetition such as {0,127} compiles to
// one instruction per repeat (~1,900 allocations for these three).
var (
	repoComponentRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$`)
	})
	tagRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`) })
	digestRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[a-f0-9]*$`) })
)

const (
	maxTagLen = 128                 // a tag: 1 to 128 characters
	digestLen = len("sha256:") + 64 // sha256: and 64 hex digits
)

// ParseImageRef parses an image reference; its errors say what is wrong.
func ParseImageRef(s string) (ImageRef, error) {
	var r ImageRef
	rest := s
	if i := strings.IndexByte(rest, '@'); i >= 0 {
		r.Digest, rest = rest[i+1:], rest[:i]
		if len(r.Digest) != digestLen || !digestRE().MatchString(r.Digest) {
			return r, fmt.Errorf("image %q: the digest must be sha256: and 64 hex digits", printable(s))
		}
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.Contains(rest[i:], "/") {
		r.Tag, rest = rest[i+1:], rest[:i]
		if len(r.Tag) > maxTagLen || !tagRE().MatchString(r.Tag) {
			return r, fmt.Errorf("image %q: invalid tag %q", printable(s), printable(r.Tag))
		}
	}
	parts := strings.Split(rest, "/")
	if first := parts[0]; len(parts) > 1 && (strings.ContainsAny(first, ".:") || first == "localhost") {
		r.Registry, parts = strings.ToLower(first), parts[1:]
	} else {
		r.Registry = DockerHub
	}
	if r.Registry == DockerHub && len(parts) == 1 {
		parts = append([]string{"library"}, parts...)
	}
	for _, p := range parts {
		if !repoComponentRE().MatchString(p) {
			return r, fmt.Errorf("image %q: invalid repository name (lowercase letters, digits, '.', '_', '-' between '/')", printable(s))
		}
	}
	r.Repository = strings.Join(parts, "/")
	return r, nil
}

// Reference returns the tag or digest the image is pulled by (the digest
// when both are given).
func (r ImageRef) Reference() string {
	if r.Digest != "" {
		return r.Digest
	}
	return r.Tag
}

// Pull returns the repository and what it is pulled by, as Docker writes
// them: "bots/voice:0.1", "bots/voice@sha256:…".
func (r ImageRef) Pull() string {
	if r.Digest != "" {
		return r.Repository + "@" + r.Digest
	}
	if r.Tag != "" {
		return r.Repository + ":" + r.Tag
	}
	return r.Repository
}

// RegistryName returns the name a registry is known by, whatever form the
// address takes: Docker Hub's aliases are "docker.io", a URL is its
// host[:port], lower case. Image references and image pull secrets' hosts
// name the same registry when their RegistryNames are equal.
func RegistryName(host string) string {
	h := strings.ToLower(strings.TrimSpace(host))
	if i := strings.Index(h, "://"); i >= 0 {
		h = h[i+3:]
	}
	h = strings.TrimSuffix(h, "/")
	switch h {
	case "docker.io", "index.docker.io", "registry-1.docker.io", "registry.hub.docker.com", "hub.docker.com":
		return DockerHub
	}
	return h
}

// RegistryURL returns the base URL of a registry's HTTP API: Docker Hub's
// is https://registry-1.docker.io; any other is RegistryScheme's scheme and
// the name.
func RegistryURL(name string) string {
	n := RegistryName(name)
	if n == DockerHub {
		return "https://registry-1.docker.io"
	}
	return RegistryScheme(n) + "://" + n
}

// RegistryScheme is the scheme spoken to a registry named without one (an
// image reference's host, an image pull secret's host[:port]): plain HTTP
// to a registry on the loopback interface (localhost, 127.0.0.0/8, ::1),
// as Docker assumes; HTTPS to any other. The one rule of the preflight's
// image check and of the image pull secrets' registry check (through
// NormalizeRegistryHost).
func RegistryScheme(host string) string {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.ToLower(strings.Trim(h, "[]"))
	if ip := net.ParseIP(h); h == "localhost" || ip != nil && ip.IsLoopback() {
		return "http"
	}
	return "https"
}

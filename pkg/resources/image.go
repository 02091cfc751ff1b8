package resources

import (
	"fmt"
	"net"
	"regexp"
	"strings"
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

var (
	repoComponentRE = regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$`)
	tagRE           = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	digestRE        = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
)

// ParseImageRef parses an image reference; its errors say what is wrong.
func ParseImageRef(s string) (ImageRef, error) {
	var r ImageRef
	rest := s
	if i := strings.IndexByte(rest, '@'); i >= 0 {
		r.Digest, rest = rest[i+1:], rest[:i]
		if !digestRE.MatchString(r.Digest) {
			return r, fmt.Errorf("image %q: the digest must be sha256: and 64 hex digits", printable(s))
		}
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.Contains(rest[i:], "/") {
		r.Tag, rest = rest[i+1:], rest[:i]
		if !tagRE.MatchString(r.Tag) {
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
		if !repoComponentRE.MatchString(p) {
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
// is https://registry-1.docker.io; a registry on the loopback interface
// speaks plain HTTP, as Docker assumes for 127.0.0.0/8 and localhost; any
// other, HTTPS.
func RegistryURL(name string) string {
	n := RegistryName(name)
	if n == DockerHub {
		return "https://registry-1.docker.io"
	}
	host := n
	if h, _, err := net.SplitHostPort(n); err == nil {
		host = h
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); host == "localhost" || ip != nil && ip.IsLoopback() {
		return "http://" + n
	}
	return "https://" + n
}

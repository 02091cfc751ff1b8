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
	hostRE   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$`)
	})
)

const (
	maxTagLen = 128                 // a tag: 1 to 128 characters
	digestLen = len("sha256:") + 64 // sha256: and 64 hex digits
)

// ParseImageRef parses an image reference; its errors say what is wrong.
func ParseImageRef(s string) (ImageRef, error) {
	var r ImageRef
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		return r, fmt.Errorf("image %q: %q has no place in an image reference ([HOST[:PORT]/]REPOSITORY[:TAG][@DIGEST]: no query, no fragment)", printable(s), s[i:i+1])
	}
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
		if err := checkRegistry(r.Registry); err != nil {
			return r, fmt.Errorf("image %q: registry %q: %v", printable(s), printable(first), err)
		}
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

// checkRegistry checks a reference's registry: HOST[:PORT], HOST a DNS
// name, an IPv4 address or a bracketed IPv6 address, PORT 1 to 65535.
func checkRegistry(reg string) error {
	host, port := reg, ""
	if strings.HasPrefix(reg, "[") {
		end := strings.IndexByte(reg, ']')
		if end < 0 {
			return fmt.Errorf("no ']' after the IPv6 address")
		}
		host, port = reg[1:end], reg[end+1:]
		if ip := net.ParseIP(host); ip == nil || ip.To4() != nil {
			return fmt.Errorf("%q is not an IPv6 address", printable(host))
		}
		if port != "" {
			p, ok := strings.CutPrefix(port, ":")
			if !ok {
				return fmt.Errorf("want [IPv6]:PORT")
			}
			port = p
			if port == "" {
				return fmt.Errorf("empty port after ':'")
			}
		}
	} else if h, p, ok := strings.Cut(reg, ":"); ok {
		host, port = h, p
		if port == "" {
			return fmt.Errorf("empty port after ':'")
		}
		if host == "" {
			return fmt.Errorf("no host before ':'")
		}
	}
	if port != "" {
		n := 0
		for _, c := range port {
			if c < '0' || c > '9' || n > 65535 {
				n = -1
				break
			}
			n = n*10 + int(c-'0')
		}
		if n < 1 || n > 65535 {
			return fmt.Errorf("port %q is not a number from 1 to 65535", printable(port))
		}
	}
	if !strings.HasPrefix(reg, "[") && !hostRE().MatchString(host) {
		return fmt.Errorf("host %q is not a DNS name nor an IP address", printable(host))
	}
	return nil
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

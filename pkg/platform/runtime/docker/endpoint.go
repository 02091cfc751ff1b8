package docker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// Endpoint is an engine's address, how to reach it and where it came
// from.
type Endpoint struct {
	// Host is unix:///path/to/docker.sock or tcp://HOST:PORT.
	Host string
	// TLS is how a tcp:// engine is spoken to (nil: plain HTTP).
	TLS *TLSFiles
	// Source says where Host came from, for messages: "DOCKER_HOST",
	// `context "colima" (~/.docker/config.json)`, "the default socket".
	Source string
}

// String is the engine as messages name it: its address, then its source.
func (e Endpoint) String() string {
	if e.Source == "" {
		return e.Host
	}
	return e.Host + " (" + e.Source + ")"
}

// TLSFiles are the PEM files of a TLS engine: each "" when absent (no CA:
// the system's roots; no certificate and key: no client certificate).
type TLSFiles struct {
	CAFile, CertFile, KeyFile string
	// SkipVerify does not check the engine's certificate (DOCKER_TLS
	// without DOCKER_TLS_VERIFY, a context's SkipTLSVerify).
	SkipVerify bool
}

// TLSDir returns the TLS files of dir (ca.pem, cert.pem, key.pem), those
// that exist, verified unless skipVerify.
func TLSDir(dir string, skipVerify bool) *TLSFiles {
	t := &TLSFiles{SkipVerify: skipVerify}
	for name, f := range map[string]*string{"ca.pem": &t.CAFile, "cert.pem": &t.CertFile, "key.pem": &t.KeyFile} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			*f = p
		}
	}
	return t
}

// The sockets tried when nothing names an engine: Docker Desktop's (under
// the home directory), then the system's.
const (
	DesktopSocket = ".docker/run/docker.sock"
	DefaultSocket = "/var/run/docker.sock"
)

// Default TCP ports of an engine, as the docker CLI assumes them.
const (
	defaultTCPPort = "2375"
	defaultTLSPort = "2376"
)

// Resolve finds the engine as the docker CLI does, from the environment
// getenv reads (os.Getenv: the process's): DOCKER_HOST (with
// DOCKER_TLS_VERIFY, DOCKER_TLS and DOCKER_CERT_PATH), else the context
// DOCKER_CONTEXT names, else the config file's currentContext
// ($DOCKER_CONFIG/config.json, ~/.docker/config.json), else Docker
// Desktop's socket ~/.docker/run/docker.sock when it exists, else
// /var/run/docker.sock. The context "default" is the last two. An address
// botkit cannot speak to (npipe://, ssh://) is an error naming it and its
// source.
func Resolve(getenv func(string) string) (Endpoint, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("HOME")
	configDir := getenv("DOCKER_CONFIG")
	configShown := "$DOCKER_CONFIG"
	if configDir == "" {
		configDir = filepath.Join(home, ".docker")
		configShown = "~/.docker"
	}
	if h := getenv("DOCKER_HOST"); h != "" {
		ep := Endpoint{Host: h, Source: "DOCKER_HOST"}
		verify, tlsOn := getenv("DOCKER_TLS_VERIFY") != "", getenv("DOCKER_TLS") != ""
		if verify || tlsOn {
			certs := getenv("DOCKER_CERT_PATH")
			if certs == "" {
				certs = configDir
			}
			ep.TLS = TLSDir(certs, !verify)
		}
		return ep, ep.check()
	}
	name, source := getenv("DOCKER_CONTEXT"), "DOCKER_CONTEXT"
	if name == "" && (home != "" || getenv("DOCKER_CONFIG") != "") { // no home: no config file
		b, err := os.ReadFile(filepath.Join(configDir, "config.json"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return Endpoint{}, invalid("reading %s/config.json: %v", configShown, err)
		}
		if err == nil {
			var cfg struct {
				CurrentContext string `json:"currentContext"`
			}
			if err := json.Unmarshal(b, &cfg); err != nil {
				return Endpoint{}, invalid("%s/config.json: %v", configShown, err)
			}
			name, source = cfg.CurrentContext, configShown+"/config.json"
		}
	}
	if name != "" && name != "default" {
		return contextEndpoint(configDir, configShown, name, source)
	}
	if home != "" {
		if p := filepath.Join(home, DesktopSocket); isSocket(p) {
			return Endpoint{Host: "unix://" + p, Source: "Docker Desktop's socket"}, nil
		}
	}
	return Endpoint{Host: "unix://" + DefaultSocket, Source: "the default socket"}, nil
}

// contextEndpoint reads the docker endpoint of a context from its meta
// file, contexts/meta/SHA256(name)/meta.json, and its TLS files from
// contexts/tls/SHA256(name)/docker/.
func contextEndpoint(configDir, configShown, name, source string) (Endpoint, error) {
	sum := sha256.Sum256([]byte(name))
	id := hex.EncodeToString(sum[:])
	src := fmt.Sprintf("context %q (%s)", name, source)
	b, err := os.ReadFile(filepath.Join(configDir, "contexts", "meta", id, "meta.json"))
	if errors.Is(err, os.ErrNotExist) {
		return Endpoint{}, invalid("%s: no such context in %s/contexts", src, configShown)
	} else if err != nil {
		return Endpoint{}, invalid("%s: %v", src, err)
	}
	var meta struct {
		Endpoints map[string]struct {
			Host          string `json:"Host"`
			SkipTLSVerify bool   `json:"SkipTLSVerify"`
		} `json:"Endpoints"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return Endpoint{}, invalid("%s: its meta.json: %v", src, err)
	}
	d, ok := meta.Endpoints["docker"]
	if !ok || d.Host == "" {
		return Endpoint{}, invalid("%s has no Docker endpoint", src)
	}
	ep := Endpoint{Host: d.Host, Source: src}
	tlsDir := filepath.Join(configDir, "contexts", "tls", id, "docker")
	if t := TLSDir(tlsDir, d.SkipTLSVerify); t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || d.SkipTLSVerify {
		ep.TLS = t
	}
	return ep, ep.check()
}

func isSocket(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

func invalid(format string, args ...any) error {
	return &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf(format, args...)}
}

// parts returns the network and address to dial: "unix" and a path, or
// "tcp" and HOST:PORT.
func (e Endpoint) parts() (network, addr string, err error) {
	scheme, rest, ok := strings.Cut(e.Host, "://")
	if !ok {
		if strings.HasPrefix(e.Host, "/") { // a socket's path
			return "unix", e.Host, nil
		}
		return "", "", invalid("engine address %q (%s): want unix:///path/to/docker.sock or tcp://HOST:PORT", e.Host, e.sourceOr())
	}
	switch scheme {
	case "unix":
		if !strings.HasPrefix(rest, "/") {
			return "", "", invalid("engine address %q (%s): want unix:///absolute/path", e.Host, e.sourceOr())
		}
		return "unix", rest, nil
	case "tcp":
		hostport := strings.TrimSuffix(rest, "/")
		if strings.ContainsAny(hostport, "/?#@") {
			return "", "", invalid("engine address %q (%s): want tcp://HOST:PORT", e.Host, e.sourceOr())
		}
		host, port, err := net.SplitHostPort(hostport)
		if err != nil { // no port: the docker CLI's default
			host, port = strings.Trim(hostport, "[]"), defaultTCPPort
			if e.TLS != nil {
				port = defaultTLSPort
			}
		}
		if host == "" {
			host = "localhost"
		}
		return "tcp", net.JoinHostPort(host, port), nil
	case "npipe":
		return "", "", invalid("engine address %q (%s): Windows named pipes (npipe://) are not supported; botkit speaks to an engine over unix:// or tcp://", e.Host, e.sourceOr())
	case "ssh":
		return "", "", invalid("engine address %q (%s): ssh:// engines are not supported; forward the engine's socket (ssh -L) and use unix:// or tcp://", e.Host, e.sourceOr())
	}
	return "", "", invalid("engine address %q (%s): %s:// is not supported; want unix:// or tcp://", e.Host, e.sourceOr(), scheme)
}

func (e Endpoint) sourceOr() string {
	if e.Source == "" {
		return "as given"
	}
	return e.Source
}

func (e Endpoint) check() error {
	_, _, err := e.parts()
	return err
}

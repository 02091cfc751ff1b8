package docker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// writeContext writes a docker CLI context as `docker context create`
// does: its meta file under contexts/meta/SHA256(name), its TLS files (if
// any) under contexts/tls/SHA256(name)/docker.
func writeContext(t *testing.T, configDir, name, host string, skipVerify bool, tlsFiles ...string) {
	t.Helper()
	sum := sha256.Sum256([]byte(name))
	id := hex.EncodeToString(sum[:])
	meta := map[string]any{"Name": name, "Metadata": map[string]any{},
		"Endpoints": map[string]any{"docker": map[string]any{"Host": host, "SkipTLSVerify": skipVerify}}}
	b, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(configDir, "contexts", "meta", id, "meta.json"), string(b))
	for _, f := range tlsFiles {
		write(t, filepath.Join(configDir, "contexts", "tls", id, "docker", f), "pem")
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// listen makes a unix socket at path, closed with the test.
func listen(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

// The engine is found in the docker CLI's order: DOCKER_HOST (with its TLS
// variables), DOCKER_CONTEXT, the config file's currentContext, Docker
// Desktop's socket, /var/run/docker.sock; each says where it came from.
func TestResolveOrder(t *testing.T) {
	home := t.TempDir()
	dotDocker := filepath.Join(home, ".docker")
	other := t.TempDir() // a DOCKER_CONFIG
	certs := t.TempDir()
	for _, f := range []string{"ca.pem", "cert.pem", "key.pem"} {
		write(t, filepath.Join(certs, f), "pem")
		write(t, filepath.Join(dotDocker, f), "pem")
	}
	writeContext(t, dotDocker, "colima", "unix:///home/me/.colima/default/docker.sock", false)
	writeContext(t, dotDocker, "remote", "tcp://10.0.0.5:2376", false, "ca.pem", "cert.pem", "key.pem")
	writeContext(t, dotDocker, "loose", "tcp://10.0.0.6:2376", true)
	writeContext(t, dotDocker, "win", "npipe:////./pipe/docker_engine", false)
	writeContext(t, other, "elsewhere", "unix:///srv/docker.sock", false)
	write(t, filepath.Join(other, "config.json"), `{"currentContext": "elsewhere"}`)
	ctxTLS := func(name string) string {
		sum := sha256.Sum256([]byte(name))
		return filepath.Join(dotDocker, "contexts", "tls", hex.EncodeToString(sum[:]), "docker")
	}

	type want struct {
		host, source string
		tls          *TLSFiles
		err          string
	}
	for _, tc := range []struct {
		name   string
		env    map[string]string
		config string // ~/.docker/config.json ("": none)
		sock   bool   // Docker Desktop's socket exists
		want   want
	}{
		{name: "nothing", want: want{host: "unix://" + DefaultSocket, source: "the default socket"}},
		{name: "Docker Desktop", sock: true, want: want{host: "unix://" + filepath.Join(home, DesktopSocket), source: "Docker Desktop's socket"}},
		{name: "DOCKER_HOST first", env: map[string]string{"DOCKER_HOST": "unix:///tmp/d.sock", "DOCKER_CONTEXT": "colima"}, config: `{"currentContext":"remote"}`, sock: true,
			want: want{host: "unix:///tmp/d.sock", source: "DOCKER_HOST"}},
		{name: "tcp with TLS verify", env: map[string]string{"DOCKER_HOST": "tcp://10.0.0.1:2376", "DOCKER_TLS_VERIFY": "1", "DOCKER_CERT_PATH": certs},
			want: want{host: "tcp://10.0.0.1:2376", source: "DOCKER_HOST", tls: &TLSFiles{CAFile: filepath.Join(certs, "ca.pem"), CertFile: filepath.Join(certs, "cert.pem"), KeyFile: filepath.Join(certs, "key.pem")}}},
		{name: "DOCKER_TLS_VERIFY=0 is on too", env: map[string]string{"DOCKER_HOST": "tcp://10.0.0.1:2376", "DOCKER_TLS_VERIFY": "0"},
			want: want{host: "tcp://10.0.0.1:2376", source: "DOCKER_HOST", tls: &TLSFiles{CAFile: filepath.Join(dotDocker, "ca.pem"), CertFile: filepath.Join(dotDocker, "cert.pem"), KeyFile: filepath.Join(dotDocker, "key.pem")}}},
		{name: "DOCKER_TLS without verify", env: map[string]string{"DOCKER_HOST": "tcp://10.0.0.1:2376", "DOCKER_TLS": "1", "DOCKER_CERT_PATH": t.TempDir()},
			want: want{host: "tcp://10.0.0.1:2376", source: "DOCKER_HOST", tls: &TLSFiles{SkipVerify: true}}},
		{name: "plain tcp", env: map[string]string{"DOCKER_HOST": "tcp://10.0.0.1:2375"}, want: want{host: "tcp://10.0.0.1:2375", source: "DOCKER_HOST"}},
		{name: "DOCKER_CONTEXT before currentContext", env: map[string]string{"DOCKER_CONTEXT": "colima"}, config: `{"currentContext":"remote"}`, sock: true,
			want: want{host: "unix:///home/me/.colima/default/docker.sock", source: `context "colima" (DOCKER_CONTEXT)`}},
		{name: "currentContext", config: `{"currentContext":"remote","auths":{}}`, sock: true,
			want: want{host: "tcp://10.0.0.5:2376", source: `context "remote" (~/.docker/config.json)`,
				tls: &TLSFiles{CAFile: filepath.Join(ctxTLS("remote"), "ca.pem"), CertFile: filepath.Join(ctxTLS("remote"), "cert.pem"), KeyFile: filepath.Join(ctxTLS("remote"), "key.pem")}}},
		{name: "SkipTLSVerify", config: `{"currentContext":"loose"}`, want: want{host: "tcp://10.0.0.6:2376", source: `context "loose" (~/.docker/config.json)`, tls: &TLSFiles{SkipVerify: true}}},
		{name: "DOCKER_CONFIG", env: map[string]string{"DOCKER_CONFIG": other}, config: `{"currentContext":"remote"}`,
			want: want{host: "unix:///srv/docker.sock", source: `context "elsewhere" ($DOCKER_CONFIG/config.json)`}},
		{name: "the default context", env: map[string]string{"DOCKER_CONTEXT": "default"}, config: `{"currentContext":"remote"}`, sock: true,
			want: want{host: "unix://" + filepath.Join(home, DesktopSocket), source: "Docker Desktop's socket"}},
		{name: "no such context", env: map[string]string{"DOCKER_CONTEXT": "gone"}, want: want{err: `context "gone" (DOCKER_CONTEXT): no such context in ~/.docker/contexts`}},
		{name: "npipe", config: `{"currentContext":"win"}`, want: want{err: `context "win" (~/.docker/config.json)): Windows named pipes (npipe://) are not supported`}},
		{name: "ssh", env: map[string]string{"DOCKER_HOST": "ssh://me@host"}, want: want{err: `(DOCKER_HOST): ssh:// engines are not supported`}},
		{name: "broken config", config: `{`, want: want{err: "~/.docker/config.json: unexpected end of JSON input"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.Remove(filepath.Join(dotDocker, "config.json")); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if tc.config != "" {
				write(t, filepath.Join(dotDocker, "config.json"), tc.config)
			}
			if tc.sock {
				listen(t, filepath.Join(home, DesktopSocket))
			}
			env := map[string]string{"HOME": home}
			for k, v := range tc.env {
				env[k] = v
			}
			ep, err := Resolve(func(k string) string { return env[k] })
			if tc.want.err != "" {
				if runtime.ReasonOf(err) != runtime.ReasonInvalid || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("Resolve: %v, %v; want an error saying %q", ep, err, tc.want.err)
				}
				return
			}
			if err != nil || ep.Host != tc.want.host || ep.Source != tc.want.source {
				t.Fatalf("Resolve: %q from %q, %v; want %q from %q", ep.Host, ep.Source, err, tc.want.host, tc.want.source)
			}
			if (ep.TLS == nil) != (tc.want.tls == nil) || ep.TLS != nil && *ep.TLS != *tc.want.tls {
				t.Errorf("TLS %+v, want %+v", ep.TLS, tc.want.tls)
			}
		})
	}
}

// A tcp:// address without a port gets the docker CLI's: 2376 with TLS,
// 2375 without.
func TestEndpointPorts(t *testing.T) {
	for _, tc := range []struct {
		ep   Endpoint
		addr string
	}{
		{Endpoint{Host: "tcp://10.0.0.1"}, "10.0.0.1:2375"},
		{Endpoint{Host: "tcp://10.0.0.1", TLS: &TLSFiles{}}, "10.0.0.1:2376"},
		{Endpoint{Host: "tcp://engine.example:4243/"}, "engine.example:4243"},
		{Endpoint{Host: "tcp://[::1]:2376"}, "[::1]:2376"},
		{Endpoint{Host: "tcp://:2375"}, "localhost:2375"},
	} {
		if network, addr, err := tc.ep.parts(); err != nil || network != "tcp" || addr != tc.addr {
			t.Errorf("%s: %s %s %v, want %s", tc.ep.Host, network, addr, err, tc.addr)
		}
	}
}

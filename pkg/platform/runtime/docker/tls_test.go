package docker_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/tlstest"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
)

// useContext makes name the current context of a fresh docker config
// directory, its endpoint host and its TLS files (copied from tlsDir, if
// given), as `docker context create` and `docker context use` leave them.
func useContext(t *testing.T, name, host, tlsDir string) string {
	t.Helper()
	dir := t.TempDir()
	sum := sha256.Sum256([]byte(name))
	id := hex.EncodeToString(sum[:])
	meta, err := json.Marshal(map[string]any{"Name": name, "Metadata": map[string]any{},
		"Endpoints": map[string]any{"docker": map[string]any{"Host": host, "SkipTLSVerify": false}}})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"config.json": []byte(`{"currentContext":"` + name + `"}`), "contexts/meta/" + id + "/meta.json": meta}
	if tlsDir != "" {
		for _, f := range []string{"ca.pem", "cert.pem", "key.pem"} {
			b, err := os.ReadFile(filepath.Join(tlsDir, f))
			if err != nil {
				t.Fatal(err)
			}
			files["contexts/tls/"+id+"/docker/"+f] = b
		}
	}
	for p, b := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// An engine is reached as the docker CLI reaches it: over TCP with TLS and
// a client certificate (DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH,
// or a context's meta file and TLS files), or a context's unix socket. A
// client certificate the engine's CA did not sign, or an engine certificate
// the CA does not verify, is refused saying so.
func TestEngineTLS(t *testing.T) {
	e := dockertest.StartWith(t, dockertest.Options{TLS: true})
	ping := func(t *testing.T, env map[string]string) (docker.Endpoint, error) {
		t.Helper()
		env["HOME"] = t.TempDir()
		ep, err := docker.Resolve(func(k string) string { return env[k] })
		if err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		rt, err := docker.OpenRuntime(ep)
		if err != nil {
			t.Fatalf("Open %s: %v", ep, err)
		}
		defer rt.Close()
		if err := rt.Ping(ctxFor(t)); err != nil {
			return ep, err
		}
		_, err = rt.List(ctxFor(t), runtime.Selector{})
		return ep, err
	}

	t.Run("DOCKER_HOST", func(t *testing.T) {
		ep, err := ping(t, map[string]string{"DOCKER_HOST": e.TCP, "DOCKER_TLS_VERIFY": "1", "DOCKER_CERT_PATH": e.ClientTLS})
		if err != nil || ep.Source != "DOCKER_HOST" || ep.TLS == nil || ep.TLS.SkipVerify {
			t.Errorf("%s: %v", ep, err)
		}
	})
	t.Run("ContextTCP", func(t *testing.T) {
		cfg := useContext(t, "remote", e.TCP, e.ClientTLS)
		ep, err := ping(t, map[string]string{"DOCKER_CONFIG": cfg})
		if err != nil || ep.Source != `context "remote" ($DOCKER_CONFIG/config.json)` || ep.TLS == nil {
			t.Errorf("%s: %v", ep, err)
		}
	})
	t.Run("ContextUnix", func(t *testing.T) {
		cfg := useContext(t, "private", e.Host, "")
		ep, err := ping(t, map[string]string{"DOCKER_CONFIG": cfg, "DOCKER_CONTEXT": "private"})
		if err != nil || ep.Host != e.Host || ep.Source != `context "private" (DOCKER_CONTEXT)` {
			t.Errorf("%s: %v", ep, err)
		}
	})
	t.Run("WrongClientCert", func(t *testing.T) {
		other, err := tlstest.NewCA("another CA")
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := other.MustIssueClient(t, 9, "intruder").WriteDir(other, dir); err != nil {
			t.Fatal(err)
		}
		// The engine's CA to verify it, a certificate it did not sign.
		if err := e.CA.WriteCert(filepath.Join(dir, "ca.pem")); err != nil {
			t.Fatal(err)
		}
		_, err = ping(t, map[string]string{"DOCKER_HOST": e.TCP, "DOCKER_TLS_VERIFY": "1", "DOCKER_CERT_PATH": dir})
		if runtime.ReasonOf(err) != runtime.ReasonUnreachable || !strings.Contains(err.Error(), "TLS: the engine refused the connection") ||
			!strings.Contains(err.Error(), "client certificate") || !strings.Contains(err.Error(), e.TCP+" (DOCKER_HOST)") {
			t.Errorf("a client certificate of another CA: %v", err)
		}
		// Another CA to verify the engine with.
		if err := other.WriteCert(filepath.Join(dir, "ca.pem")); err != nil {
			t.Fatal(err)
		}
		_, err = ping(t, map[string]string{"DOCKER_HOST": e.TCP, "DOCKER_TLS_VERIFY": "1", "DOCKER_CERT_PATH": dir})
		if runtime.ReasonOf(err) != runtime.ReasonUnreachable || !strings.Contains(err.Error(), "does not verify against the CA") {
			t.Errorf("an engine certificate of another CA: %v", err)
		}
	})
}

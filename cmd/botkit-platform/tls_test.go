package main_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/tlstest"
)

// serve --tls-cert-file --tls-key-file on SQLite and on PostgreSQL: HTTPS
// with the CA's certificate, TLS 1.2 and later; the files rotated under the
// running server (a half-written pair logged and the previous certificate
// kept, then the new pair served to new connections).
func TestServeTLS(t *testing.T) {
	for _, storeKind := range []string{"sqlite", "postgres"} {
		t.Run(storeKind, func(t *testing.T) {
			dir := t.TempDir()
			ca, err := tlstest.NewCA("platform CA")
			if err != nil {
				t.Fatal(err)
			}
			certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
			if err := ca.MustIssue(t, 1, "127.0.0.1").Write(certFile, keyFile); err != nil {
				t.Fatal(err)
			}
			tlsFlags := []string{"--tls-cert-file", certFile, "--tls-key-file", keyFile}
			var s *server
			var token string
			if storeKind == "sqlite" {
				data := t.TempDir()
				token = newOrg(t, data, "acme")
				s = startServer(t, data, tlsFlags...)
			} else {
				p := newPGPlatform(t, pg.Database(t))
				token = p.newOrg(t, "acme")
				s = p.start(t, tlsFlags...)
			}
			if !strings.HasPrefix(s.url, "https://127.0.0.1:") {
				t.Fatalf("serve says it listens on %s", s.url)
			}
			pool := x509.NewCertPool()
			pool.AddCert(ca.Cert)
			host := strings.TrimPrefix(s.url, "https://")
			// servedSerial is the serial a new connection is shown.
			servedSerial := func(max uint16) (int64, error) {
				c, err := tls.Dial("tcp", host, &tls.Config{RootCAs: pool, MaxVersion: max})
				if err != nil {
					return 0, err
				}
				defer c.Close()
				return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64(), nil
			}
			// waitSerial polls new connections, a bounded number of times,
			// until one is shown want.
			waitSerial := func(want int64) {
				t.Helper()
				var got int64
				for range 100 {
					if got, err = servedSerial(0); err != nil {
						t.Fatal(err)
					}
					if got == want {
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
				t.Fatalf("new connections are still shown serial %d, not %d", got, want)
			}

			hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
			get := func() {
				t.Helper()
				req, err := http.NewRequest("GET", s.url+"/v1/me", nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+token)
				r, err := hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Body.Close()
				b, err := io.ReadAll(r.Body)
				if err != nil || r.StatusCode != 200 || !strings.Contains(string(b), `"acme"`) {
					t.Fatalf("GET /v1/me over https: %d %s %v", r.StatusCode, b, err)
				}
				if r.TLS == nil || r.TLS.Version < tls.VersionTLS12 {
					t.Fatalf("GET /v1/me: not over TLS 1.2+: %+v", r.TLS)
				}
			}
			get()
			waitSerial(1)
			if _, err := servedSerial(tls.VersionTLS11); err == nil {
				t.Error("a TLS 1.1 handshake succeeded")
			}

			// Half-written: the new certificate beside the old key.
			two := ca.MustIssue(t, 2, "127.0.0.1")
			if err := os.WriteFile(certFile, two.CertPEM, 0o644); err != nil {
				t.Fatal(err)
			}
			waitLog := func(want string) {
				t.Helper()
				for range 100 {
					if _, err := servedSerial(0); err != nil {
						t.Fatal(err)
					}
					if strings.Contains(s.log(), want) {
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
				t.Fatalf("the log never says %q:\n%s", want, s.log())
			}
			waitLog("does not match the certificate in " + certFile)
			if got, err := servedSerial(0); err != nil || got != 1 {
				t.Fatalf("with a half-written pair: serial %d (%v), want the previous one, 1", got, err)
			}
			if err := os.WriteFile(keyFile, two.KeyPEM, 0o600); err != nil {
				t.Fatal(err)
			}
			waitSerial(2)
			waitLog("TLS certificate reloaded")
			hc.CloseIdleConnections()
			get()
			if strings.Contains(s.log(), "PRIVATE KEY") || strings.Contains(s.log(), token) {
				t.Error("the server's log shows key material or the token")
			}
		})
	}
}

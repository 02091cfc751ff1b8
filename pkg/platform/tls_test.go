package platform_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/tlstest"
	"github.com/botkit-dev/botkit/pkg/platform"
)

// tlsServer serves cfg on 127.0.0.1 and returns its address.
func tlsServer(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok")) // error ignored: the client reads the handshake only
	})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(tls.NewListener(ln, cfg)) // error ignored: ErrServerClosed at Close
	}()
	t.Cleanup(func() {
		_ = hs.Close() // error ignored: the test is over
		<-done
	})
	return ln.Addr().String()
}

// servedSerial opens a new connection to addr trusting pool only and
// returns the serial number of the certificate it is shown.
func servedSerial(addr string, pool *x509.CertPool, max uint16) (*big.Int, error) {
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, MaxVersion: max})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].SerialNumber, nil
}

// The certificate files are re-read when they change: a new connection
// after a rotation sees the new serial; a half-written rotation (the new
// certificate beside the old key) keeps the previous certificate in service
// and logs why, naming the file; once the key follows, the new pair is
// served. TLS 1.1 is refused.
func TestTLSRotation(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca, err := tlstest.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	if err := ca.MustIssue(t, 1, "127.0.0.1").Write(certFile, keyFile); err != nil {
		t.Fatal(err)
	}
	var log lockedBuffer
	cfg, err := platform.TLSConfig(certFile, keyFile, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	addr := tlsServer(t, cfg)
	expect := func(want int64) {
		t.Helper()
		got, err := servedSerial(addr, pool, 0)
		if err != nil || got.Int64() != want {
			t.Fatalf("served serial %v (%v), want %d", got, err, want)
		}
	}
	expect(1)
	if _, err := servedSerial(addr, pool, tls.VersionTLS11); err == nil {
		t.Error("a TLS 1.1 handshake succeeded")
	}

	if err := ca.MustIssue(t, 2, "127.0.0.1").Write(certFile, keyFile); err != nil {
		t.Fatal(err)
	}
	expect(2)

	// Half-written: the certificate is new, the key still the old one.
	three := ca.MustIssue(t, 3, "127.0.0.1")
	if err := os.WriteFile(certFile, three.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	expect(2)
	if !strings.Contains(log.String(), "key file "+keyFile+" does not match the certificate in "+certFile) {
		t.Errorf("the half-written pair was not logged naming the files:\n%s", log.String())
	}
	if err := os.WriteFile(keyFile, three.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	expect(3)
	if strings.Contains(log.String(), "PRIVATE KEY") || strings.Contains(log.String(), string(three.KeyPEM[30:60])) {
		t.Error("the log shows key material")
	}
}

// Handshakes at once while the files rotate under them: every handshake
// succeeds with one of the pairs written (run with -race).
func TestTLSRotationConcurrent(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca, err := tlstest.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	const rotations = 20
	leaves := make([]*tlstest.Leaf, rotations+1)
	for i := range leaves {
		if leaves[i], err = ca.Issue(int64(i+1), "127.0.0.1"); err != nil {
			t.Fatal(err)
		}
	}
	if err := leaves[0].Write(certFile, keyFile); err != nil {
		t.Fatal(err)
	}
	cfg, err := platform.TLSConfig(certFile, keyFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	addr := tlsServer(t, cfg)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				s, err := servedSerial(addr, pool, 0)
				if err == nil && (s.Int64() < 1 || s.Int64() > rotations+1) {
					err = errors.New("unknown serial " + s.String())
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for _, l := range leaves[1:] {
		if err := l.Write(certFile, keyFile); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s, err := servedSerial(addr, pool, 0); err != nil || s.Int64() != rotations+1 {
		t.Errorf("after the rotations: serial %v (%v), want %d", s, err, rotations+1)
	}
}

// A pair that cannot be served at start is an error naming the file.
func TestTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	ca, err := tlstest.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	a, err := ca.Issue(1, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ca.Issue(2, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cert, key, otherKey := write("a.crt", a.CertPEM), write("a.key", a.KeyPEM), write("b.key", b.KeyPEM)
	garbage := write("garbage", []byte("not PEM\n"))
	missing := filepath.Join(dir, "missing.pem")
	for _, tc := range []struct{ cert, key, want string }{
		{missing, key, "certificate file " + missing + ": no such file or directory"},
		{cert, missing, "key file " + missing + ": no such file or directory"},
		{garbage, key, "certificate file " + garbage + ": no PEM CERTIFICATE block in it"},
		{cert, garbage, "key file " + garbage + ": no PEM PRIVATE KEY block in it"},
		{cert, cert, "key file " + cert + ": no PEM PRIVATE KEY block in it"},
		{cert, otherKey, "key file " + otherKey + " does not match the certificate in " + cert},
	} {
		_, err := platform.TLSConfig(tc.cert, tc.key, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("TLSConfig(%s, %s) = %v, want %q", filepath.Base(tc.cert), filepath.Base(tc.key), err, tc.want)
		}
	}
}

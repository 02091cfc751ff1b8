package platform

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// TLSConfig returns the TLS configuration of a serving process
// (botkit-platform serve --tls-cert-file --tls-key-file): TLS 1.2 and
// later, HTTP/1.1, the certificate (with its chain) of certFile and the key
// of keyFile. The pair is loaded now — an error names the file at fault —
// and loaded again at the first handshake after either file changed (its
// identity, size or modification time), so that a rotated certificate is
// served without a restart. A pair that does not load then (a rotation
// half-written: the new certificate beside the old key) leaves the previous
// certificate in service and is logged to logger; it is tried again when a
// file changes again. Safe for concurrent handshakes.
func TLSConfig(certFile, keyFile string, logger *slog.Logger) (*tls.Config, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	r := &certReloader{certFile: certFile, keyFile: keyFile, logger: logger}
	r.certStat, r.keyStat = stat(certFile), stat(keyFile)
	cert, err := loadKeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	r.cert = cert
	r.logLoaded("TLS certificate loaded", cert)
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"http/1.1"},
		GetCertificate: r.getCertificate,
	}, nil
}

// certReloader serves the last pair that loaded and reloads it when the
// files change.
type certReloader struct {
	certFile, keyFile string
	logger            *slog.Logger

	mu                sync.Mutex
	cert              *tls.Certificate
	certStat, keyStat fs.FileInfo // of the files when last loaded or tried (nil: missing)
}

func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Stat before reading: a change made while the pair is read is seen at
	// the next handshake.
	cs, ks := stat(r.certFile), stat(r.keyFile)
	if sameVersion(cs, r.certStat) && sameVersion(ks, r.keyStat) {
		return r.cert, nil
	}
	r.certStat, r.keyStat = cs, ks
	cert, err := loadKeyPair(r.certFile, r.keyFile)
	if err != nil {
		// Logged once per change of the files, not per handshake.
		r.logger.Warn("TLS certificate files changed but do not load; serving the previous certificate until they change again", "error", err.Error())
		return r.cert, nil
	}
	r.cert = cert
	r.logLoaded("TLS certificate reloaded", cert)
	return r.cert, nil
}

func (r *certReloader) logLoaded(msg string, cert *tls.Certificate) {
	leaf := cert.Leaf
	r.logger.Info(msg, "file", r.certFile, "serial", leaf.SerialNumber.Text(16), "subject", leaf.Subject.String(), "notAfter", leaf.NotAfter.UTC())
}

// stat returns the file's information, or nil when it cannot be read.
func stat(path string) fs.FileInfo {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return fi
}

// sameVersion reports whether two stats are of the same file unchanged:
// the same file (a rotation by rename makes another), size and
// modification time.
func sameVersion(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// loadKeyPair reads a certificate file (the server's certificate first,
// then its chain) and a key file; each problem names its file.
func loadKeyPair(certFile, keyFile string) (*tls.Certificate, error) {
	certPEM, err := readPEMFile("certificate", certFile)
	if err != nil {
		return nil, err
	}
	keyPEM, err := readPEMFile("key", keyFile)
	if err != nil {
		return nil, err
	}
	var certDER []byte
	for rest := certPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "CERTIFICATE" {
			certDER = b.Bytes
			break
		}
	}
	if certDER == nil {
		return nil, fmt.Errorf("certificate file %s: no PEM CERTIFICATE block in it", certFile)
	}
	leaf, err := x509.ParseCertificate(certDER)
	if err != nil {
		return nil, fmt.Errorf("certificate file %s: %v", certFile, err)
	}
	var keyDER []byte
	for rest := keyPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "PRIVATE KEY" || strings.HasSuffix(b.Type, " PRIVATE KEY") {
			keyDER = b.Bytes
			break
		}
	}
	if keyDER == nil {
		return nil, fmt.Errorf("key file %s: no PEM PRIVATE KEY block in it", keyFile)
	}
	key, err := parsePrivateKey(keyDER)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %v", keyFile, err)
	}
	pub, ok := leaf.PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(key.Public()) {
		return nil, fmt.Errorf("key file %s does not match the certificate in %s (a rotation writes both)", keyFile, certFile)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("certificate file %s with key file %s: %v", certFile, keyFile, err)
	}
	cert.Leaf = leaf
	return &cert, nil
}

// readPEMFile reads a file, the error naming what it is and its path.
func readPEMFile(what, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s file %s: %v", what, path, err)
	}
	return b, nil
}

// parsePrivateKey reads a key as crypto/tls does: PKCS #8, PKCS #1 (RSA)
// or SEC 1 (EC).
func parsePrivateKey(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, errors.New("a PKCS #8 key of a kind TLS does not sign with")
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("not a private key in PKCS #8, PKCS #1 (RSA) or SEC 1 (EC) form")
}

// Package tlstest makes, for tests, a private certificate authority and the
// server and client certificates it signs (crypto/x509, ECDSA P-256), written as PEM
// files the way an operator would hand them to botkit-platform serve and
// botkit: a CA certificate file, a certificate file and a key file.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a private certificate authority.
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// NewCA returns a fresh CA named name, valid from an hour ago for a day.
func NewCA(name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, key: key}, nil
}

// PEM returns the CA's certificate in PEM.
func (ca *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw})
}

// WriteCert writes the CA's certificate to path (mode 0644).
func (ca *CA) WriteCert(path string) error {
	return os.WriteFile(path, ca.PEM(), 0o644)
}

// Leaf is a server or client certificate and its key, in PEM.
type Leaf struct {
	Serial  *big.Int
	CertPEM []byte
	KeyPEM  []byte
}

// MustIssue is Issue that fails t on an error.
func (ca *CA) MustIssue(t testing.TB, serial int64, hosts ...string) *Leaf {
	t.Helper()
	l, err := ca.Issue(serial, hosts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Issue returns a server certificate for hosts (IP addresses or DNS names)
// with the given serial number, signed by ca, valid from an hour ago for a
// day.
func (ca *CA) Issue(serial int64, hosts ...string) (*Leaf, error) {
	if len(hosts) == 0 {
		return nil, errors.New("tlstest: Issue needs a host")
	}
	return ca.issue(serial, x509.ExtKeyUsageServerAuth, hosts[0], hosts)
}

// IssueClient returns a client certificate named name (a TLS client's
// identity, as an engine with --tlsverify asks for), signed by ca.
func (ca *CA) IssueClient(serial int64, name string) (*Leaf, error) {
	return ca.issue(serial, x509.ExtKeyUsageClientAuth, name, nil)
}

// MustIssueClient is IssueClient that fails t on an error.
func (ca *CA) MustIssueClient(t testing.TB, serial int64, name string) *Leaf {
	t.Helper()
	l, err := ca.IssueClient(serial, name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (ca *CA) issue(serial int64, usage x509.ExtKeyUsage, name string, hosts []string) (*Leaf, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &Leaf{
		Serial:  tmpl.SerialNumber,
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// Write writes the certificate to certFile and the key to keyFile (0600),
// each replaced whole (a temporary file renamed over it, as a rotation
// tool does).
func (l *Leaf) Write(certFile, keyFile string) error {
	if err := replace(certFile, l.CertPEM, 0o644); err != nil {
		return err
	}
	return replace(keyFile, l.KeyPEM, 0o600)
}

func replace(path string, b []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// WriteDir writes, as the docker CLI and dockerd expect them, ca's
// certificate as dir/ca.pem and the leaf as dir/cert.pem and dir/key.pem.
func (l *Leaf) WriteDir(ca *CA, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := ca.WriteCert(filepath.Join(dir, "ca.pem")); err != nil {
		return err
	}
	return l.Write(filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
}

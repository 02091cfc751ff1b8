package client

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// CAFile is a private certificate authority a client trusts besides the
// system's: a PEM file of one or more CA certificates, and what named it.
type CAFile struct {
	// Path is the file ("": none, the system's CAs only).
	Path string
	// From says where the path came from, for messages: "--certificate-authority",
	// "BOTKIT_CA_FILE", `context "prod" (certificateAuthority in FILE)`.
	From string
}

// String names the file and where it came from: "/etc/ca.pem (from BOTKIT_CA_FILE)".
func (ca CAFile) String() string {
	if ca.From == "" {
		return ca.Path
	}
	return ca.Path + " (from " + ca.From + ")"
}

// CAFileError is a CA file that cannot be used: unreadable, or no valid PEM
// certificate in it. It is invalid input (exit 2), naming the file.
type CAFileError struct {
	CA  CAFile
	Err error
}

func (e *CAFileError) Error() string {
	return fmt.Sprintf("CA file %s: %v", e.CA, e.Err)
}

func (e *CAFileError) Unwrap() error { return e.Err }

// ErrorCode makes a CAFileError invalid input (see cmdutil.Coded).
func (e *CAFileError) ErrorCode() string { return resources.CodeInvalid }

// CertificateError is a platform whose TLS certificate the client does not
// accept: not signed by a trusted CA, issued for another name, or outside
// its validity. It is a runtime failure (exit 1); the message names the CA
// file in use, or says none was given and how to give one.
type CertificateError struct {
	Host string
	CA   CAFile // the private CA trusted besides the system's (zero: none)
	Hint string // how to give a CA file, when none was given
	Err  error  // the x509 verification error
}

func (e *CertificateError) Error() string {
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	switch {
	case errors.As(e.Err, &he) && he.Certificate != nil:
		names := slices.Clone(he.Certificate.DNSNames)
		for _, ip := range he.Certificate.IPAddresses {
			names = append(names, ip.String())
		}
		if len(names) == 0 {
			names = []string{"no name"}
		}
		return fmt.Sprintf("the platform at %s presents a TLS certificate botkit does not accept: it is for %s, not %s", e.Host, strings.Join(names, ", "), he.Host)
	case !errors.As(e.Err, &ua):
		return fmt.Sprintf("the platform at %s presents a TLS certificate botkit does not accept: %v", e.Host, e.Err)
	}
	if e.CA.Path == "" {
		msg := fmt.Sprintf("the platform at %s presents a TLS certificate signed by an authority botkit does not trust: no CA file was given, so only the system's CAs are trusted", e.Host)
		if e.Hint != "" {
			msg += "; " + e.Hint
		}
		return msg
	}
	return fmt.Sprintf("the platform at %s presents a TLS certificate signed neither by the CA in %s nor by one of the system's CAs: is it the platform's CA?", e.Host, e.CA)
}

func (e *CertificateError) Unwrap() error { return e.Err }

// certificateError returns err as a *CertificateError when it is a failed
// verification of the server's certificate.
func (c *Client) certificateError(err error) (*CertificateError, bool) {
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ie x509.CertificateInvalidError
	var ve *tls.CertificateVerificationError
	switch {
	case errors.As(err, &ua):
		err = ua
	case errors.As(err, &he):
		err = he
	case errors.As(err, &ie):
		err = ie
	case errors.As(err, &ve):
		err = ve.Err
	default:
		return nil, false
	}
	return &CertificateError{Host: c.host, CA: c.ca, Hint: c.caHint, Err: err}, true
}

// CheckCAFile reports a CA file that cannot be used (a *CAFileError), as
// New would, so that a command storing the path can refuse it at once.
func CheckCAFile(ca CAFile) error {
	_, err := loadCA(ca)
	return err
}

// loadCA returns the system's CAs with the certificates of ca.Path added.
func loadCA(ca CAFile) (*x509.CertPool, error) {
	b, err := os.ReadFile(ca.Path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &CAFileError{CA: ca, Err: err}
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool() // no system pool on this platform: the file alone
	}
	n := 0
	for rest := b; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, &CAFileError{CA: ca, Err: fmt.Errorf("certificate %d: %v", n+1, err)}
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, &CAFileError{CA: ca, Err: errors.New("no PEM CERTIFICATE block in it")}
	}
	return pool, nil
}

// caTransport returns a clone of the default transport that trusts ca
// besides the system's CAs, TLS 1.2 and later.
func caTransport(ca CAFile) (http.RoundTripper, error) {
	pool, err := loadCA(ca)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return tr, nil
}

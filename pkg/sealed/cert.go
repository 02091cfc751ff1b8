package sealed

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// Cert is an organization's public sealing key as `botkit seal --fetch-cert`
// saves it, for sealing offline (`botkit seal --cert FILE`). It holds
// nothing secret.
type Cert struct {
	Organization string
	KeyID        string
	Recipient    string
}

const certHeader = "# botkit sealing certificate: public, safe to commit. Seal offline with: botkit seal --cert FILE\n"

// Marshal writes the certificate as "key: value" lines.
func (c Cert) Marshal() []byte {
	return fmt.Appendf(nil, "%sorganization: %s\nkeyId: %s\nrecipient: %s\n", certHeader, c.Organization, c.KeyID, c.Recipient)
}

// CertError is a problem in a certificate file, at a line (0: the file).
type CertError struct {
	Line    int
	Message string
}

func (e *CertError) Error() string {
	if e.Line == 0 {
		return e.Message
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Message)
}

// ParseCert reads a certificate: "organization", "keyId" and "recipient"
// lines, comments (#) and blank lines; anything else is an error at its
// line. The key id must be the recipient's.
func ParseCert(data []byte) (Cert, *Recipient, error) {
	var c Cert
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return c, nil, &CertError{n, `want "key: value"`}
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if first, dup := seen[k]; dup {
			return c, nil, &CertError{n, fmt.Sprintf("%s given twice (first at line %d)", k, first)}
		}
		seen[k] = n
		switch k {
		case "organization":
			c.Organization = v
		case "keyId":
			c.KeyID = v
		case "recipient":
			c.Recipient = v
		default:
			return c, nil, &CertError{n, fmt.Sprintf("unknown key %q (want organization, keyId, recipient)", k)}
		}
	}
	if err := sc.Err(); err != nil {
		return c, nil, &CertError{0, err.Error()}
	}
	for k, v := range map[string]string{"organization": c.Organization, "keyId": c.KeyID, "recipient": c.Recipient} {
		if v == "" {
			return c, nil, &CertError{0, k + " is missing (fetch the certificate again: botkit seal --fetch-cert)"}
		}
	}
	r, err := ParseRecipient(c.Recipient)
	if err != nil {
		return c, nil, &CertError{seen["recipient"], err.Error()}
	}
	if r.ID != c.KeyID {
		return c, nil, &CertError{seen["keyId"], fmt.Sprintf("keyId %s is not the recipient's (%s): the file was edited", c.KeyID, r.ID)}
	}
	return c, r, nil
}

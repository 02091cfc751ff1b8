package resources

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits enforced by the platform (docs/manifests.md).
const (
	MaxNameLength    = 63
	MaxKeyLength     = 128
	MaxValueBytes    = 64 << 10  // one value
	MaxKeys          = 1000      // keys in one set
	MaxSetBytes      = 512 << 10 // sum of key and value lengths in one set
	MaxRequestBytes  = 1 << 20   // one request body
	MaxLabels        = 64
	MaxLabelValueLen = 63
)

// Regions of the platform, in display order; DefaultRegion is the default
// region of an organization that did not choose one.
const DefaultRegion = "us-west"

// EmbeddedOrg is the organization of the CLI's embedded local platform.
const EmbeddedOrg = "local"

// Regions returns the platform's regions.
func Regions() []string { return []string{"us-west", "us-east", "eu-central", "ap-south"} }

// ValidateRegion reports whether r is a known region.
func ValidateRegion(r string) error {
	if slices.Contains(Regions(), r) {
		return nil
	}
	return fmt.Errorf("unknown region %q (valid: %s)", r, strings.Join(Regions(), ", "))
}

// ValidateKind reports whether k is SecretSet or ImagePullSecret.
func ValidateKind(k string) error {
	if k == KindSecretSet || k == KindImagePullSecret {
		return nil
	}
	return fmt.Errorf("unknown kind %q (valid: %s, %s)", k, KindSecretSet, KindImagePullSecret)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ValidateName checks an object or organization name: letters, digits and
// hyphens, 1-63 characters, starting and ending with a letter or digit.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("name must not be empty")
	}
	if len(name) > MaxNameLength {
		return fmt.Errorf("name %q is %d characters long; the limit is %d", name[:MaxNameLength]+"...", len(name), MaxNameLength)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) && c != '-' {
			return fmt.Errorf("name %q: only letters, digits and hyphens are allowed", printable(name))
		}
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return fmt.Errorf("name %q must start and end with a letter or digit", name)
	}
	return nil
}

// ValidateKey checks a secret key: an environment variable name matching
// ^[A-Za-z_][A-Za-z0-9_]*$, at most 128 characters.
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("key must not be empty")
	}
	if len(key) > MaxKeyLength {
		return fmt.Errorf("key %q is %d characters long; the limit is %d", key[:32]+"...", len(key), MaxKeyLength)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return fmt.Errorf("key %q is not a valid environment variable name (letters, digits and _; not starting with a digit)", printable(key))
		}
	}
	return nil
}

// ValidateValue checks one value of key: valid UTF-8 without NUL bytes (a
// value becomes an environment variable, which holds neither), at most 64
// KiB. It is the one check of a value, whatever the path it came by: KEY=value
// arguments, dotenv files and stdin, manifests and their value sources, and
// the platform's API. The error (*ValueError) names the key, never the value.
func ValidateValue(key, value string) error {
	if len(value) > MaxValueBytes {
		return &ValueError{Key: key, Problem: fmt.Sprintf("value is %d bytes; the limit is %d bytes (64 KiB)", len(value), MaxValueBytes)}
	}
	if !utf8.ValidString(value) {
		return &ValueError{Key: key, Problem: "value is not valid UTF-8"}
	}
	if strings.IndexByte(value, 0) >= 0 {
		return &ValueError{Key: key, Problem: "value holds a NUL byte, which an environment variable cannot hold"}
	}
	return nil
}

// ValueError is a value ValidateValue refuses. Its message names the key and
// the problem, never the value.
type ValueError struct {
	Key     string
	Problem string
}

func (e *ValueError) Error() string { return "key " + e.Key + ": " + e.Problem }

// SetSize is the size a key and value count towards MaxSetBytes.
func SetSize(key string, valueLen int) int { return len(key) + valueLen }

// ValidateSetTotals checks the number of keys and the total size of a set.
func ValidateSetTotals(keys, bytes int) error {
	if keys > MaxKeys {
		return fmt.Errorf("a secret set holds at most %d keys; this one would hold %d", MaxKeys, keys)
	}
	if bytes > MaxSetBytes {
		return fmt.Errorf("a secret set holds at most %d bytes (512 KiB) of keys and values; this one would hold %d", MaxSetBytes, bytes)
	}
	return nil
}

// ValidateData checks the keys, values and totals of a set's literal data.
// Non-literal sources are refused: they must be resolved first.
func ValidateData(data map[string]ValueSource) []error {
	var errs []error
	total := 0
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := ValidateKey(k); err != nil {
			errs = append(errs, err)
			continue
		}
		src := data[k]
		if !src.IsLiteral() {
			errs = append(errs, fmt.Errorf("key %s: value source %s was not resolved to a value", k, src))
			continue
		}
		if err := ValidateValue(k, *src.Literal); err != nil {
			errs = append(errs, err)
			continue
		}
		total += SetSize(k, len(*src.Literal))
	}
	if err := ValidateSetTotals(len(data), total); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// ValidateLabels checks label keys and values (Kubernetes rules): a key is an
// optional DNS prefix and "/" followed by a name of 1-63 letters, digits, '-',
// '_' and '.', starting and ending alphanumeric; a value is empty or such a name.
func ValidateLabels(labels map[string]string) error {
	if len(labels) > MaxLabels {
		return fmt.Errorf("at most %d labels are allowed; got %d", MaxLabels, len(labels))
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := ValidateLabelKey(k); err != nil {
			return err
		}
		if err := ValidateLabelValue(k, labels[k]); err != nil {
			return err
		}
	}
	return nil
}

// LabelKeyPattern is ValidateLabelKey's rule as a regular expression (for
// JSON Schemas): an optional DNS-subdomain prefix and "/", then a name of
// 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter
// or digit. (A test holds the two to the same answers.)
const LabelKeyPattern = `^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*/)?[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$`

// ValidateLabelKey checks one label key.
func ValidateLabelKey(k string) error {
	name := k
	if i := strings.IndexByte(k, '/'); i >= 0 {
		prefix := k[:i]
		name = k[i+1:]
		if prefix == "" || len(prefix) > 253 || !isDNSName(prefix) {
			return fmt.Errorf("label key %q: the prefix must be a DNS subdomain", printable(k))
		}
	}
	if !isLabelName(name) {
		return fmt.Errorf("label key %q: must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", printable(k))
	}
	return nil
}

// ValidateLabelValue checks the value of label k.
func ValidateLabelValue(k, v string) error {
	if v != "" && !isLabelName(v) {
		return fmt.Errorf("label %s: the value must be empty or 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", k)
	}
	return nil
}

func isLabelName(s string) bool {
	if s == "" || len(s) > MaxLabelValueLen || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isDNSName(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if part == "" || len(part) > 63 || !isAlnum(part[0]) || !isAlnum(part[len(part)-1]) {
			return false
		}
		for i := 0; i < len(part); i++ {
			if !isAlnum(part[i]) && part[i] != '-' {
				return false
			}
		}
	}
	return true
}

// printable shortens and sanitizes s for an error message (names and keys
// only — never call it on a value).
func printable(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

// NormalizeRegistryHost parses a registry address — a URL (http or https,
// no path, no credentials) or host[:port] — and returns its base URL such as
// "https://ghcr.io" or "http://127.0.0.1:5000". An address without a scheme
// gets RegistryScheme's: http on the loopback interface, else https. Errors
// do not echo an address that holds credentials.
func NormalizeRegistryHost(host string) (string, error) {
	h := strings.TrimSpace(host)
	if h == "" {
		return "", fmt.Errorf("spec.host: the registry host must not be empty")
	}
	if len(h) > 512 {
		return "", fmt.Errorf("spec.host: the registry host is longer than 512 characters")
	}
	if !strings.Contains(h, "://") {
		host, _, _ := strings.Cut(h, "/")
		h = RegistryScheme(host) + "://" + h
	}
	u, err := url.Parse(h)
	if err != nil {
		return "", fmt.Errorf("spec.host: not a registry address (want a URL or host[:port])")
	}
	if u.User != nil {
		return "", fmt.Errorf("spec.host: the registry address must not contain credentials; pass them as credentials")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("spec.host %q: the scheme must be https or http", printable(host))
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("spec.host %q: no host name", printable(host))
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("spec.host %q: give the registry address only (no path or query)", printable(host))
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("spec.host %q: invalid port", printable(host))
		}
	}
	hostname := u.Hostname()
	if net.ParseIP(hostname) == nil && !isDNSName(hostname) {
		return "", fmt.Errorf("spec.host %q: invalid host name", printable(host))
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), nil
}

// ParseCredentials checks "<username>:<password>" credentials, or their
// base64 encoding when encoded is true, and returns the username and the
// base64 form that is stored. Errors never echo the credentials.
func ParseCredentials(creds string, encoded bool) (username, b64 string, err error) {
	plain := creds
	if encoded {
		dec, derr := base64.StdEncoding.DecodeString(strings.TrimSpace(creds))
		if derr != nil {
			return "", "", credentialsError("encode is false but the credentials are not valid base64")
		}
		plain = string(dec)
	}
	if len(plain) > 8192 {
		return "", "", credentialsError("longer than 8192 bytes")
	}
	// The check of every value (UTF-8, no NUL), then what credentials need
	// more: one line, username:password.
	if err := ValidateValue("credentials", plain); err != nil {
		return "", "", credentialsError(err.(*ValueError).Problem)
	}
	if strings.ContainsAny(plain, "\r\n") {
		return "", "", credentialsError("must be a single line")
	}
	user, pass, ok := strings.Cut(plain, ":")
	if !ok || user == "" || pass == "" {
		return "", "", credentialsError("want <username>:<password> with both parts non-empty")
	}
	return user, base64.StdEncoding.EncodeToString([]byte(plain)), nil
}

func credentialsError(problem string) error {
	return &FieldError{Field: "spec.credentials", Problem: problem}
}

// FieldError is a problem with one field of an object. Its message is
// "FIELD: PROBLEM"; a command that names the input differently (an argument,
// a flag) shows Problem after its own name.
type FieldError struct {
	Field   string // e.g. spec.credentials
	Problem string // never holds a value
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

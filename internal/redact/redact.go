// Package redact takes credentials out of the connection strings users give
// (API URLs, PostgreSQL URLs and key=value DSNs) before they reach a
// message. It works on strings whatever their form, including ones that do
// not parse as URLs: those are exactly the ones error messages quote.
package redact

import (
	"regexp"
	"strings"
	"sync"
)

// Mask replaces what is taken out.
const Mask = "REDACTED"

// maxLen bounds what a message quotes of a string.
const maxLen = 200

// dsnSecret matches a key=value pair of a DSN whose value is a secret:
// password=..., sslpassword='...', token=... (quoted or not).
// Compiled at first use: the CLI links it and must start fast.
var dsnSecret = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(password|passwd|pwd|sslpassword|sslkey|token|secret|api_key|apikey)\s*=\s*('(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|\S*)`)
})

// Location returns raw with every credential replaced by Mask: the user
// information of a URL (user and password: a token often goes there), its
// query and fragment (?token=..., ?password=...), and secret key=value
// pairs of a DSN. It is cut to 200 characters.
func Location(raw string) string {
	s := raw
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, rest := s[:i+3], s[i+3:]
		if q := strings.IndexAny(rest, "?#"); q >= 0 {
			rest = rest[:q] + "?" + Mask
		}
		// User information ends at the last "@" before the query: a string
		// that does not parse (a "/" or "%zz" in the password) is masked
		// all the same.
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest = Mask + rest[at:]
		}
		s = scheme + rest
	}
	s = dsnSecret().ReplaceAllString(s, "${1}="+Mask)
	if len(s) > maxLen {
		s = s[:maxLen] + "..."
	}
	return s
}

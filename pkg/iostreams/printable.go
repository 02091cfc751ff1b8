package iostreams

import "strings"

// Printable makes s safe to write to a terminal on one line: control
// characters (ESC and the rest of C0, DEL, C1 — what starts the escape
// sequences that clear screens or write to the clipboard) and newlines
// become spaces, and invalid UTF-8 becomes "?". Every string that comes from
// a server, a file or another process passes through it before it is
// printed as text (error lines, tables, status lines).
func Printable(s string) string {
	if isPlain(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// isPlain reports whether s is printable ASCII (the common case, no copy).
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

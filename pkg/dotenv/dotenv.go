// Package dotenv reads and writes dotenv files: the KEY=value files that
// `botkit cloud secrets set --file` takes (docs/secrets.md).
//
// Syntax, line by line:
//
//   - Blank lines and lines whose first non-blank character is # are ignored.
//   - An assignment is KEY=value, optionally preceded by "export " (so the
//     file can be sourced by a shell) and with blanks allowed around "=".
//     KEY follows the key rule of package resources: ^[A-Za-z_][A-Za-z0-9_]*$,
//     at most 128 characters.
//   - An unquoted value runs to the end of the line; a # preceded by a blank
//     starts a comment, and blanks before it or at the end are dropped.
//     Backslashes, quotes and # inside the value are kept as written.
//   - A single-quoted value is literal: every byte up to the next ' is the
//     value, newlines included.
//   - A double-quoted value may span lines and understands the escapes \n,
//     \r, \t, \", \\ and \$; any other backslash is kept as written.
//   - After a closing quote only blanks and a # comment may follow.
//   - Values may be empty: A=, A="" or A= followed by two single quotes.
//     Nothing is expanded: $VAR and ${VAR} stay as written.
//   - A key given twice takes its last value (as a shell would), at the
//     position of its first assignment; ParseBytesDuplicates reports it.
//   - A UTF-8 byte order mark at the start is ignored and CRLF line endings
//     read as LF.
//   - A value must pass resources.ValidateValue: valid UTF-8, no NUL byte
//     (an environment variable cannot hold one), at most 64 KiB.
//
// Errors are *ParseError values naming the file and line. They never contain
// a value or any part of one, and name the key only once it is known to be a
// valid key followed by "=".
package dotenv

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// MaxFileBytes is the largest dotenv file Parse reads (far above what a
// secret set may hold, low enough that a wrong file cannot exhaust memory).
const MaxFileBytes = 16 << 20

// Pair is one KEY=value assignment. String and GoString hide the value, so a
// Pair printed by mistake does not reveal it.
type Pair struct {
	Key   string
	Value string
	// Line is the line (1-based) of the assignment that set Value.
	Line int
}

// String returns "KEY=<redacted>".
func (p Pair) String() string { return p.Key + "=<redacted>" }

// GoString keeps %#v from printing the value.
func (p Pair) GoString() string { return fmt.Sprintf("dotenv.Pair{Key:%q, Line:%d}", p.Key, p.Line) }

// ParseError is a syntax error in a dotenv file. Its message names the file,
// the line and (when it is valid) the key; never a value.
type ParseError struct {
	File string // the name given to Parse
	Line int    // 1-based; for an unterminated quote, the line the value starts on; 0 for the whole file
	Key  string // the key the problem is about; "" when no valid key was read
	Msg  string // what is wrong
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ErrorCode makes it invalid input (exit 2; see cmdutil.Coded).
func (e *ParseError) ErrorCode() string { return resources.CodeInvalid }

// Messages of ParseError. Each %s is the key.
const (
	msgNoEquals       = `expected KEY=value`
	msgNoKey          = `missing key before "="`
	msgBadKey         = `invalid key: use letters, digits and _, not starting with a digit, at most 128 characters`
	msgUnterminatedDQ = `the double-quoted value of %s has no closing "`
	msgUnterminatedSQ = `the single-quoted value of %s has no closing '`
	msgAfterQuote     = `unexpected text after the closing quote of %s (only a # comment may follow)`
	msgTooLarge       = `file is larger than 16 MiB`
)

// Parse reads a dotenv file from r. name is used in errors only: the path as
// the user gave it, or e.g. "stdin". The pairs come in order of each key's
// first assignment, each key once, with its last value.
func Parse(name string, r io.Reader) ([]Pair, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return nil, &ParseError{File: name, Msg: msgTooLarge}
	}
	return ParseBytes(name, data)
}

// ParseBytes parses a dotenv file held in memory; see Parse.
func ParseBytes(name string, data []byte) ([]Pair, error) {
	pairs, _, err := ParseBytesDuplicates(name, data)
	return pairs, err
}

// Duplicate is a key assigned more than once in a file: its last value is
// used (as a shell would). It names the key and lines, never a value.
type Duplicate struct {
	File  string
	Key   string
	Line  int // the assignment again
	First int // the key's first assignment
}

// String is the warning: "FILE:LINE: KEY is assigned again (first at
// line N); the last value is used".
func (d Duplicate) String() string {
	return fmt.Sprintf("%s:%d: %s is assigned again (first at line %d); the last value is used", d.File, d.Line, d.Key, d.First)
}

// ParseBytesDuplicates is ParseBytes that also returns every assignment of
// a key already assigned, in the file's order, for the caller to warn of.
func ParseBytesDuplicates(name string, data []byte) ([]Pair, []Duplicate, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	p := &parser{name: name, src: data, line: 1}
	var pairs []Pair
	var dups []Duplicate
	index := map[string]int{}
	first := map[string]int{}
	for {
		pair, ok, err := p.next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return pairs, dups, nil
		}
		// The value check every value path shares: UTF-8, no NUL, the
		// size limit; the error names the key, never the value.
		if err := resources.ValidateValue(pair.Key, pair.Value); err != nil {
			return nil, nil, &ParseError{File: name, Line: pair.Line, Key: pair.Key, Msg: err.Error()}
		}
		if i, dup := index[pair.Key]; dup {
			dups = append(dups, Duplicate{File: name, Key: pair.Key, Line: pair.Line, First: first[pair.Key]})
			pairs[i].Value, pairs[i].Line = pair.Value, pair.Line
			continue
		}
		index[pair.Key] = len(pairs)
		first[pair.Key] = pair.Line
		pairs = append(pairs, pair)
	}
}

type parser struct {
	name string
	src  []byte
	pos  int
	line int
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func (p *parser) eof() bool { return p.pos >= len(p.src) }

func (p *parser) skipBlanks() {
	for !p.eof() && isBlank(p.src[p.pos]) {
		p.pos++
	}
}

// skipLine moves past the end of the current line.
func (p *parser) skipLine() {
	for !p.eof() {
		c := p.src[p.pos]
		p.pos++
		if c == '\n' {
			p.line++
			return
		}
	}
}

func (p *parser) fail(line int, key, format string) error {
	msg := format
	if strings.Contains(format, "%s") {
		msg = fmt.Sprintf(format, key)
	}
	return &ParseError{File: p.name, Line: line, Key: key, Msg: msg}
}

// next returns the next assignment; ok is false at the end of the input.
func (p *parser) next() (pair Pair, ok bool, err error) {
	for {
		p.skipBlanks()
		if p.eof() {
			return Pair{}, false, nil
		}
		if c := p.src[p.pos]; c == '\n' || c == '#' {
			p.skipLine()
			continue
		}
		break
	}
	line := p.line
	if rest := p.src[p.pos:]; bytes.HasPrefix(rest, []byte("export")) && len(rest) > 6 && isBlank(rest[6]) {
		p.pos += 6
		p.skipBlanks()
	}
	start := p.pos
	for !p.eof() {
		c := p.src[p.pos]
		if c == '=' || c == '\n' || isBlank(c) {
			break
		}
		p.pos++
	}
	key := string(p.src[start:p.pos])
	p.skipBlanks()
	if p.eof() || p.src[p.pos] != '=' {
		// Without "=" the line may be a stray piece of a value: do not
		// name it.
		return Pair{}, false, p.fail(line, "", msgNoEquals)
	}
	if key == "" {
		return Pair{}, false, p.fail(line, "", msgNoKey)
	}
	if resources.ValidateKey(key) != nil {
		// resources' message quotes the key; this one must not, since
		// what stands before "=" may be part of a value (base64 padding).
		return Pair{}, false, p.fail(line, "", msgBadKey)
	}
	p.pos++ // "="
	p.skipBlanks()
	var value string
	switch {
	case p.eof():
	case p.src[p.pos] == '"':
		value, err = p.doubleQuoted(key, line)
	case p.src[p.pos] == '\'':
		value, err = p.singleQuoted(key, line)
	default:
		value = p.unquoted()
		return Pair{Key: key, Value: value, Line: line}, true, nil
	}
	if err != nil {
		return Pair{}, false, err
	}
	p.skipBlanks()
	if !p.eof() && p.src[p.pos] != '\n' && p.src[p.pos] != '#' {
		return Pair{}, false, p.fail(p.line, key, msgAfterQuote)
	}
	p.skipLine()
	return Pair{Key: key, Value: value, Line: line}, true, nil
}

// unquoted reads a value to the end of the line, stopping at a # that
// follows a blank (including the blanks between "=" and the value), and
// drops trailing blanks.
func (p *parser) unquoted() string {
	start := p.pos
	end := len(p.src)
	if i := bytes.IndexByte(p.src[start:], '\n'); i >= 0 {
		end = start + i
	}
	v := p.src[start:end]
	for i := range v {
		if v[i] == '#' && isBlank(p.src[start+i-1]) {
			v = v[:i]
			break
		}
	}
	p.pos = end
	p.skipLine()
	return string(bytes.TrimRight(v, " \t"))
}

// singleQuoted reads '...' literally.
func (p *parser) singleQuoted(key string, line int) (string, error) {
	p.pos++ // opening quote
	i := bytes.IndexByte(p.src[p.pos:], '\'')
	if i < 0 {
		return "", p.fail(line, key, msgUnterminatedSQ)
	}
	v := p.src[p.pos : p.pos+i]
	p.line += bytes.Count(v, []byte("\n"))
	p.pos += i + 1
	return string(v), nil
}

// doubleQuoted reads "..." with its escapes.
func (p *parser) doubleQuoted(key string, line int) (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for !p.eof() {
		c := p.src[p.pos]
		p.pos++
		switch c {
		case '"':
			return b.String(), nil
		case '\n':
			p.line++
			b.WriteByte(c)
		case '\\':
			if p.eof() {
				return "", p.fail(line, key, msgUnterminatedDQ)
			}
			e := p.src[p.pos]
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '"', '\\', '$':
				b.WriteByte(e)
			default:
				b.WriteByte('\\')
				continue // e is read by the loop (it may be a newline)
			}
			p.pos++
		default:
			b.WriteByte(c)
		}
	}
	return "", p.fail(line, key, msgUnterminatedDQ)
}

// Marshal writes pairs as a dotenv file that Parse reads back to the same
// pairs: one KEY="value" line each, with \\, \", \$, \n and \r escaped.
// Keys must be valid (see resources.ValidateKey); Marshal does not check.
func Marshal(pairs []Pair) []byte {
	var b bytes.Buffer
	for _, p := range pairs {
		b.WriteString(p.Key)
		b.WriteString(`="`)
		for i := 0; i < len(p.Value); i++ {
			switch c := p.Value[i]; c {
			case '\\', '"', '$':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteString("\"\n")
	}
	return b.Bytes()
}

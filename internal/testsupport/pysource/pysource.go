// Package pysource reads Python source as far as botkit's checks need it:
// tokens (names, numbers, strings, operators; comments and line
// continuations dropped), logical lines (brackets span physical lines,
// `;` splits them) with their indentation, and the block structure those
// lines form. It does not build expressions: the callers look at token
// patterns (`class X(...)`, `def __init__(...)`, `from a import b`).
package pysource

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is a token's kind.
type Kind int

// The token kinds.
const (
	Name Kind = iota
	Number
	String
	Op
)

// Token is one token and the physical line (1-based) where it starts.
type Token struct {
	Kind Kind
	Text string
	Line int
}

// Is reports whether the token is the operator or name text.
func (t Token) Is(text string) bool { return (t.Kind == Op || t.Kind == Name) && t.Text == text }

// Stmt is a logical line and the statements of its block (the lines
// below it that are indented deeper).
type Stmt struct {
	Indent int
	Tokens []Token
	Body   []*Stmt
}

// Line is the physical line where the statement starts.
func (s *Stmt) Line() int { return s.Tokens[0].Line }

// Keyword is the statement's first token when it is a name ("class",
// "def", "from", "if"...), else "".
func (s *Stmt) Keyword() string {
	if s.Tokens[0].Kind == Name {
		return s.Tokens[0].Text
	}
	return ""
}

// Error is a tokenizing error at a line.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

var ops = []string{
	"**=", "//=", ">>=", "<<=", "...",
	"->", "**", "//", "==", "!=", "<=", ">=", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "<<", ">>",
}

type line struct {
	indent int
	tokens []Token
}

// tokenize splits src into logical lines.
func tokenize(src string) ([]line, error) {
	var (
		out     []line
		cur     []Token
		depth   int
		indent  int
		lineNo  = 1
		atStart = true // at the start of a logical line: measure indentation
	)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, line{indent: indent, tokens: cur})
		}
		cur = nil
		atStart = true
	}
	i := 0
	for i < len(src) {
		if atStart {
			col := 0
			j := i
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f') {
				if src[j] == '\t' {
					col = col/8*8 + 8
				} else if src[j] == ' ' {
					col++
				}
				j++
			}
			indent, i, atStart = col, j, false
			continue
		}
		c := src[i]
		switch {
		case c == '\n':
			lineNo++
			i++
			if depth == 0 {
				flush()
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
			i += 2
			if src[i-1] == '\r' && i < len(src) && src[i] == '\n' {
				i++
			}
			lineNo++
		case c == ';' && depth == 0:
			ind := indent
			flush()
			indent, atStart = ind, false
			i++
		case isStringStart(src, i):
			start, startLine := i, lineNo
			j, lines, err := scanString(src, i)
			if err != nil {
				return nil, &Error{Line: startLine, Msg: err.Error()}
			}
			lineNo += lines
			cur = append(cur, Token{Kind: String, Text: src[start:j], Line: startLine})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) {
				d := src[j]
				if isAlnum(d) || d == '.' || d == '_' {
					j++
				} else if (d == '+' || d == '-') && (src[j-1] == 'e' || src[j-1] == 'E') && !strings.HasPrefix(strings.ToLower(src[i:j]), "0x") {
					j++
				} else {
					break
				}
			}
			cur = append(cur, Token{Kind: Number, Text: src[i:j], Line: lineNo})
			i = j
		case isIdentStart(src, i):
			j := i
			for j < len(src) {
				r, n := utf8.DecodeRuneInString(src[j:])
				if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
					j += n
				} else {
					break
				}
			}
			cur = append(cur, Token{Kind: Name, Text: src[i:j], Line: lineNo})
			i = j
		default:
			text := string(c)
			for _, op := range ops {
				if strings.HasPrefix(src[i:], op) {
					text = op
					break
				}
			}
			switch text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return nil, &Error{Line: lineNo, Msg: "unmatched " + strconv.Quote(text)}
				}
				depth--
			}
			cur = append(cur, Token{Kind: Op, Text: text, Line: lineNo})
			i += len(text)
		}
	}
	if depth != 0 {
		return nil, &Error{Line: lineNo, Msg: "unclosed bracket at end of file"}
	}
	flush()
	return out, nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentStart(src string, i int) bool {
	r, _ := utf8.DecodeRuneInString(src[i:])
	return r == '_' || unicode.IsLetter(r)
}

// isStringStart: a quote, or a string prefix (r, b, u, f, t and pairs)
// directly followed by one.
func isStringStart(src string, i int) bool {
	for j := i; j < len(src) && j < i+3; j++ {
		switch src[j] {
		case '\'', '"':
			return true
		case 'r', 'R', 'b', 'B', 'u', 'U', 'f', 'F', 't', 'T':
			continue
		}
		return false
	}
	return false
}

// scanString returns the end of the string literal at i and the number of
// newlines it spans.
func scanString(src string, i int) (int, int, error) {
	for src[i] != '\'' && src[i] != '"' {
		i++
	}
	q := src[i : i+1]
	if strings.HasPrefix(src[i:], q+q+q) {
		q = q + q + q
	}
	j := i + len(q)
	lines := 0
	for j < len(src) {
		switch {
		case src[j] == '\\':
			if j+1 < len(src) && src[j+1] == '\n' {
				lines++
			}
			j += 2
			continue
		case strings.HasPrefix(src[j:], q):
			return j + len(q), lines, nil
		case src[j] == '\n':
			if len(q) == 1 {
				return 0, 0, fmt.Errorf("unterminated string")
			}
			lines++
		}
		j++
	}
	return 0, 0, fmt.Errorf("unterminated string")
}

// Parse reads src into its top-level statements, each with its block.
func Parse(src []byte) ([]*Stmt, error) {
	lines, err := tokenize(string(src))
	if err != nil {
		return nil, err
	}
	root := &Stmt{Indent: -1}
	stack := []*Stmt{root}
	for _, l := range lines {
		for len(stack) > 1 && stack[len(stack)-1].Indent >= l.indent {
			stack = stack[:len(stack)-1]
		}
		parent := stack[len(stack)-1]
		s := &Stmt{Indent: l.indent, Tokens: l.tokens}
		parent.Body = append(parent.Body, s)
		stack = append(stack, s)
	}
	return root.Body, nil
}

// StringValue is the value of a string literal token (escapes of quotes,
// backslash and newline decoded; raw strings as written). ok is false for
// a token that is not a plain or raw string (bytes, f-strings).
func StringValue(t Token) (string, bool) {
	if t.Kind != String {
		return "", false
	}
	s := t.Text
	raw := false
	for s[0] != '\'' && s[0] != '"' {
		switch s[0] {
		case 'r', 'R':
			raw = true
		case 'u', 'U':
		default:
			return "", false
		}
		s = s[1:]
	}
	q := 1
	if len(s) >= 6 && (strings.HasPrefix(s, `"""`) || strings.HasPrefix(s, `'''`)) {
		q = 3
	}
	s = s[q : len(s)-q]
	if raw {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String(), true
}

// Strings is the concatenation of adjacent string literal tokens at the
// start of toks ("a" "b" -> ab) and how many tokens it used; n is 0 when
// toks does not start with a plain string.
func Strings(toks []Token) (value string, n int) {
	var b strings.Builder
	for n < len(toks) {
		v, ok := StringValue(toks[n])
		if !ok {
			break
		}
		b.WriteString(v)
		n++
	}
	return b.String(), n
}

// Close returns the index of the bracket closing the one at toks[open].
func Close(toks []Token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		if toks[i].Kind != Op {
			continue
		}
		switch toks[i].Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(toks)
}

// Split splits toks at the operator sep where it is not inside brackets.
// Empty trailing parts (a trailing comma) are dropped.
func Split(toks []Token, sep string) [][]Token {
	var parts [][]Token
	depth, start := 0, 0
	for i, t := range toks {
		if t.Kind != Op {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case sep:
			if depth == 0 {
				parts = append(parts, toks[start:i])
				start = i + 1
			}
		}
	}
	if start < len(toks) {
		parts = append(parts, toks[start:])
	}
	return parts
}

// Index is the position of the first operator op outside brackets in
// toks, or -1.
func Index(toks []Token, op string) int {
	depth := 0
	for i, t := range toks {
		if t.Kind != Op {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		default:
			if depth == 0 && t.Text == op {
				return i
			}
		}
	}
	return -1
}

// Text writes tokens back as source, spaced as black would for the simple
// expressions it is used on (dotted names, subscripts, calls).
func Text(toks []Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			prev := toks[i-1]
			switch {
			case prev.Is(","):
				b.WriteByte(' ')
			case prev.Kind != Op && t.Kind != Op:
				b.WriteByte(' ')
			case t.Is("|") || prev.Is("|") || t.Is("=") || prev.Is("="):
				b.WriteByte(' ')
			}
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// Dotted reads a dotted name (a.b.c) at the start of toks and how many
// tokens it used (0 when toks does not start with a name).
func Dotted(toks []Token) (string, int) {
	if len(toks) == 0 || toks[0].Kind != Name {
		return "", 0
	}
	name, n := toks[0].Text, 1
	for n+1 < len(toks) && toks[n].Is(".") && toks[n+1].Kind == Name {
		name += "." + toks[n+1].Text
		n += 2
	}
	return name, n
}

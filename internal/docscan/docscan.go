// Package docscan is the one nesting limit of every document botkit reads
// from a user — API request bodies, manifests, config files, deploy files —
// and the byte scanners that enforce it before any parser builds a tree.
//
// A parser given a deeply nested document spends memory (and stack) per
// level before it can tell the document is wrong: 1 MiB of "[" cost the
// platform ~200 MiB. The scanners here read the document once, allocate
// nothing unless they report an error, and stop at the first level deeper
// than MaxDepth. YAML documents are checked on their parsed node tree
// (internal/yamlnode.CheckDepth), whose parser bounds its own depth.
package docscan

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// MaxDepth is how deeply objects and arrays (mappings and sequences, tables
// and arrays) may nest in any document botkit reads from a user. The
// deepest document of api/openapi.yaml is 6 levels (an apply request:
// {objects: [{spec: {data: {KEY: {sealed: ...}}}}]}), and so is the deepest
// manifest (a List of SecretSets with sealed values); config and deploy
// files are shallower. 16 leaves room for every real document.
const MaxDepth = 16

// Problem is what a scanner found.
type Problem int

const (
	// TooDeep: an object or array opens deeper than MaxDepth.
	TooDeep Problem = iota + 1
	// LoneSurrogate: a JSON string escape \uD800-\uDFFF that is not half of
	// a surrogate pair (encoding/json would silently decode it as U+FFFD).
	LoneSurrogate
	// TooManyMembers: an object or array with more members than the limit
	// given to JSONMembers.
	TooManyMembers
)

// Error is a problem at a place in a document. It never quotes a value.
type Error struct {
	Problem Problem
	Offset  int    // byte offset of the problem
	Line    int    // 1-based line of Offset
	Path    string // JSON only: the keys and indexes down to it (objects[0].spec), "" at the top
	Limit   int    // TooManyMembers: the limit
}

func (e *Error) Error() string {
	var msg string
	switch e.Problem {
	case TooDeep:
		msg = fmt.Sprintf("nested deeper than %d levels", MaxDepth)
	case LoneSurrogate:
		msg = `a \u escape is half of a UTF-16 surrogate pair (\ud800-\udfff) without its other half`
	case TooManyMembers:
		msg = fmt.Sprintf("more than %d members in one object or array", e.Limit)
	}
	if e.Path != "" {
		return strconv.Quote(truncate(e.Path)) + ": " + msg
	}
	return msg
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

type frame struct {
	object  bool
	wantKey bool
	key     []byte // object: the current key, raw (between its quotes)
	index   int    // the current member's index
}

// JSON scans a JSON document once: it reports the first object or array
// opening deeper than MaxDepth and the first lone surrogate escape in a
// string, with the path of keys down to it. Malformed JSON is left to the
// decoder to report (JSON reports nothing it cannot place). It allocates
// only to build an Error.
func JSON(data []byte) *Error { return JSONMembers(data, 0) }

// JSONMembers is JSON that also reports the first object or array with
// more than maxMembers members (0: no limit): a decoder spends memory per
// member (the platform's request bodies: ~200 bytes for each "{}" of a
// wide array).
func JSONMembers(data []byte, maxMembers int) *Error {
	var stack [MaxDepth]frame
	depth := 0
	fail := func(p Problem, off int) *Error {
		return &Error{Problem: p, Offset: off, Line: lineOf(data, off), Path: jsonPath(stack[:depth])}
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			if depth == MaxDepth {
				return fail(TooDeep, i)
			}
			stack[depth] = frame{object: c == '{', wantKey: c == '{'}
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth > 0 {
				f := &stack[depth-1]
				f.index++
				if f.object {
					f.wantKey = true
				}
				if maxMembers > 0 && f.index >= maxMembers {
					// The path of the object or array itself.
					return &Error{Problem: TooManyMembers, Offset: i, Line: lineOf(data, i), Path: jsonPath(stack[:depth-1]), Limit: maxMembers}
				}
			}
		case '"':
			start := i + 1
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] != '\\' {
					continue
				}
				i++
				if i >= len(data) || data[i] != 'u' {
					continue
				}
				r, ok := hex4(data, i+1)
				if !ok {
					continue // malformed: the decoder reports it
				}
				switch {
				case r >= 0xDC00 && r <= 0xDFFF:
					return fail(LoneSurrogate, i-1)
				case r >= 0xD800 && r <= 0xDBFF:
					// A high surrogate must be followed by \u and a low one.
					lo, ok := rune(0), false
					if i+10 < len(data) && data[i+5] == '\\' && data[i+6] == 'u' {
						lo, ok = hex4(data, i+7)
					}
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						return fail(LoneSurrogate, i-1)
					}
					i += 10
				default:
					i += 4
				}
			}
			if depth > 0 {
				if f := &stack[depth-1]; f.object && f.wantKey {
					f.key, f.wantKey = data[start:min(i, len(data))], false
				}
			}
		}
	}
	return nil
}

func hex4(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// jsonPath spells the frames as wire's errors do: keys joined by ".",
// indexes as [i]. A frame whose key is not read yet ends the path.
func jsonPath(frames []frame) string {
	var b strings.Builder
	for _, f := range frames {
		if !f.object {
			fmt.Fprintf(&b, "[%d]", f.index)
			continue
		}
		if f.wantKey || f.key == nil {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		var k string
		if json.Unmarshal(append(append([]byte{'"'}, f.key...), '"'), &k) != nil {
			k = string(f.key)
		}
		b.WriteString(k)
	}
	return b.String()
}

func lineOf(data []byte, off int) int {
	return 1 + strings.Count(string(data[:min(off, len(data))]), "\n")
}

// TOML scans a TOML document once and reports the first array or inline
// table opening deeper than MaxDepth, counting the levels of its table
// header ([a.b], [[a.b]]) too. Strings (basic, literal, multi-line) and
// comments are skipped. Malformed TOML is left to the parser. The Error's
// Path is empty.
func TOML(data []byte) *Error {
	depth := 0 // open arrays and inline tables
	base := 0  // levels of the current table header
	lineStart := true
	fail := func(off int) *Error { return &Error{Problem: TooDeep, Offset: off, Line: lineOf(data, off)} }
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case '\n':
			lineStart = true
			continue
		case ' ', '\t', '\r':
			continue
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
			continue
		}
		if lineStart && depth == 0 && c == '[' {
			// A table header: its levels are its dotted key's parts.
			end, levels := tomlHeader(data, i)
			if levels > MaxDepth {
				return fail(i)
			}
			base = levels
			i = end - 1
			lineStart = false
			continue
		}
		lineStart = false
		switch c {
		case '"', '\'':
			i = tomlString(data, i) - 1
		case '[', '{':
			depth++
			if base+depth > MaxDepth {
				return fail(i)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// tomlHeader reads a table header at data[i] ('['), and returns the offset
// after it and its levels (the parts of its key, plus one for an array of
// tables).
func tomlHeader(data []byte, i int) (end, levels int) {
	levels = 1
	j := i + 1
	if j < len(data) && data[j] == '[' {
		levels++
		j++
	}
	for j < len(data) && data[j] != '\n' {
		switch data[j] {
		case '"', '\'':
			j = tomlString(data, j)
			continue
		case '.':
			levels++
		case ']':
			for j < len(data) && data[j] == ']' {
				j++
			}
			return j, levels
		case '#':
			return j, levels
		}
		j++
	}
	return j, levels
}

// tomlString returns the offset after the string starting at data[i].
func tomlString(data []byte, i int) int {
	q := data[i]
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		// Multi-line: up to the closing triple quote.
		for j := i + 3; j+2 < len(data); j++ {
			if q == '"' && data[j] == '\\' {
				j++
				continue
			}
			if data[j] == q && data[j+1] == q && data[j+2] == q {
				for j+3 < len(data) && data[j+3] == q {
					j++ // up to two quotes may end the content
				}
				return j + 3
			}
		}
		return len(data)
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(data)
}

// YAML scans a YAML stream once and reports the first flow collection
// ([...] or {...}) opening deeper than MaxDepth flow levels: the YAML
// parser keeps state per level up to 10,000 before it gives up, without a
// line. Quoted and block scalars and comments are skipped; a bracket
// inside a plain scalar (a[b) does not open anything. Block nesting, and
// flow inside block, is checked on the parsed nodes
// (internal/yamlnode.TooDeep). The Error's Path is empty.
func YAML(data []byte) *Error {
	depth := 0
	start := true     // at a place where a value may begin
	lineStart := 0    // offset of the current line
	blockIndent := -1 // >= 0: inside a block scalar of lines indented more than this
	indentOf := func(at int) int {
		n := 0
		for at+n < len(data) && data[at+n] == ' ' {
			n++
		}
		return n
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		if i == lineStart && blockIndent >= 0 {
			// A block scalar's content: blank lines and lines indented
			// more than its key.
			ind := indentOf(i)
			if i+ind >= len(data) || data[i+ind] == '\n' || data[i+ind] == '\r' || ind > blockIndent {
				for i < len(data) && data[i] != '\n' {
					i++
				}
				lineStart = i + 1
				continue
			}
			blockIndent = -1
		}
		switch c {
		case '\n':
			lineStart = i + 1
			start = true
			continue
		case ' ', '\t', '\r':
			continue
		case '#':
			if i == 0 || isYAMLSpace(data[i-1]) {
				for i < len(data) && data[i] != '\n' {
					i++
				}
				i--
				continue
			}
		}
		if !start {
			switch {
			case c == ':' && (i+1 == len(data) || isYAMLSpace(data[i+1]) || (depth > 0 && isFlowIndicator(data[i+1]))):
				start = true
			case depth > 0 && c == ',':
				start = true
			case depth > 0 && (c == ']' || c == '}'):
				depth--
			}
			continue
		}
		switch c {
		case '[', '{':
			depth++
			if depth > MaxDepth {
				return &Error{Problem: TooDeep, Offset: i, Line: lineOf(data, i)}
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
			start = false
		case ',':
		case '-', '?', ':':
			if i+1 == len(data) || isYAMLSpace(data[i+1]) {
				continue // a sequence entry, key or value indicator
			}
			start = false
		case '"', '\'':
			i = yamlQuoted(data, i) - 1
			start = false
		case '|', '>':
			if depth == 0 {
				blockIndent = indentOf(lineStart)
			}
			start = false
		case '&', '!':
			// An anchor or tag: the value follows it.
			for i < len(data) && !isYAMLSpace(data[i]) && !(depth > 0 && isFlowIndicator(data[i])) {
				i++
			}
			i--
		default:
			start = false
		}
	}
	return nil
}

func isYAMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isFlowIndicator(c byte) bool { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}' }

// yamlQuoted returns the offset after the quoted scalar starting at
// data[i].
func yamlQuoted(data []byte, i int) int {
	q := data[i]
	for j := i + 1; j < len(data); j++ {
		switch {
		case q == '"' && data[j] == '\\':
			j++
		case data[j] == q:
			if q == '\'' && j+1 < len(data) && data[j+1] == '\'' {
				j++ // '' is a quote inside a single-quoted scalar
				continue
			}
			return j + 1
		}
	}
	return len(data)
}

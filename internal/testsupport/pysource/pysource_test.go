package pysource

import (
	"errors"
	"strings"
	"testing"
)

// texts is each top-level statement's tokens, space-joined, with its
// block's statements indented below it.
func texts(stmts []*Stmt, depth int) string {
	var b strings.Builder
	for _, s := range stmts {
		var toks []string
		for _, t := range s.Tokens {
			toks = append(toks, t.Text)
		}
		b.WriteString(strings.Repeat("  ", depth) + strings.Join(toks, " ") + "\n")
		b.WriteString(texts(s.Body, depth+1))
	}
	return b.String()
}

func TestParseLogicalLinesAndBlocks(t *testing.T) {
	src := `"""Doc: a 'quoted' word,
and a second line."""
import os  # a comment
x = [1,
     2]  # brackets span lines
y = 1 + \
    2
a = 1; b = 2
class A(B, metaclass=M):
    """Doc."""
    f: int = 0

    def __init__(self, *, n: "str" = ")", **kw):
        super().__init__(**kw)

s = r'\d' + b"\x00" + f"{x}" + '''multi
line'''
if TYPE_CHECKING:
	from z import Z
`
	stmts, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `"""Doc: a 'quoted' word,
and a second line."""
import os
x = [ 1 , 2 ]
y = 1 + 2
a = 1
b = 2
class A ( B , metaclass = M ) :
  """Doc."""
  f : int = 0
  def __init__ ( self , * , n : "str" = ")" , ** kw ) :
    super ( ) . __init__ ( ** kw )
s = r'\d' + b"\x00" + f"{x}" + '''multi
line'''
if TYPE_CHECKING :
  from z import Z
`
	if got := texts(stmts, 0); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if l := stmts[len(stmts)-1].Body[0].Line(); l != 19 {
		t.Errorf("line of the last import = %d, want 19", l)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	for src, line := range map[string]int{
		"x = 1\ny = 'open\n":    2,
		"x = (1,\n2\n":          3,
		"x = 1)\n":              1,
		"x = '''never closed\n": 1,
	} {
		_, err := Parse([]byte(src))
		var pe *Error
		if !errors.As(err, &pe) || pe.Line != line {
			t.Errorf("Parse(%q) = %v, want an error at line %d", src, err, line)
		}
	}
}

func TestStringValue(t *testing.T) {
	for text, want := range map[string]string{
		`"a\"b"`:                     `a"b`,
		`'it\'s'`:                    "it's",
		`r"\d+"`:                     `\d+`,
		`"""x\ny"""`:                 "x\ny",
		`"tab\there"`:                "tab\there",
		`u"unicode"`:                 "unicode",
		`"keep \d"`:                  `keep \d`,
		`'''a "b" c'''`:              `a "b" c`,
		`"line \` + "\n" + `joined"`: "line joined",
	} {
		got, ok := StringValue(Token{Kind: String, Text: text})
		if !ok || got != want {
			t.Errorf("StringValue(%s) = %q, %v; want %q", text, got, ok, want)
		}
	}
	for _, text := range []string{`f"{x}"`, `b"bytes"`} {
		if _, ok := StringValue(Token{Kind: String, Text: text}); ok {
			t.Errorf("StringValue(%s) is not a plain string", text)
		}
	}
	stmts, err := Parse([]byte(`x = ("a" "b"  'c')` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, n := Strings(stmts[0].Tokens[3:]); v != "abc" || n != 3 {
		t.Errorf("Strings = %q, %d", v, n)
	}
}

func TestHelpers(t *testing.T) {
	stmts, err := Parse([]byte("f(a, g(b, c), d=[1, 2],)\n"))
	if err != nil {
		t.Fatal(err)
	}
	toks := stmts[0].Tokens
	if c := Close(toks, 1); c != len(toks)-1 {
		t.Errorf("Close = %d, want %d", c, len(toks)-1)
	}
	parts := Split(toks[2:len(toks)-1], ",")
	var got []string
	for _, p := range parts {
		got = append(got, Text(p))
	}
	if strings.Join(got, "|") != "a|g(b, c)|d = [1, 2]" {
		t.Errorf("Split = %q", got)
	}
	if i := Index(parts[2], "="); i != 1 {
		t.Errorf("Index = %d", i)
	}
	if name, n := Dotted(mustTokens(t, "a.b.c(x)")); name != "a.b.c" || n != 5 {
		t.Errorf("Dotted = %q, %d", name, n)
	}
}

func mustTokens(t *testing.T, src string) []Token {
	t.Helper()
	stmts, err := Parse([]byte(src + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return stmts[0].Tokens
}

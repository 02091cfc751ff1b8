package wire

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// Bodies nested deeper than docscan.MaxDepth and strings with a lone
// surrogate escape are refused (400 invalid), naming where; the deepest
// body of the contract passes.
func TestDecodeRefusesDeepNestingAndLoneSurrogates(t *testing.T) {
	deepest := `{"objects":[{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot","labels":{"a":"b"}},"spec":{"data":{"A":{"sealed":"v1.0123456789abcdef.x"}}}}]}`
	var req RawApplyRequest
	if err := Decode([]byte(deepest), &req, resources.MaxApplyRequestBytes); err != nil {
		t.Fatalf("the deepest body of the contract: %v", err)
	}
	for body, want := range map[string]string{
		strings.Repeat("[", 1<<20):              "nested deeper than 16 levels",
		`{"set":` + strings.Repeat(`{"A":`, 20): `"set.A.A.A.A.A.A.A.A.A.A.A.A.A.A.A": nested deeper than 16 levels`,
		`{"set":{"A":"\udc00x"}}`:               `"set.A": a \u escape is half of a UTF-16 surrogate pair`,
		`{"set":{"A":"\ud83dx"}}`:               `"set.A": a \u escape is half`,
		`{"remove":["\udfff"]}`:                 `"remove[0]": a \u escape`,
		`{"credentials":"u:\ud800"}`:            `"credentials": a \u escape`,
	} {
		for _, v := range []any{&resources.Patch{}, &RawApplyRequest{}} {
			err := Decode([]byte(body), v, resources.MaxApplyRequestBytes)
			var re *resources.Error
			if !errors.As(err, &re) || re.Code != resources.CodeInvalid || !strings.Contains(re.Message, want) {
				t.Errorf("%.40s into %T: %v, want invalid: %s", body, v, err, want)
			}
		}
	}
	// A surrogate pair is a character, decoded as such.
	var p resources.Patch
	if err := Decode([]byte(`{"set":{"A":"\ud83d\ude00"}}`), &p, resources.MaxRequestBytes); err != nil || p.Set["A"] != "\U0001F600" {
		t.Errorf("surrogate pair: %v %q", err, p.Set["A"])
	}
}

// BenchmarkDecodeNested is the cost of refusing 1 MiB of "[" (it was
// ~200 MiB of allocations and a second before the nesting was checked first).
func BenchmarkDecodeNested(b *testing.B) {
	body := bytes.Repeat([]byte("["), resources.MaxRequestBytes)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var p resources.Patch
		if err := Decode(body, &p, resources.MaxRequestBytes); err == nil {
			b.Fatal("decoded")
		}
	}
}

// An object or array of a body holds at most maxMembers members (the most
// objects an apply holds): one more is too_large, naming where.
func TestDecodeRefusesTooManyMembers(t *testing.T) {
	objects := func(n int) []byte {
		return []byte(`{"objects":[` + strings.TrimSuffix(strings.Repeat(`{"kind":"SecretSet"},`, n), ",") + `]}`)
	}
	var req RawApplyRequest
	if err := Decode(objects(resources.MaxApplyObjects), &req, resources.MaxApplyRequestBytes); err != nil || len(req.Objects) != resources.MaxApplyObjects {
		t.Fatalf("%d objects: %v", resources.MaxApplyObjects, err)
	}
	err := Decode(objects(resources.MaxApplyObjects+1), &req, resources.MaxApplyRequestBytes)
	var re *resources.Error
	if !errors.As(err, &re) || re.Code != resources.CodeTooLarge || !strings.Contains(re.Message, `"objects": more than 10000 members`) {
		t.Errorf("%d objects: %v, want too_large naming objects", resources.MaxApplyObjects+1, err)
	}
}

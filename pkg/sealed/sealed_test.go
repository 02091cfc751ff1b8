package sealed

import (
	"errors"
	"strings"
	"testing"
)

func newKey(t testing.TB) (*Identity, *Recipient) {
	t.Helper()
	is, rs, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	id, err := ParseIdentity(is)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRecipient(rs)
	if err != nil {
		t.Fatal(err)
	}
	if id.ID != r.ID || id.Recipient() != rs {
		t.Fatalf("identity %s and recipient %s do not match", id.ID, r.ID)
	}
	return id, r
}

const canary = "canary-Zq8wX1-value"

func TestSealOpen(t *testing.T) {
	id, r := newKey(t)
	b := Binding{Scope: ScopeStrict, Organization: "acme", Set: "bot", Key: "OPENAI_API_KEY"}
	s, err := Seal(r, b, canary)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s, canary) || strings.ContainsAny(s, " \n\t:\"'") || !strings.HasPrefix(s, "v1."+r.ID+".") {
		t.Fatalf("sealed value %q: want one line v1.KEYID.base64url", s)
	}
	v, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	gotB, got, err := Open(v, id)
	if err != nil || got != canary || gotB != b {
		t.Fatalf("Open = %+v, %q, %v", gotB, got, err)
	}
	if err := gotB.Allows("acme", "bot", "OPENAI_API_KEY"); err != nil {
		t.Errorf("Allows its own place: %v", err)
	}
	for _, place := range [][3]string{{"other", "bot", "OPENAI_API_KEY"}, {"acme", "bot2", "OPENAI_API_KEY"}, {"acme", "bot", "K"}} {
		err := gotB.Allows(place[0], place[1], place[2])
		var se *ScopeError
		if !errors.As(err, &se) || strings.Contains(err.Error(), canary) {
			t.Errorf("Allows(%v) = %v, want a ScopeError", place, err)
		}
	}
	org := Binding{Scope: ScopeOrganization, Organization: "acme"}
	if err := org.Allows("acme", "any", "KEY"); err != nil {
		t.Errorf("organization scope: %v", err)
	}
	if err := org.Allows("other", "any", "KEY"); err == nil {
		t.Error("organization scope allowed another organization")
	}
	// Another key with the same id prefix cannot open it; a tampered
	// payload does not decrypt.
	other, _ := newKey(t)
	if _, _, err := Open(v, other); err == nil || !strings.Contains(err.Error(), r.ID) {
		t.Errorf("Open with another key: %v", err)
	}
	tampered := s[:len(s)-6] + flip(s[len(s)-6:])
	tv, err := Parse(tampered)
	if err == nil {
		if _, _, err := Open(tv, id); !errors.Is(err, ErrDecrypt) {
			t.Errorf("tampered: %v, want ErrDecrypt", err)
		}
	}
}

func flip(s string) string {
	b := []byte(s)
	if b[0] == 'A' {
		b[0] = 'B'
	} else {
		b[0] = 'A'
	}
	return string(b)
}

func TestReseal(t *testing.T) {
	id1, r1 := newKey(t)
	id2, r2 := newKey(t)
	b := Binding{Scope: ScopeStrict, Organization: "acme", Set: "bot", Key: "K"}
	s, err := Seal(r1, b, canary)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	s2, gotB, err := Reseal(v, id1, r2)
	if err != nil || gotB != b || !strings.HasPrefix(s2, "v1."+r2.ID+".") {
		t.Fatalf("Reseal = %q, %+v, %v", s2, gotB, err)
	}
	v2, err := Parse(s2)
	if err != nil {
		t.Fatal(err)
	}
	if _, got, err := Open(v2, id2); err != nil || got != canary {
		t.Fatalf("the resealed value: %v", err)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"", "v1.", "v1.0123456789abcdef.", "v2.0123456789abcdef.AAAA", "v1.0123456789ABCDEF.AAAA",
		"v1.0123.AAAA", "v1.0123456789abcdef.AA=A", canary, strings.Repeat("x", MaxLen+1)} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%.40q) accepted", s)
		} else if strings.Contains(err.Error(), canary) {
			t.Errorf("Parse error repeats the input: %v", err)
		}
	}
}

func TestBindingValidate(t *testing.T) {
	for _, b := range []Binding{{}, {Scope: ScopeStrict, Organization: "a"}, {Scope: ScopeOrganization, Organization: "a", Key: "K"}, {Scope: "x", Organization: "a"}} {
		if err := b.Validate(); err == nil {
			t.Errorf("%+v accepted", b)
		}
	}
}

func TestCert(t *testing.T) {
	_, r := newKey(t)
	c := Cert{Organization: "acme", KeyID: r.ID, Recipient: r.String()}
	got, gr, err := ParseCert(c.Marshal())
	if err != nil || got != c || gr.ID != r.ID {
		t.Fatalf("ParseCert(Marshal) = %+v, %v", got, err)
	}
	for name, tc := range map[string]struct {
		text string
		line int
	}{
		"unknown key": {"organization: a\nkeyId: " + r.ID + "\nregion: x\n", 3},
		"edited id":   {"organization: a\n\nkeyId: 0000000000000000\nrecipient: " + r.String() + "\n", 3},
		"missing":     {"organization: a\n", 0},
		"duplicate":   {"organization: a\norganization: b\n", 2},
		"not a line":  {"# c\nhello\n", 2},
		"bad key":     {"organization: a\nkeyId: x\nrecipient: age1nope\n", 3},
	} {
		_, _, err := ParseCert([]byte(tc.text))
		var ce *CertError
		if !errors.As(err, &ce) || ce.Line != tc.line {
			t.Errorf("%s: %v, want a CertError at line %d", name, err, tc.line)
		}
	}
}

// BenchmarkOpen is the platform's cost per sealed value of an apply.
func BenchmarkOpen(b *testing.B) {
	id, r := newKey(b)
	s, err := Seal(r, Binding{Scope: ScopeStrict, Organization: "acme", Set: "bench-00001", Key: "K1"}, "value-one")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		v, err := Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := Open(v, id); err != nil {
			b.Fatal(err)
		}
	}
}

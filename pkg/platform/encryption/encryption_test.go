package encryption

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealerBindsAssociatedData(t *testing.T) {
	s, err := NewSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	ct, err := s.Seal("acme", "us-west", "bot", "KEY", []byte("value"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(ct, []byte("value")) {
		t.Fatal("ciphertext holds the plaintext")
	}
	pt, err := s.Open("acme", "us-west", "bot", "KEY", ct)
	if err != nil || string(pt) != "value" {
		t.Fatalf("open: %q %v", pt, err)
	}
	for _, ad := range [][4]string{
		{"other", "us-west", "bot", "KEY"}, {"acme", "us-east", "bot", "KEY"},
		{"acme", "us-west", "bot2", "KEY"}, {"acme", "us-west", "bot", "KEY2"},
		{"acm", "eus-west", "bot", "KEY"}, // length-prefixed: no ambiguity
	} {
		if _, err := s.Open(ad[0], ad[1], ad[2], ad[3], ct); err == nil {
			t.Errorf("ciphertext opened under %v", ad)
		}
	}
	other, err := NewSealer(bytes.Repeat([]byte{8}, 32))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Open("acme", "us-west", "bot", "KEY", ct); err == nil {
		t.Error("ciphertext opened with another key")
	}
}

// A digest is keyed (another master key gives another one, and it is not
// the value's plain SHA-256) and bound like a ciphertext.
func TestDigest(t *testing.T) {
	s, err := NewSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	d := s.Digest("acme", "us-west", "bot", "KEY", []byte("value"))
	if len(d) != DigestSize {
		t.Fatalf("digest of %d bytes", len(d))
	}
	if !bytes.Equal(d, s.Digest("acme", "us-west", "bot", "KEY", []byte("value"))) {
		t.Error("the same value has two digests")
	}
	if plain := sha256.Sum256([]byte("value")); bytes.Equal(d, plain[:DigestSize]) {
		t.Error("the digest is the value's plain SHA-256")
	}
	if bytes.Equal(d, s.Digest("acme", "us-west", "bot", "KEY", []byte("valuf"))) {
		t.Error("two values share a digest")
	}
	for _, ad := range [][4]string{
		{"other", "us-west", "bot", "KEY"}, {"acme", "us-east", "bot", "KEY"},
		{"acme", "us-west", "bot2", "KEY"}, {"acme", "us-west", "bot", "KEY2"},
		{"acm", "eus-west", "bot", "KEY"},
	} {
		if bytes.Equal(d, s.Digest(ad[0], ad[1], ad[2], ad[3], []byte("value"))) {
			t.Errorf("the digest under %v is the same", ad)
		}
	}
	other, err := NewSealer(bytes.Repeat([]byte{8}, 32))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(d, other.Digest("acme", "us-west", "bot", "KEY", []byte("value"))) {
		t.Error("another master key gives the same digest")
	}
}

func TestMasterKeyFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "master.key")
	k1, err := LoadMasterKey(p, true)
	if err != nil || len(k1) != 32 {
		t.Fatalf("generate: %v", err)
	}
	info, err := os.Stat(p)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", info.Mode(), err)
	}
	k2, err := LoadMasterKey(p, true)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Fatal("the generated key is not reused")
	}
	if _, err := LoadMasterKey(filepath.Join(dir, "missing"), false); err == nil {
		t.Error("a missing --master-key-file must be an error")
	}
	bad := filepath.Join(dir, "bad.key")
	if err := os.WriteFile(bad, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadMasterKey(bad, false); err == nil || !strings.Contains(err.Error(), "64 hex") {
		t.Errorf("bad key: %v", err)
	}
	raw := filepath.Join(dir, "raw.key")
	if err := os.WriteFile(raw, bytes.Repeat([]byte{1}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := LoadMasterKey(raw, false); err != nil || len(k) != 32 {
		t.Errorf("raw key: %v", err)
	}
}

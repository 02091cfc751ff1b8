// Package sealed is the format of sealed values: secret values encrypted to
// an organization's sealing key (age X25519), so that they can live in git
// and only the platform, which holds the private key, can read them.
//
// A sealed value is one line: "v1.KEYID.PAYLOAD", where KEYID names the
// organization's key it was sealed to (KeyID of the recipient) and PAYLOAD
// is the age ciphertext in unpadded base64url. The plaintext is a small JSON
// document binding the value to where it may be used (Binding) together with
// the value, so a sealed value copied to another organization, set or key is
// refused. docs/manifests.md ("Sealed values: secrets in git") is the user's guide.
package sealed

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"filippo.io/age"
	"golang.org/x/crypto/chacha20poly1305"
)

// Scopes of a sealed value.
const (
	// ScopeStrict binds the value to one organization, set and key.
	ScopeStrict = "strict"
	// ScopeOrganization binds the value to an organization only: any set
	// and key of it may use the value.
	ScopeOrganization = "organization"
)

// Scopes lists the scopes, the default first.
var Scopes = []string{ScopeStrict, ScopeOrganization}

const prefix = "v1."

// MaxLen bounds a sealed value's length: a value of the platform's largest
// size (64 KiB) sealed, with room for the binding.
const MaxLen = 96 << 10

// Binding says where a sealed value may be used.
type Binding struct {
	Scope        string `json:"scope"`
	Organization string `json:"organization"`
	Set          string `json:"set,omitempty"`
	Key          string `json:"key,omitempty"`
}

// Allows reports whether the value may be used as key of set in org; when
// not, the error says what the value is bound to.
func (b Binding) Allows(org, set, key string) error {
	if b.Organization != org {
		return &ScopeError{Binding: b, Org: org, Set: set, Key: key}
	}
	if b.Scope == ScopeStrict && (b.Set != set || b.Key != key) {
		return &ScopeError{Binding: b, Org: org, Set: set, Key: key}
	}
	return nil
}

// Validate checks the binding's scope and the names it needs.
func (b Binding) Validate() error {
	switch {
	case b.Organization == "":
		return errors.New("a sealed value needs an organization")
	case b.Scope == ScopeStrict && (b.Set == "" || b.Key == ""):
		return errors.New("a strict sealed value needs a set name and a key")
	case b.Scope == ScopeOrganization && (b.Set != "" || b.Key != ""):
		return errors.New("a sealed value of scope organization names no set or key")
	case b.Scope != ScopeStrict && b.Scope != ScopeOrganization:
		return fmt.Errorf("scope %q: want %s", b.Scope, strings.Join(Scopes, " or "))
	}
	return nil
}

// String describes the binding: "organization acme, set bot, key K".
func (b Binding) String() string {
	if b.Scope == ScopeOrganization {
		return "organization " + b.Organization + " (any set and key)"
	}
	return fmt.Sprintf("organization %s, set %s, key %s", b.Organization, b.Set, b.Key)
}

// ScopeError is a sealed value used where its binding does not allow.
type ScopeError struct {
	Binding       Binding
	Org, Set, Key string
}

func (e *ScopeError) Error() string {
	return fmt.Sprintf("bound to %s, not to organization %s, set %s, key %s; seal the value for it with botkit seal", e.Binding, e.Org, e.Set, e.Key)
}

// ErrMalformed is a string that is not a sealed value.
var ErrMalformed = errors.New(`not a sealed value (want "v1.KEYID.CIPHERTEXT" as botkit seal prints it)`)

// KeyID names a sealing key by its public part: 16 hex digits of the
// SHA-256 of the recipient string, the same on every platform holding it.
func KeyID(recipient string) string {
	h := sha256.Sum256([]byte(recipient))
	return hex.EncodeToString(h[:8])
}

// GenerateKey makes a new key pair: the private part (an age identity,
// "AGE-SECRET-KEY-1…") and the public one (the recipient, "age1…").
func GenerateKey() (identity, recipient string, err error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return "", "", err
	}
	return id.String(), id.Recipient().String(), nil
}

// Identity is a parsed private key.
type Identity struct {
	ID string // KeyID of its recipient
	id *age.X25519Identity
}

// ParseIdentity parses a private key; an error never repeats it.
func ParseIdentity(s string) (*Identity, error) {
	id, err := age.ParseX25519Identity(s)
	if err != nil {
		return nil, errors.New("not an age X25519 private key")
	}
	return &Identity{ID: KeyID(id.Recipient().String()), id: id}, nil
}

// Secret returns the private key's text form ("AGE-SECRET-KEY-1…"), for
// backups only. (Not String: %v never prints it.)
func (i *Identity) Secret() string { return i.id.String() }

// Recipient returns the public part of the identity.
func (i *Identity) Recipient() string { return i.id.Recipient().String() }

// Recipient is a parsed public key.
type Recipient struct {
	ID string // KeyID
	r  *age.X25519Recipient
}

// ParseRecipient parses an age X25519 recipient ("age1…").
func ParseRecipient(s string) (*Recipient, error) {
	r, err := age.ParseX25519Recipient(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("not an age X25519 recipient (age1…): %w", err)
	}
	return &Recipient{ID: KeyID(r.String()), r: r}, nil
}

// String returns the recipient ("age1…").
func (r *Recipient) String() string { return r.r.String() }

// plaintext is what is encrypted.
type plaintext struct {
	Binding
	Value string `json:"value"`
}

// Seal encrypts value for r, bound by b.
func Seal(r *Recipient, b Binding, value string) (string, error) {
	if err := b.Validate(); err != nil {
		return "", err
	}
	pt, err := json.Marshal(plaintext{Binding: b, Value: value})
	if err != nil {
		return "", err
	}
	return seal(r, pt)
}

func seal(r *Recipient, pt []byte) (string, error) {
	var buf bytes.Buffer
	w, err := age.Encrypt(&buf, r.r)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(pt); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return prefix + r.ID + "." + base64.RawURLEncoding.EncodeToString(buf.Bytes()), nil
}

// Value is a parsed sealed value, not yet decrypted.
type Value struct {
	KeyID      string // the key it says it was sealed to
	ciphertext []byte
}

// Parse checks the form of a sealed value. Its errors never repeat the
// input.
func Parse(s string) (Value, error) {
	if len(s) > MaxLen {
		return Value{}, fmt.Errorf("a sealed value is at most %d bytes; this one has %d", MaxLen, len(s))
	}
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return Value{}, ErrMalformed
	}
	id, payload, ok := strings.Cut(rest, ".")
	if !ok || len(id) != 16 || !isLowerHex(id) || payload == "" {
		return Value{}, ErrMalformed
	}
	ct, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return Value{}, ErrMalformed
	}
	return Value{KeyID: id, ciphertext: ct}, nil
}

func isLowerHex(s string) bool {
	for i := range len(s) {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ErrDecrypt is a sealed value that does not decrypt with the key it names:
// tampered, or sealed to another key with the same id (never by botkit).
var ErrDecrypt = errors.New("does not decrypt with the key it names (tampered or damaged)")

// Open decrypts v with id (whose ID must be v.KeyID) and returns the binding
// and the value. Errors never hold the value.
func Open(v Value, id *Identity) (Binding, string, error) {
	pt, err := open(v, id)
	if err != nil {
		return Binding{}, "", err
	}
	p, err := decodePlaintext(pt)
	return p.Binding, p.Value, err
}

// decodePlaintext reads a decrypted plaintext strictly: a binding that is
// valid and the value, nothing else.
func decodePlaintext(pt []byte) (plaintext, error) {
	var p plaintext
	dec := json.NewDecoder(bytes.NewReader(pt))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil || dec.More() || p.Binding.Validate() != nil {
		return plaintext{}, ErrDecrypt
	}
	return p, nil
}

func open(v Value, id *Identity) ([]byte, error) {
	if v.KeyID != id.ID {
		return nil, fmt.Errorf("sealed to key %s, not %s", v.KeyID, id.ID)
	}
	// age's header gives the file key; the payload is opened here, in one
	// buffer of its own size (age.Decrypt's streaming reader allocates
	// two 64 KiB chunk buffers per value: most of an apply's cost).
	hdr, err := age.ExtractHeader(bytes.NewReader(v.ciphertext))
	if err != nil || len(hdr) > len(v.ciphertext) || !bytes.Equal(hdr, v.ciphertext[:len(hdr)]) {
		return nil, ErrDecrypt
	}
	fileKey, err := age.DecryptHeader(hdr, id.id)
	if err != nil {
		return nil, ErrDecrypt
	}
	pt, err := openPayload(fileKey, v.ciphertext[len(hdr):])
	if err != nil || len(pt) > MaxLen {
		return nil, ErrDecrypt
	}
	return pt, nil
}

// openPayload decrypts an age payload (age-encryption.org/v1): a 16-byte
// nonce, then chunks of 64 KiB of plaintext sealed with ChaCha20-Poly1305
// under HKDF-SHA-256(file key, nonce, "payload"), each with an 11-byte
// big-endian counter and a last-chunk flag as its nonce.
func openPayload(fileKey, payload []byte) ([]byte, error) {
	const nonceSize, chunk = 16, 64<<10 + chacha20poly1305.Overhead
	if len(payload) < nonceSize+chacha20poly1305.Overhead {
		return nil, ErrDecrypt
	}
	key, err := hkdf.Key(sha256.New, fileKey, payload[:nonceSize], "payload", chacha20poly1305.KeySize)
	if err != nil {
		return nil, ErrDecrypt
	}
	aead, err := chacha20poly1305.New(key)
	if err != nil {
		return nil, ErrDecrypt
	}
	ct := payload[nonceSize:]
	out := make([]byte, 0, len(ct))
	var nonce [chacha20poly1305.NonceSize]byte
	for i := uint64(0); ; i++ {
		last := len(ct) <= chunk
		c := ct
		if !last {
			c = ct[:chunk]
		}
		binary.BigEndian.PutUint64(nonce[3:11], i)
		nonce[11] = 0
		if last {
			nonce[11] = 1
		}
		if out, err = aead.Open(out, nonce[:], c, nil); err != nil {
			return nil, ErrDecrypt
		}
		if last {
			return out, nil
		}
		ct = ct[chunk:]
	}
}

// Reseal decrypts v with id and encrypts the same plaintext (binding and
// value) to r, without the value ever leaving this function.
func Reseal(v Value, id *Identity, r *Recipient) (string, Binding, error) {
	pt, err := open(v, id)
	if err != nil {
		return "", Binding{}, err
	}
	p, err := decodePlaintext(pt)
	if err != nil {
		return "", Binding{}, err
	}
	s, err := seal(r, pt)
	return s, p.Binding, err
}

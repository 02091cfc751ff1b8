package encryption

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Sealer encrypts values with AES-256-GCM. The associated data binds a
// ciphertext to its organization, region, object name and key, so a value
// copied to another row does not decrypt. It also computes the values'
// keyed digests (Digest).
type Sealer struct {
	aead      cipher.AEAD
	digestKey []byte // HMAC-SHA256 key of Digest, derived from the master key
	agentKey  []byte // HMAC-SHA256 key of AgentToken, derived from the master key
}

// agentKeyLabel derives AgentToken's key from the master key.
const agentKeyLabel = "botkit.dev/v1/agent-token-key"

// digestKeyLabel derives Digest's key from the master key: a key used for
// one purpose only, never the encryption key itself.
const digestKeyLabel = "botkit.dev/v1/value-digest-key"

// DigestSize is the length of a Digest (128 bits).
const DigestSize = 16

func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("master key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	derive := func(label string) []byte {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(label))
		return mac.Sum(nil)
	}
	return &Sealer{aead: aead, digestKey: derive(digestKeyLabel), agentKey: derive(agentKeyLabel)}, nil
}

// AgentToken returns what an agent of organization org named agent shows
// to read what the platform serves its agents (purpose names it, e.g.
// "ice-config"): HMAC-SHA256, under a key derived from the master key, of
// the three, truncated to 128 bits. Every replica computes the same one,
// and it stays good while the master key does; it opens nothing else.
func (s *Sealer) AgentToken(purpose, org, agent string) []byte {
	mac := hmac.New(sha256.New, s.agentKey)
	var b []byte
	for _, p := range []string{"botkit.dev/v1/agent-token", purpose, org, agent} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	mac.Write(b)
	return mac.Sum(nil)[:DigestSize]
}

// Digest returns the keyed digest of a value: HMAC-SHA256, under a key
// derived from the master key, of the value bound to its organization,
// region, object name and key (as its ciphertext is), truncated to
// DigestSize bytes. Equal digests mean equal values; without the master
// key a digest tells nothing of the value, not even whether two keys hold
// the same one. A write compares digests instead of decrypting the values
// it would replace.
func (s *Sealer) Digest(org, region, name, key string, plaintext []byte) []byte {
	mac := hmac.New(sha256.New, s.digestKey)
	mac.Write(associatedData(org, region, name, key))
	mac.Write(plaintext)
	return mac.Sum(nil)[:DigestSize]
}

func associatedData(org, region, name, key string) []byte {
	var b []byte
	b = append(b, "botkit.dev/v1/value"...)
	for _, s := range []string{org, region, name, key} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

// Seal returns nonce || ciphertext.
func (s *Sealer) Seal(org, region, name, key string, plaintext []byte) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, plaintext, associatedData(org, region, name, key)), nil
}

// ErrDecrypt is returned by Open for a ciphertext that does not decrypt.
var ErrDecrypt = errors.New("a stored value could not be decrypted (wrong master key or tampered data)")

func (s *Sealer) Open(org, region, name, key string, blob []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(blob) < n {
		return nil, ErrDecrypt
	}
	pt, err := s.aead.Open(nil, blob[:n], blob[n:], associatedData(org, region, name, key))
	if err != nil {
		return nil, ErrDecrypt
	}
	return pt, nil
}

// CreateMasterKey writes a new key to a temporary file and links it into
// place, so that a process starting at the same moment never reads a key
// half written: the first link wins, the others read the winner's key.
func CreateMasterKey(path string) ([]byte, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".master-key-*")
	if err != nil {
		return nil, fmt.Errorf("create master key %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("create master key %s: %w", path, err)
	}
	if _, err := f.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("write master key %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return LoadMasterKey(path, false) // another process won the race
		}
		return nil, fmt.Errorf("create master key %s: %w", path, err)
	}
	return key, nil
}

// LoadMasterKey reads the key from path: 32 raw bytes, 64 hex digits or the
// base64 of 32 bytes. When create is true and the file does not exist, a new
// random key is written there (mode 0600, 64 hex digits).
func LoadMasterKey(path string, create bool) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && create {
		return CreateMasterKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("read master key %s: %w", path, err)
	}
	if len(data) == 32 {
		return data, nil
	}
	text := strings.TrimSpace(string(data))
	if k, err := hex.DecodeString(text); err == nil && len(k) == 32 {
		return k, nil
	}
	if k, err := base64.StdEncoding.DecodeString(text); err == nil && len(k) == 32 {
		return k, nil
	}
	return nil, fmt.Errorf("master key %s: want 32 raw bytes, 64 hex digits or base64 of 32 bytes", path)
}

package platform

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// A token looked up before a revocation (by another process, seen through
// the epoch file) is not cached after it.
func TestTokenCacheEpoch(t *testing.T) {
	path := filepath.Join(t.TempDir(), TokensEpochFile)
	c := newTokenCache(path)
	h := []byte("hash-1")
	tok := store.Token{ID: "tok_1", User: "u"}

	_, ep, ok := c.get(h)
	if ok {
		t.Fatal("hit in an empty cache")
	}
	c.put(h, tok, ep)
	if got, _, ok := c.get(h); !ok || got.ID != "tok_1" {
		t.Fatalf("lookup not cached: %v %v", got, ok)
	}

	// A revocation lands between a miss and the put of its lookup.
	h2 := []byte("hash-2")
	_, ep, _ = c.get(h2)
	if err := os.WriteFile(path, []byte("revoked once\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.get(h); ok {
		t.Error("cached token survived a change of the epoch file")
	}
	c.put(h2, tok, ep)
	if _, _, ok := c.get(h2); ok {
		t.Error("a lookup older than the revocation was cached")
	}

	// A revocation after the miss that no request saw yet: the put lands,
	// and the next request drops it.
	_, ep, _ = c.get(h2)
	if err := os.WriteFile(path, []byte("revoked twice, longer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.put(h2, tok, ep)
	if _, _, ok := c.get(h2); ok {
		t.Error("a token cached before a revocation is served after it")
	}
}

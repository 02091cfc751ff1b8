package service

import (
	"os"
	"path/filepath"
	"testing"
	"time"

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

// Over a shared database the cache follows the store's tokens epoch, and is
// not used at all while the epoch could not be read for revocationBound.
func TestTokenCacheStoreEpoch(t *testing.T) {
	e := &storeEpoch{}
	c := newStoreTokenCache(e)
	h := []byte("hash-1")
	tok := store.Token{ID: "tok_1"}
	_, ce, _ := c.get(h)
	c.put(h, tok, ce)
	if _, _, ok := c.get(h); ok {
		t.Fatal("a token was cached while the epoch was never read")
	}
	e.value.Store(7)
	e.checked.Store(time.Now().UnixNano())
	_, ce, _ = c.get(h)
	c.put(h, tok, ce)
	if _, _, ok := c.get(h); !ok {
		t.Fatal("lookup not cached under a fresh epoch")
	}
	e.value.Store(8) // a revocation somewhere
	if _, _, ok := c.get(h); ok {
		t.Error("cached token survived a change of the epoch")
	}
	c.put(h, tok, ce) // a lookup that started before the revocation
	if _, _, ok := c.get(h); ok {
		t.Error("a lookup older than the revocation was cached")
	}
	_, ce, _ = c.get(h)
	c.put(h, tok, ce)
	e.checked.Store(time.Now().Add(-revocationBound - time.Millisecond).UnixNano())
	if _, _, ok := c.get(h); ok {
		t.Error("cached token served although the epoch was last read more than revocationBound ago")
	}
}

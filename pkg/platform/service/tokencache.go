package service

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// TokensEpochFile, in the data directory of a SQLite store, is rewritten
// whenever a token is revoked; servers drop their token cache when it
// changes, so a revocation by `botkit-platform tokens revoke` (another
// process) applies to the very next request.
const TokensEpochFile = "tokens.epoch"

func epochFile(dataDir string) string { return filepath.Join(dataDir, TokensEpochFile) }

// tokenTTL bounds how long a successful token lookup is reused.
const tokenTTL = 30 * time.Second

const tokenCacheMax = 10000

// Over a shared database (PostgreSQL, several replicas) the revocation
// signal is the store's tokens epoch (store.Store.TokensEpoch), read every
// epochPoll. A cached token is served only while the epoch was read less
// than revocationBound ago, so a revocation through any replica or the
// admin command stops a token on every replica within revocationBound,
// even when a replica cannot read the epoch.
const (
	epochPoll        = 200 * time.Millisecond
	revocationBound  = time.Second
	epochPollTimeout = 500 * time.Millisecond
)

type cachedToken struct {
	tok     store.Token
	expires time.Time
}

// epoch identifies the state of the revocation signal: the epoch file's
// modification time and size, or the store's tokens epoch.
type epoch struct {
	a, b  int64
	exist bool
}

// tokenCache keeps recent successful token lookups (by SHA-256), so that a
// request costs no database read for authentication.
type tokenCache struct {
	// read returns the current epoch; false means it is unknown (the
	// cache must not be used).
	read func() (epoch, bool)

	mu  sync.Mutex
	m   map[string]cachedToken
	cur epoch
}

// newTokenCache watches the epoch file at path (SQLite store).
func newTokenCache(path string) *tokenCache {
	c := &tokenCache{m: map[string]cachedToken{}, read: func() (epoch, bool) {
		fi, err := os.Stat(path)
		if err != nil {
			return epoch{}, true
		}
		return epoch{a: fi.ModTime().UnixNano(), b: fi.Size(), exist: true}, true
	}}
	c.cur, _ = c.read()
	return c
}

// storeEpoch follows store.Store.TokensEpoch.
type storeEpoch struct {
	value   atomic.Int64
	checked atomic.Int64 // UnixNano when the last successful read started
}

func (e *storeEpoch) read() (epoch, bool) {
	if time.Since(time.Unix(0, e.checked.Load())) > revocationBound {
		return epoch{}, false
	}
	return epoch{a: e.value.Load(), exist: true}, true
}

// poll reads the store's tokens epoch every epochPoll until ctx ends.
func (e *storeEpoch) poll(ctx context.Context, st store.Store) {
	t := time.NewTicker(epochPoll)
	defer t.Stop()
	for {
		e.refresh(ctx, st)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (e *storeEpoch) refresh(ctx context.Context, st store.Store) {
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, epochPollTimeout)
	defer cancel()
	v, err := st.TokensEpoch(rctx)
	if err != nil {
		return
	}
	e.value.Store(v)
	e.checked.Store(start.UnixNano())
}

// newStoreTokenCache follows the store's tokens epoch (shared database).
func newStoreTokenCache(e *storeEpoch) *tokenCache {
	c := &tokenCache{m: map[string]cachedToken{}, read: e.read}
	c.cur, _ = c.read()
	return c
}

// checkEpoch clears the cache if the epoch changed. Caller holds mu.
func (c *tokenCache) checkEpoch(e epoch) {
	if e != c.cur {
		clear(c.m)
		c.cur = e
	}
}

// get returns the cached token of hash, and the epoch it checked: a lookup
// made after a miss is put back with that epoch (ok false: do not).
func (c *tokenCache) get(hash []byte) (store.Token, cacheEpoch, bool) {
	// The epoch is checked on every request, so that a revocation by
	// another process applies to the next one; it is read outside the lock.
	ep, known := c.read()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !known {
		clear(c.m)
		return store.Token{}, cacheEpoch{}, false
	}
	c.checkEpoch(ep)
	e, ok := c.m[string(hash)]
	if !ok || time.Now().After(e.expires) {
		return store.Token{}, cacheEpoch{ep, true}, false
	}
	return e.tok, cacheEpoch{ep, true}, true
}

// cacheEpoch is the epoch a lookup started under.
type cacheEpoch struct {
	ep    epoch
	known bool
}

// put caches a lookup made after get returned ce, unless the epoch changed
// since (the lookup may predate a revocation) or was unknown.
func (c *tokenCache) put(hash []byte, t store.Token, ce cacheEpoch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ce.known || ce.ep != c.cur {
		return
	}
	if len(c.m) >= tokenCacheMax {
		clear(c.m)
	}
	c.m[string(hash)] = cachedToken{tok: t, expires: time.Now().Add(tokenTTL)}
}

func (c *tokenCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}

// bumpTokensEpoch rewrites the epoch file of dataDir.
func bumpTokensEpoch(path string) error {
	return os.WriteFile(path, []byte(strconv.FormatInt(time.Now().UnixNano(), 10)+"\n"), 0o600)
}

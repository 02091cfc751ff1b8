package platform

import (
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// TokensEpochFile, in the data directory, is rewritten whenever a token is
// revoked; servers drop their token cache when it changes, so a revocation
// by `botkit-platform tokens revoke` (another process) applies to the very
// next request.
const TokensEpochFile = "tokens.epoch"

// tokenTTL bounds how long a successful token lookup is reused.
const tokenTTL = 30 * time.Second

const tokenCacheMax = 10000

type cachedToken struct {
	tok     store.Token
	expires time.Time
}

// tokenCache keeps recent successful token lookups (by SHA-256), so that a
// request costs no database read for authentication.
type tokenCache struct {
	path string

	mu    sync.Mutex
	m     map[string]cachedToken
	mod   time.Time
	size  int64
	exist bool
}

func newTokenCache(path string) *tokenCache {
	c := &tokenCache{path: path, m: map[string]cachedToken{}}
	c.checkEpoch(c.readEpoch())
	return c
}

// epoch is the state of the epoch file.
type epoch struct {
	exist bool
	mod   time.Time
	size  int64
}

func (c *tokenCache) readEpoch() epoch {
	fi, err := os.Stat(c.path)
	if err != nil {
		return epoch{}
	}
	return epoch{exist: true, mod: fi.ModTime(), size: fi.Size()}
}

// checkEpoch clears the cache if the epoch file changed (e is its state,
// read before the call, outside the lock). Caller holds mu or is the
// constructor.
func (c *tokenCache) checkEpoch(e epoch) {
	exist, mod, size := e.exist, e.mod, e.size
	if exist != c.exist || !mod.Equal(c.mod) || size != c.size {
		clear(c.m)
		c.exist, c.mod, c.size = exist, mod, size
	}
}

// get returns the cached token of hash, and the epoch it checked: a lookup
// made after a miss is put back with that epoch.
func (c *tokenCache) get(hash []byte) (store.Token, epoch, bool) {
	// The file is checked on every request, so that a revocation by another
	// process applies to the next one; the stat runs outside the lock.
	ep := c.readEpoch()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkEpoch(ep)
	e, ok := c.m[string(hash)]
	if !ok || time.Now().After(e.expires) {
		return store.Token{}, ep, false
	}
	return e.tok, ep, true
}

// put caches a lookup made after get returned ep, unless the epoch changed
// since (the lookup may predate a revocation).
func (c *tokenCache) put(hash []byte, t store.Token, ep epoch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ep.exist != c.exist || !ep.mod.Equal(c.mod) || ep.size != c.size {
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

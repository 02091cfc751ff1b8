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
	c.checkEpoch()
	return c
}

// checkEpoch clears the cache if the epoch file changed. Caller holds mu or
// is the constructor.
func (c *tokenCache) checkEpoch() {
	fi, err := os.Stat(c.path)
	exist := err == nil
	var mod time.Time
	var size int64
	if exist {
		mod, size = fi.ModTime(), fi.Size()
	}
	if exist != c.exist || !mod.Equal(c.mod) || size != c.size {
		clear(c.m)
		c.exist, c.mod, c.size = exist, mod, size
	}
}

func (c *tokenCache) get(hash []byte) (store.Token, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkEpoch()
	e, ok := c.m[string(hash)]
	if !ok || time.Now().After(e.expires) {
		return store.Token{}, false
	}
	return e.tok, true
}

func (c *tokenCache) put(hash []byte, t store.Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
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

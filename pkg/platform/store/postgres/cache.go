package postgres

import (
	"errors"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Optimistic group commit. A replica remembers the objects its batches
// last read or wrote (objectCache). When every object a batch declares is
// remembered, the batch does not lock and read them first: its updates run
// against the remembered rows and the whole transaction goes out in ONE
// pipelined round trip, as an implicit transaction (no BEGIN, no COMMIT):
//
//	SELECT botkit_expect_current(count(*) = n) FROM (SELECT ... the n
//	    objects WHERE id AND version are the remembered ones, in key order,
//	    FOR UPDATE)
//	the batch's compacted writes
//	Sync (commits, durably, or rolls everything back)
//
// The first statement locks the rows in the order every batch of every
// replica locks them, then fails the transaction — before any of its
// writes — unless every object is still at the remembered version. Every
// write of an object's rows gives it a new version (the provisioner's
// state changes are the exception: a batch's every successful update must
// therefore write the objects it declared, which overwrites their state;
// one that did not write makes the batch take the locking path, so that no
// answer carries a stale state). Stale or not, the answers are those of a
// read under lock. When the check fails, nothing was written and the batch
// runs again on the locking path (batch.go), which refreshes the cache.
// An object that run finds changed since the failed batch remembered it,
// for the second time within staleFor, is not remembered for staleFor:
// objects several replicas write at once take the locking path directly,
// and their batch-mates do not. One found changed once (its writer moved
// to this replica: a client reconnected through the load balancer, another
// replica stopped) is remembered again at once; keeping it out too would
// put every batch it is in on the locking path for staleFor.
//
// An update that needs anything else from the database (an object it did
// not declare, values, a deletion, a create) makes the batch take the
// locking path before anything was sent.

// sqlstateStale is botkit_expect_current's error code (migration 0003).
const sqlstateStale = "BK409"

const (
	qExpectCurrent = `SELECT botkit_expect_current(count(*) = $3) AS ok FROM (SELECT o.id FROM objects o
		JOIN unnest($1::bigint[], $2::bigint[]) AS e(id, version) ON o.id = e.id AND o.version = e.version
		ORDER BY o.org_id, o.name FOR UPDATE OF o) AS current`

	// cacheLimit bounds the remembered objects and cacheEntries their key
	// names and labels (a set may hold thousands of keys); past either the
	// cache starts over. The cache is for the objects written again and
	// again; an object written rarely costs one locked read when it is.
	cacheLimit   = 1 << 14
	cacheEntries = 1 << 18
	// staleFor is how long an object found changed by someone else twice
	// within staleFor is not remembered.
	staleFor = time.Second
)

// errNeedLocks abandons an optimistic batch before anything was sent.
var errNeedLocks = errors.New("postgres: the batch needs the locking path")

// objectCache holds the rows of the objects this store's batches read or
// wrote last, as of their commit.
type objectCache struct {
	mu    sync.Mutex
	rows  map[store.ObjectKey]store.Object
	size  int                           // key names and labels of rows
	stale map[store.ObjectKey]time.Time // not remembered until then
	// changed: when each object was last found changed by someone else.
	changed map[store.ObjectKey]time.Time
	// suspect: the IDs and versions a failed optimistic batch expected.
	suspect map[store.ObjectKey]store.Object
}

// lookup returns the remembered rows of keys if every key is remembered.
// The rows are shared, not copied: a batch never changes a row's maps in
// place (Object hands out a copy, a write remembers a copy), and the cache
// only replaces rows.
func (c *objectCache) lookup(keys []store.ObjectKey) (*optimism, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if _, ok := c.rows[k]; !ok {
			return nil, false
		}
	}
	o := &optimism{rows: make(map[store.ObjectKey]store.Object, len(keys)), ids: make([]int64, len(keys)), versions: make([]int64, len(keys))}
	for i, k := range keys {
		r := c.rows[k]
		o.rows[k] = r
		o.ids[i], o.versions[i] = r.ID, r.Version
	}
	return o, true
}

// markStale compares the rows a batch read under lock with the remembered
// ones that a failed optimistic batch expected (suspect) and keeps the
// objects found changed for the second time within staleFor out for
// staleFor.
func (c *objectCache) markStale(keys []store.ObjectKey, read map[store.ObjectKey]store.Object) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	for _, k := range keys {
		want, ok := c.suspect[k]
		if !ok {
			continue
		}
		delete(c.suspect, k)
		if got, ok := read[k]; ok && got.ID == want.ID && got.Version == want.Version {
			continue
		}
		if last, ok := c.changed[k]; ok && now.Sub(last) < staleFor {
			if c.stale == nil {
				c.stale = map[store.ObjectKey]time.Time{}
			}
			c.stale[k] = now.Add(staleFor)
		}
		if c.changed == nil || len(c.changed) >= cacheLimit {
			c.changed = map[store.ObjectKey]time.Time{}
		}
		c.changed[k] = now
	}
}

// remember records the rows of keys as a committed batch left them (rows:
// read or written; missing: absent).
func (c *objectCache) remember(keys []store.ObjectKey, rows map[store.ObjectKey]store.Object) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rows == nil || len(c.rows) >= cacheLimit || c.size >= cacheEntries {
		c.rows, c.size = map[store.ObjectKey]store.Object{}, 0
	}
	now := time.Now()
	for _, k := range keys {
		o, ok := rows[k]
		if until, stale := c.stale[k]; stale {
			if now.Before(until) {
				ok = false
			} else {
				delete(c.stale, k)
			}
		}
		if ok {
			// As a read of the row would return it.
			if len(o.Labels) == 0 {
				o.Labels = nil
			}
			if o.Keys == nil {
				o.Keys = map[string]int{}
			}
			c.drop(k)
			c.rows[k] = o
			c.size += entries(o)
		} else {
			c.drop(k)
		}
	}
}

// forget drops keys. After a failed optimistic batch (o), its objects are
// suspects until the batch's run under lock tells which changed
// (markStale).
func (c *objectCache) forget(keys []store.ObjectKey, o *optimism) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		c.drop(k)
	}
	if o == nil {
		return
	}
	if c.suspect == nil || len(c.suspect) >= cacheLimit {
		c.suspect = map[store.ObjectKey]store.Object{}
	}
	if len(c.stale) >= cacheLimit {
		clear(c.stale)
	}
	for i, k := range keys {
		c.suspect[k] = store.Object{ID: o.ids[i], Version: o.versions[i]}
	}
}

// drop removes k's row; c.mu is held.
func (c *objectCache) drop(k store.ObjectKey) {
	if o, ok := c.rows[k]; ok {
		c.size -= entries(o)
		delete(c.rows, k)
	}
}

func entries(o store.Object) int { return 1 + len(o.Keys) + len(o.Labels) }

// isStale reports the failed check of an optimistic batch.
func isStale(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == sqlstateStale
}

// commitOptimistic sends the check and the queued writes in one round trip
// as one implicit transaction.
func (t *pgTx) commitOptimistic() error {
	o := t.b.optimistic
	q := compact(t.queue)
	b := &pgx.Batch{}
	b.Queue(qExpectCurrent, o.ids, o.versions, len(o.ids))
	for _, w := range q {
		b.Queue(w.sql, w.args...)
	}
	t.queue = nil
	t.sentCommit = true
	br := t.conn.SendBatch(t.b.ctx, b)
	var first error
	for range b.Len() {
		if _, err := br.Exec(); err != nil && first == nil {
			first = err
		}
	}
	if err := br.Close(); err != nil && first == nil {
		first = err
	}
	return first
}

// optimism is what an optimistic batch runs on (rows) and checks at commit
// (ids and versions, in key order).
type optimism struct {
	rows          map[store.ObjectKey]store.Object
	ids, versions []int64
}

// wroteAll reports whether the current request wrote every one of keys.
func (b *batchState) wroteAll(keys []store.ObjectKey) bool {
	for _, k := range keys {
		found := false
		for _, w := range b.touched {
			if w == k {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

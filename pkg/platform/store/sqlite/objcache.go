package sqlite

import "github.com/botkit-dev/botkit/pkg/platform/store"

// The writer keeps the objects it reads and writes in memory, so that a
// merge needs no SELECT of its object. Only the writer goroutine touches the
// cache. It stays correct because:
//   - a batch's changes reach the cache only after the batch commits; a
//     request's own changes reach the batch only if the request succeeds;
//   - writes that change rows the cache cannot name (status updates) mark
//     the request "invalidating": the rest of the batch reads the database
//     and the cache is emptied at commit;
//   - commits by other connections or processes change SQLite's
//     data_version, which every batch checks first (under the write lock):
//     then the cache is emptied.

type objKey struct {
	org  int64
	name string
}

type overlayEntry struct {
	obj     store.Object
	deleted bool
}

const objCacheMax = 20000

type objCache struct {
	m           map[objKey]store.Object
	ids         map[int64]objKey
	dataVersion int64
	known       bool
}

func newObjCache() *objCache {
	return &objCache{m: map[objKey]store.Object{}, ids: map[int64]objKey{}}
}

func (c *objCache) put(k objKey, o store.Object) {
	if len(c.m) >= objCacheMax {
		c.clear()
	}
	if old, ok := c.m[k]; ok && old.ID != o.ID {
		delete(c.ids, old.ID)
	}
	c.m[k] = o
	c.ids[o.ID] = k
}

func (c *objCache) del(k objKey) {
	if o, ok := c.m[k]; ok {
		delete(c.ids, o.ID)
	}
	delete(c.m, k)
}

func (c *objCache) clear() {
	clear(c.m)
	clear(c.ids)
}

// apply publishes a committed batch.
func (c *objCache) apply(b *batchTx) {
	if b.invalid {
		c.clear()
	}
	for k, e := range b.over {
		if e.deleted {
			c.del(k)
		} else {
			c.put(k, e.obj)
		}
	}
}

// markInvalid records that this request changed rows the cache cannot name.
func (t *sqlTx) markInvalid() {
	t.invalid = true
	clear(t.over)
}

func (t *sqlTx) overlay(k objKey, e overlayEntry) {
	if t.over == nil {
		t.over = map[objKey]overlayEntry{}
	}
	t.over[k] = e
}

// current returns the row of k as the database holds it within this
// request, if this request, its batch or the cache knows it.
func (t *sqlTx) current(k objKey) (store.Object, bool) {
	if e, ok := t.over[k]; ok {
		return e.obj, !e.deleted
	}
	if t.invalid {
		return store.Object{}, false
	}
	if e, ok := t.b.over[k]; ok {
		return e.obj, !e.deleted
	}
	if t.b.invalid {
		return store.Object{}, false
	}
	o, ok := t.b.cache.m[k]
	return o, ok
}

// keyOf finds the key of object id among what this request and batch know.
func (t *sqlTx) keyOf(id int64) (objKey, bool) {
	for k, e := range t.over {
		if !e.deleted && e.obj.ID == id {
			return k, true
		}
	}
	if !t.invalid {
		for k, e := range t.b.over {
			if !e.deleted && e.obj.ID == id {
				return k, true
			}
		}
		if !t.b.invalid {
			if k, ok := t.b.cache.ids[id]; ok {
				return k, true
			}
		}
	}
	return objKey{}, false
}

// finish merges a successful request into its batch.
func (b *batchTx) finish(t *sqlTx) {
	if t.invalid {
		b.invalid = true
		clear(b.over)
	}
	for k, e := range t.over {
		b.over[k] = e
	}
}

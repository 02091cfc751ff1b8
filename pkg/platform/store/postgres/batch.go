package postgres

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Group commit. Updates whose context declares their objects
// (store.WithObjects) are queued; a few batch runners (Options.Batches) each
// take what is queued and run it as one transaction:
//
//  1. one round trip: BEGIN, the transaction-scoped advisory locks of every
//     declared (organization, name) in key order, and SELECT ... FOR UPDATE
//     of the existing rows in key order. All batches of all replicas take
//     their locks in that one order, so they never deadlock each other.
//  2. each update's function runs in key order against what step 1 read (a
//     declared object costs no round trip; objects it did not declare are
//     read as usual). Writes are queued; one that must be sent at once (an
//     insert, a delete) first opens a savepoint, so a function that fails
//     afterwards is rolled back alone. A function that fails before any of
//     its writes was sent only drops them.
//  3. one round trip: every queued write and COMMIT.
//
// If the batch fails as a whole (a statement error, a deadlock with a
// non-batched writer, the connection lost before COMMIT was sent), every
// update of it runs again in a transaction of its own, as a non-batched
// update does. An update is answered only once the batch committed.

// MaxBatch bounds the updates of one transaction (and Options.CommitBatch).
const MaxBatch = 64

type request struct {
	ctx  context.Context
	fn   func(context.Context, store.Tx) error
	keys []store.ObjectKey // sorted
	done chan error
}

// batchState is the part of a pgTx that only a batch has.
type batchState struct {
	ctx       context.Context // I/O of the whole batch, whatever the requests' contexts
	rows      map[store.ObjectKey]store.Object
	missing   map[store.ObjectKey]bool // declared, locked and absent
	failed    error                    // first statement or connection error
	reqStart  int                      // len(queue) when the current request started
	savepoint bool                     // the current request opened savepoint r
	touched   []store.ObjectKey        // cache entries the current request changed
	// optimistic is set when the batch runs on remembered rows (cache.go).
	optimistic *optimism
}

// enqueueRequest queues r and starts a batch runner if fewer than
// Options.Batches run.
func (s *Store) enqueueRequest(r *request) {
	s.bmu.Lock()
	s.pending = append(s.pending, r)
	if s.grown != nil && len(s.pending) >= s.want {
		close(s.grown)
		s.grown = nil
	}
	start := s.running < s.batches
	if start {
		s.running++
	}
	s.bmu.Unlock()
	if start {
		go s.runBatches()
	}
}

// runBatches runs batches of queued requests until none is left that it
// may take. A runner takes only requests whose objects no other running
// batch of this store declared: a second batch on the same objects would
// only wait for the first one's locks, while the requests it leaves join
// the first one's next batch.
func (s *Store) runBatches() {
	var reqs []*request
	for {
		s.bmu.Lock()
		for _, r := range reqs {
			for _, k := range r.keys {
				delete(s.busy, k)
			}
		}
		// After a shared batch, wait for its writers to write again (a
		// client that waits for each answer before it sends the next
		// write): up to the commit delay, until as many writes are queued
		// as were queued when the answers went out plus as many as the
		// batch answered (s.want, set by runBatch).
		if len(reqs) > 1 && s.opts.CommitDelay > 0 && len(s.pending) < s.want {
			if s.grown == nil {
				s.grown = make(chan struct{})
			}
			grown, want := s.grown, s.want
			s.bmu.Unlock()
			s.waitDelay(grown, want)
			s.bmu.Lock()
		}
		reqs = reqs[:0]
		rest := s.pending[:0]
		for _, r := range s.pending {
			if len(reqs) == MaxBatch || slices.ContainsFunc(r.keys, func(k store.ObjectKey) bool { return s.busy[k] }) {
				rest = append(rest, r)
				continue
			}
			reqs = append(reqs, r)
		}
		clear(s.pending[len(rest):])
		s.pending = rest
		if len(reqs) == 0 {
			s.running--
			s.bmu.Unlock()
			return
		}
		for _, r := range reqs {
			for _, k := range r.keys {
				s.busy[k] = true
			}
		}
		s.bmu.Unlock()
		s.runBatch(reqs)
		if s.batchDone != nil {
			s.batchDone(len(reqs))
		}
	}
}

// waitDelay waits until grown is closed (the queue holds want writes) or
// the commit delay is out.
func (s *Store) waitDelay(grown chan struct{}, want int) {
	if s.delayTimer != nil {
		select {
		case <-grown:
		case <-s.delayTimer(want):
		}
		return
	}
	t := time.NewTimer(s.opts.CommitDelay)
	defer t.Stop()
	select {
	case <-grown:
	case <-t.C:
	}
}

// expect records, before a batch of n requests is answered, how many
// writes its runner waits for (runBatches): the writes queued now plus
// the n writers the answers may bring back. Counted after the answers
// went out, a writer that came back at once would be counted twice, and
// the runner would wait out the delay for a write that never comes.
func (s *Store) expect(n int) {
	s.bmu.Lock()
	s.want = min(s.opts.CommitBatch, len(s.pending)+n)
	s.bmu.Unlock()
}

func (s *Store) runBatch(reqs []*request) {
	live := make([]*request, 0, len(reqs))
	for _, r := range reqs {
		if err := r.ctx.Err(); err != nil {
			r.done <- err
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		s.expect(len(reqs))
		return
	}
	slices.SortStableFunc(live, func(a, b *request) int { return a.keys[0].Compare(b.keys[0]) })
	keys := declared(live)
	var errs []error
	var err error
	if o, ok := s.cache.lookup(keys); ok {
		errs, err = s.batchOnce(live, keys, o)
		if errs == nil && (errors.Is(err, errNeedLocks) || isStale(err)) {
			// Nothing was written: lock and read, and learn which
			// objects were stale.
			errs, err = s.batchOnce(live, keys, nil)
		}
	} else {
		errs, err = s.batchOnce(live, keys, nil)
	}
	s.expect(len(reqs))
	if err == nil {
		// A write that failed alone (under its savepoint) for want of
		// disk space is told so, as updateAlone would tell it.
		for i, r := range live {
			if isDiskFull(errs[i]) {
				errs[i] = wrap(errs[i])
			}
			r.done <- errs[i]
		}
		return
	}
	if errs != nil { // COMMIT was sent and its outcome is unknown
		for i, r := range live {
			if errs[i] == nil {
				errs[i] = wrap(err)
			}
			r.done <- errs[i]
		}
		return
	}
	// Nothing of the batch was committed: each update on its own.
	for _, r := range live {
		go func() { r.done <- s.updateAlone(r.ctx, r.fn) }()
	}
}

// batchOnce runs reqs, which declared keys, in one transaction: an
// optimistic one (cache.go) on the remembered rows o checks, or one that
// locks and reads keys when o is nil. On success it returns each request's
// error (nil: committed). When the batch failed and nothing was committed,
// it returns (nil, err); when COMMIT was sent but its outcome is unknown,
// (errs, err).
func (s *Store) batchOnce(reqs []*request, keys []store.ObjectKey, o *optimism) ([]error, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	start := time.Now()
	t := &pgTx{s: s, conn: conn.Conn(), b: &batchState{ctx: ctx, rows: map[store.ObjectKey]store.Object{}, missing: map[store.ObjectKey]bool{}}}
	rollback := func() {
		if t.began && t.conn.PgConn().TxStatus() != 'I' {
			_, _ = t.conn.Exec(ctx, "ROLLBACK")
		}
	}
	if o != nil {
		t.b.optimistic = o
		maps.Copy(t.b.rows, o.rows)
	} else {
		if err := t.prefetch(keys); err != nil {
			rollback()
			s.cache.forget(keys, nil)
			return nil, err
		}
		s.cache.markStale(keys, t.b.rows)
	}
	errs := make([]error, len(reqs))
	for i, r := range reqs {
		t.b.reqStart, t.b.savepoint, t.b.touched = len(t.queue), false, t.b.touched[:0]
		ferr := runFn(r.ctx, r.fn, t)
		if t.b.failed != nil {
			rollback()
			if !errors.Is(t.b.failed, errNeedLocks) {
				s.cache.forget(keys, nil)
			}
			return nil, t.b.failed
		}
		if ferr == nil {
			if t.b.optimistic != nil && !t.b.wroteAll(r.keys) {
				return nil, errNeedLocks // its answer may carry a state the provisioner changed
			}
			if t.b.savepoint {
				t.enqueue("RELEASE SAVEPOINT r")
			}
			continue
		}
		errs[i] = ferr
		t.queue = t.queue[:t.b.reqStart]
		if t.b.savepoint {
			t.enqueue("ROLLBACK TO SAVEPOINT r")
			t.enqueue("RELEASE SAVEPOINT r")
		}
		for _, k := range t.b.touched {
			delete(t.b.rows, k)
			delete(t.b.missing, k)
		}
	}
	if t.b.optimistic != nil {
		err = t.commitOptimistic()
	} else {
		err = t.commit(ctx)
	}
	if err != nil {
		var suspect *optimism // the check failed: learn which objects changed
		if isStale(err) {
			s.stale.Add(1)
			suspect = o
		}
		s.cache.forget(keys, suspect)
		var pe *pgconn.PgError
		if !t.sentCommit || errors.As(err, &pe) {
			rollback()
			return nil, err // rolled back: nothing committed
		}
		return errs, err
	}
	s.cache.remember(keys, t.b.rows)
	if t.b.optimistic != nil {
		s.optimistic.Add(1)
	}
	if s.opts.OnCommit != nil {
		s.opts.OnCommit(len(reqs), time.Since(start))
	}
	return errs, nil
}

const (
	qLockNames = `SELECT pg_advisory_xact_lock(hashtextextended(n, o)) FROM unnest($1::bigint[], $2::text[]) AS k(o, n)`
	qLockRows  = `SELECT ` + objectCols + ` FROM objects WHERE (org_id, name) IN (SELECT o, n FROM unnest($1::bigint[], $2::text[]) AS k(o, n))
		ORDER BY org_id, name FOR UPDATE`
)

// declared returns the objects reqs declared, in key order.
func declared(reqs []*request) []store.ObjectKey {
	var keys []store.ObjectKey
	for _, r := range reqs {
		keys = append(keys, r.keys...)
	}
	slices.SortFunc(keys, store.ObjectKey.Compare)
	return slices.Compact(keys)
}

// prefetch begins the transaction and locks and reads keys, in key order.
func (t *pgTx) prefetch(keys []store.ObjectKey) error {
	orgs, names := make([]int64, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		orgs[i], names[i] = k.OrgID, k.Name
		t.b.missing[k] = true
	}
	return t.send(t.b.ctx, []queued{{qLockNames, []any{orgs, names}}, {qLockRows, []any{orgs, names}}},
		[]func(pgx.BatchResults) error{nil, func(br pgx.BatchResults) error {
			rows, err := br.Query()
			if err != nil {
				return err
			}
			objs, err := scanObjects(rows)
			for _, o := range objs {
				k := store.ObjectKey{OrgID: o.OrgID, Name: o.Name}
				delete(t.b.missing, k)
				t.b.rows[k] = o
			}
			return err
		}})
}

// tracked reports whether the batch holds k's locks and knows its row.
func (b *batchState) tracked(k store.ObjectKey) bool {
	if _, ok := b.rows[k]; ok {
		return true
	}
	return b.missing[k]
}

// remember records o as k's row after a write of the current request.
func (b *batchState) remember(o store.Object) {
	k := store.ObjectKey{OrgID: o.OrgID, Name: o.Name}
	if !b.tracked(k) {
		return
	}
	b.rows[k] = cloneObject(o)
	delete(b.missing, k)
	b.touched = append(b.touched, k)
}

// forget records that object id was deleted by the current request.
func (b *batchState) forget(id int64) {
	for k, o := range b.rows {
		if o.ID == id {
			delete(b.rows, k)
			b.missing[k] = true
			b.touched = append(b.touched, k)
			return
		}
	}
}

func cloneObject(o store.Object) store.Object {
	o.Labels, o.Keys, o.Digests = maps.Clone(o.Labels), maps.Clone(o.Keys), maps.Clone(o.Digests)
	return o
}

// isDomain reports errors that a statement's result maps to without the
// transaction failing (a row that exists, or not).
func isDomain(err error) bool {
	return errors.Is(err, store.ErrExists) || errors.Is(err, store.ErrNotFound)
}

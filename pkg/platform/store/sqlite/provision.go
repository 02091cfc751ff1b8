package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// What the provisioners ask of the store: pending objects, claims and
// their leases, status updates.

// qAnyPending finds whether any object of a region and kind is pending.
const qAnyPending = `SELECT 1 FROM objects WHERE state = 'pending' AND region = ? AND kind = ? LIMIT 1`

func (s *Store) Pending(ctx context.Context, region, kind string, limit int) ([]store.Object, error) {
	return queryAll(ctx, s.rdb(), scanObject, `SELECT id, org_id, name, kind, region, '', '', host, username, version, generation, state, message, created_at, updated_at, managed, apply_set
		FROM objects WHERE state = 'pending' AND region = ? AND kind = ? ORDER BY id LIMIT ?`, region, kind, limit)
}

// ClaimPending implements store.Store. The claim columns are not part of
// store.Object, so the writer's object cache stays valid.
func (s *Store) ClaimPending(ctx context.Context, region, kind, holder string, lease time.Duration, limit int) ([]store.Object, error) {
	// Most passes find nothing to claim: look on the read pool first, so
	// that they cost the writer nothing.
	var one int
	err := s.rdb().QueryRowContext(ctx, `SELECT 1 FROM objects WHERE state = 'pending' AND region = ? AND kind = ? AND (claim_until < ? OR claim_gen <> generation) LIMIT 1`,
		region, kind, time.Now().UnixNano()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []store.Object
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		t := tx.(*sqlTx)
		t.dirty = true
		now := time.Now().UnixNano()
		var err error
		out, err = queryAll(ctx, t.b, scanObject, `UPDATE objects SET claimed_by = ?, claim_until = ?, claim_gen = generation
			WHERE id IN (SELECT id FROM objects WHERE state = 'pending' AND region = ? AND kind = ? AND (claim_until < ? OR claim_gen <> generation) ORDER BY id LIMIT ?)
			RETURNING id, org_id, name, kind, region, '', '', host, username, version, generation, state, message, created_at, updated_at, managed, apply_set`,
			holder, now+lease.Nanoseconds(), region, kind, now, limit)
		return err
	})
	slices.SortFunc(out, func(a, b store.Object) int { return cmp.Compare(a.ID, b.ID) })
	return out, err
}

func (s *Store) RenewClaims(ctx context.Context, holder string, ids []int64, lease time.Duration) error {
	if len(ids) == 0 {
		return nil
	}
	return s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		until := time.Now().UnixNano() + lease.Nanoseconds()
		for _, id := range ids {
			if _, err := tx.(*sqlTx).exec(ctx, `UPDATE objects SET claim_until = ? WHERE id = ? AND claimed_by = ? AND state = 'pending'`, until, id, holder); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *Store) SetStatus(ctx context.Context, updates []store.StatusUpdate) (int, error) {
	applied := 0
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		applied = 0
		for _, u := range updates {
			res, err := tx.(*sqlTx).exec(ctx, qSetStatus, u.State, u.Message, u.ObjectID, u.Generation)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			applied += int(n)
		}
		if applied > 0 {
			tx.(*sqlTx).markInvalid()
		}
		return nil
	})
	return applied, err
}

// MarkPendingReady implements store.Store. Most passes find nothing
// pending: it looks on the read pool first, as ClaimPending does, so that
// they cost the writer nothing (a drain of the embedded platform passes
// over every region). A write that makes an object pending after the look
// wakes the provisioner again.
func (s *Store) MarkPendingReady(ctx context.Context, region, kind string) (int, error) {
	var one int
	err := s.rdb().QueryRowContext(ctx, qAnyPending, region, kind).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		res, err := tx.(*sqlTx).exec(ctx, qMarkReady, region, kind)
		if err != nil {
			return err
		}
		m, _ := res.RowsAffected()
		n = int(m)
		if n > 0 {
			tx.(*sqlTx).markInvalid()
		}
		return nil
	})
	return n, err
}

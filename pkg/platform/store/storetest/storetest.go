// Package storetest is the contract of store.Store: every implementation
// (store/sqlite, store/postgres) runs Run from its tests, so both behave the
// same way.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// Opener opens one more store on the same database; the store is closed
// when the test ends. Two stores of one Opener are like two processes (two
// replicas) sharing the database.
type Opener func(t *testing.T) store.Store

// Run runs the contract tests. newDB creates a fresh, empty database for
// one test and returns its Opener.
func Run(t *testing.T, newDB func(t *testing.T) Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"OrgsAndTokens", testOrgsAndTokens},
		{"ObjectsAndValues", testObjectsAndValues},
		{"List", testList},
		{"StatusUpdates", testStatusUpdates},
		{"UpdateIsolation", testUpdateIsolation},
		{"Versions", testVersions},
		{"ConcurrentMerges", testConcurrentMerges},
		{"ConcurrentCreate", testConcurrentCreate},
		{"SecondProcess", testSecondProcess},
		{"Audit", testAudit},
		{"UpdateState", testUpdateState},
		{"Claims", testClaims},
		{"TokensEpoch", testTokensEpoch},
		{"Settings", testSettings},
		{"AppliedObjects", testAppliedObjects},
		{"GroupedUpdates", testGroupedUpdates},
		{"History", testHistory},
		{"HistoryDeltas", testHistoryDeltas},
		{"SealingKeys", testSealingKeys},
		{"PublicKeys", testPublicKeys},
		{"Digests", testDigests},
		{"Agents", testAgents},
		{"RegionAgents", testRegionAgents},
		{"AppliedAgents", testAppliedAgents},
		{"ConcurrentDeploys", testConcurrentDeploys},
		{"AgentsInGroupedUpdates", testAgentsInGroupedUpdates},
		{"Leases", testLeases},
		{"Sessions", testSessions},
		{"PublicKeySession", testPublicKeySession},
		{"SessionsClaim", testSessionClaim},
		{"SessionsLive", testLiveSessions},
		{"SessionsOfAgent", testAgentSessions},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newDB(t)) })
	}
}

func update(t *testing.T, s store.Store, fn func(ctx context.Context, tx store.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func newOrg(t *testing.T, s store.Store, name string) store.Org {
	t.Helper()
	var o store.Org
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		var err error
		o, err = tx.CreateOrg(ctx, store.Org{Name: name, DefaultRegion: "us-west"})
		return err
	})
	return o
}

// merge adds keys to set name of org (creating it) the way the platform
// does: read, modify, write, in one transaction.
// It declares its object (store.WithObjects), as the platform does.
func merge(s store.Store, orgID int64, name string, set map[string]int, fail error) error {
	return mergeAlso(s, orgID, name, "", set, fail)
}

// mergeTx writes set into object name of org (creating it) in tx, with a
// new version and generation, and returns the object.
func mergeTx(ctx context.Context, tx store.Tx, orgID int64, name string, set map[string]int) (store.Object, error) {
	o, err := tx.Object(ctx, orgID, name)
	if errors.Is(err, store.ErrNotFound) {
		now := time.Now().UTC()
		o = store.Object{OrgID: orgID, Name: name, Kind: "SecretSet", Region: "us-west", CreatedAt: now}
	} else if err != nil {
		return o, err
	}
	keys := maps.Clone(o.Keys)
	if keys == nil {
		keys = map[string]int{}
	}
	for k, n := range set {
		keys[k] = n
	}
	vals := mergeValues(set)
	o.Keys = keys
	if o.Version, err = tx.NextVersion(ctx); err != nil {
		return o, err
	}
	o.Generation++
	o.State, o.Message, o.UpdatedAt = "pending", "", time.Now().UTC()
	if o.ID, err = tx.PutObject(ctx, o); err != nil {
		return o, err
	}
	return o, tx.PutValues(ctx, o.ID, vals)
}

// mergeValues are the values mergeTx writes for set.
func mergeValues(set map[string]int) []store.Value {
	var vals []store.Value
	for _, k := range slices.Sorted(maps.Keys(set)) {
		vals = append(vals, store.Value{Key: k, Size: set[k], Ciphertext: []byte("ct-" + k)})
	}
	return vals
}

// mergeAlso is merge; a non-empty also is an undeclared object it reads
// (locks) first.
func mergeAlso(s store.Store, orgID int64, name, also string, set map[string]int, fail error) error {
	ctx := store.WithObjects(context.Background(), store.ObjectKey{OrgID: orgID, Name: name})
	return s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		if also != "" {
			if _, err := tx.Object(ctx, orgID, also); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if _, err := mergeTx(ctx, tx, orgID, name, set); err != nil {
			return err
		}
		if err := tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "a", Action: "merge", Name: name, Keys: slices.Collect(maps.Keys(set))}); err != nil {
			return err
		}
		return fail
	})
}

func testOrgsAndTokens(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	o := newOrg(t, s, "acme")
	newOrg(t, s, "beta")
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateOrg(ctx, store.Org{Name: "acme", DefaultRegion: "us-east"})
		return err
	}); !errors.Is(err, store.ErrExists) {
		t.Errorf("duplicate org: %v, want ErrExists", err)
	}
	got, err := s.Org(ctx, "acme")
	if err != nil || got.ID != o.ID || got.DefaultRegion != "us-west" || !got.CreatedAt.Equal(o.CreatedAt) {
		t.Errorf("Org: %+v %v, want %+v", got, err, o)
	}
	if _, err := s.Org(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing org: %v", err)
	}
	orgs, err := s.Orgs(ctx)
	if err != nil || len(orgs) != 2 || orgs[0].Name != "acme" || orgs[1].Name != "beta" {
		t.Errorf("Orgs: %+v %v", orgs, err)
	}
	created := time.Unix(1700000000, 123456789).UTC()
	revokedAt := created.Add(time.Hour)
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := tx.CreateToken(ctx, store.Token{ID: "tok_1", Hash: []byte("h1"), OrgID: o.ID, User: "ann", CreatedAt: created}); err != nil {
			return err
		}
		return tx.CreateToken(ctx, store.Token{ID: "tok_2", Hash: []byte("h2"), OrgID: o.ID, User: "bob", CreatedAt: created.Add(time.Second), RevokedAt: &revokedAt})
	})
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		return tx.CreateToken(ctx, store.Token{ID: "tok_3", Hash: []byte("h1"), OrgID: o.ID, User: "x"})
	}); !errors.Is(err, store.ErrExists) {
		t.Errorf("duplicate token hash: %v", err)
	}
	tok, err := s.TokenByHash(ctx, []byte("h1"))
	if err != nil || tok.ID != "tok_1" || tok.OrgName != "acme" || tok.OrgRegion != "us-west" || tok.User != "ann" || !tok.CreatedAt.Equal(created) || tok.RevokedAt != nil {
		t.Errorf("TokenByHash: %+v %v", tok, err)
	}
	if _, err := s.TokenByHash(ctx, []byte("nope")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing token: %v", err)
	}
	toks, err := s.Tokens(ctx, o.ID)
	if err != nil || len(toks) != 2 || toks[1].RevokedAt == nil || !toks[1].RevokedAt.Equal(revokedAt) {
		t.Errorf("Tokens: %+v %v", toks, err)
	}
	update(t, s, func(ctx context.Context, tx store.Tx) error { return tx.RevokeToken(ctx, "tok_1") })
	if tok, _ := s.TokenByHash(ctx, []byte("h1")); tok.RevokedAt == nil {
		t.Error("revoked token not marked revoked")
	}
	for _, id := range []string{"tok_1", "tok_nope"} {
		if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.RevokeToken(ctx, id) }); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("revoke %s again: %v", id, err)
		}
	}
}

func testObjectsAndValues(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	a, b := newOrg(t, s, "a"), newOrg(t, s, "b")
	now := time.Unix(1700000000, 987654321).UTC()
	want := store.Object{OrgID: a.ID, Name: "app", Kind: "SecretSet", Region: "eu-central",
		Labels: map[string]string{"team": "voice", "odd,key": "v=1"}, Keys: map[string]int{"A": 1, "B": 2},
		Version: 7, Generation: 1, State: "pending", CreatedAt: now, UpdatedAt: now}
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		id, err := tx.PutObject(ctx, want)
		want.ID = id
		if err != nil {
			return err
		}
		return tx.PutValues(ctx, id, []store.Value{{Key: "B", Size: 2, Ciphertext: []byte{0, 1, 2}}, {Key: "A", Size: 1, Ciphertext: []byte("x")}})
	})
	got, err := s.Object(ctx, a.ID, "app")
	if err != nil || got.ID != want.ID || !maps.Equal(got.Labels, want.Labels) || !maps.Equal(got.Keys, want.Keys) ||
		got.Version != 7 || got.Region != "eu-central" || !got.CreatedAt.Equal(now) || !got.UpdatedAt.Equal(now) || got.State != "pending" {
		t.Fatalf("Object: %+v %v\nwant %+v", got, err, want)
	}
	// Names are unique per organization, whatever the kind or region.
	err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.PutObject(ctx, store.Object{OrgID: a.ID, Name: "app", Kind: "ImagePullSecret", Region: "us-west", State: "pending", CreatedAt: now, UpdatedAt: now})
		return err
	})
	if !errors.Is(err, store.ErrExists) {
		t.Errorf("second object named app: %v, want ErrExists", err)
	}
	// Another organization has its own namespace.
	if _, err := s.Object(ctx, b.ID, "app"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("org b sees org a's object: %v", err)
	}
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.PutObject(ctx, store.Object{OrgID: b.ID, Name: "app", Kind: "ImagePullSecret", Region: "us-west", Host: "https://ghcr.io", Username: "u", State: "pending", CreatedAt: now, UpdatedAt: now})
		return err
	})
	vals, err := s.Values(ctx, want.ID)
	if err != nil || len(vals) != 2 || vals[0].Key != "A" || string(vals[0].Ciphertext) != "x" || vals[1].Size != 2 || string(vals[1].Ciphertext) != "\x00\x01\x02" {
		t.Errorf("Values: %+v %v", vals, err)
	}
	// Replace one value, remove another, in one transaction; then delete.
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := tx.PutValues(ctx, want.ID, []store.Value{{Key: "B", Size: 3, Ciphertext: []byte("new")}}); err != nil {
			return err
		}
		if err := tx.DeleteValues(ctx, want.ID, []string{"A", "MISSING"}); err != nil {
			return err
		}
		vals, err := tx.Values(ctx, want.ID)
		if err != nil || len(vals) != 1 || string(vals[0].Ciphertext) != "new" {
			t.Errorf("Values in the transaction that wrote them: %+v %v", vals, err)
		}
		return nil
	})
	if vals, _ := s.Values(ctx, want.ID); len(vals) != 1 || vals[0].Key != "B" || vals[0].Size != 3 {
		t.Errorf("after replacing B and removing A: %+v", vals)
	}
	update(t, s, func(ctx context.Context, tx store.Tx) error { return tx.DeleteObject(ctx, want.ID) })
	if _, err := s.Object(ctx, a.ID, "app"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted object: %v", err)
	}
	if vals, _ := s.Values(ctx, want.ID); len(vals) != 0 {
		t.Errorf("values of a deleted object remain: %+v", vals)
	}
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.DeleteObject(ctx, want.ID) }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	if o, err := s.Object(ctx, b.ID, "app"); err != nil || o.Host != "https://ghcr.io" || o.Username != "u" {
		t.Errorf("org b's object after org a's delete: %+v %v", o, err)
	}
}

func testList(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	a, b := newOrg(t, s, "a"), newOrg(t, s, "b")
	now := time.Now().UTC()
	names := []string{"zeta", "Alpha", "alpha-2", "beta", "a-1", "b"}
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		for i, n := range names {
			kind, region := "SecretSet", "us-west"
			if i%2 == 1 {
				kind, region = "ImagePullSecret", "eu-central"
			}
			o := store.Object{OrgID: a.ID, Name: n, Kind: kind, Region: region, Labels: map[string]string{"i": fmt.Sprint(i), "team": "x"},
				Keys: map[string]int{"K2": 2, "K1": 1}, Version: int64(i + 1), Generation: 1, State: "pending", CreatedAt: now, UpdatedAt: now}
			if _, err := tx.PutObject(ctx, o); err != nil {
				return err
			}
		}
		_, err := tx.PutObject(ctx, store.Object{OrgID: b.ID, Name: "other", Kind: "SecretSet", Region: "us-west", State: "pending", CreatedAt: now, UpdatedAt: now})
		return err
	})
	list := func(q store.ListQuery, limit int) []string {
		t.Helper()
		var out []string
		err := s.List(ctx, q, func(it *store.ListItem) (bool, error) {
			out = append(out, it.Name)
			if !slices.Equal(it.KeyNames, []string{"K1", "K2"}) || len(it.LabelPairs) != 4 || it.LabelPairs[0] != "i" || it.LabelPairs[2] != "team" {
				t.Errorf("%s: keys %v labels %v", it.Name, it.KeyNames, it.LabelPairs)
			}
			return len(out) < limit, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// Bytewise name order (upper case first), as SQLite sorts.
	if got := list(store.ListQuery{OrgID: a.ID}, 100); !slices.Equal(got, []string{"Alpha", "a-1", "alpha-2", "b", "beta", "zeta"}) {
		t.Errorf("list: %v", got)
	}
	if got := list(store.ListQuery{OrgID: a.ID, After: "alpha-2"}, 2); !slices.Equal(got, []string{"b", "beta"}) {
		t.Errorf("list after alpha-2, 2 items: %v", got)
	}
	if got := list(store.ListQuery{OrgID: a.ID, Kind: "ImagePullSecret"}, 100); !slices.Equal(got, []string{"Alpha", "b", "beta"}) {
		t.Errorf("list of kind: %v", got)
	}
	if got := list(store.ListQuery{OrgID: a.ID, Region: "us-west", Kind: "SecretSet"}, 100); !slices.Equal(got, []string{"a-1", "alpha-2", "zeta"}) {
		t.Errorf("list of region and kind: %v", got)
	}
	stop := errors.New("stop")
	if err := s.List(ctx, store.ListQuery{OrgID: b.ID}, func(*store.ListItem) (bool, error) { return true, stop }); !errors.Is(err, stop) {
		t.Errorf("callback error: %v", err)
	}
}

func testStatusUpdates(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	o := newOrg(t, s, "o")
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		now := time.Now()
		for i, kind := range []string{"ImagePullSecret", "SecretSet", "SecretSet"} {
			if _, err := tx.PutObject(ctx, store.Object{OrgID: o.ID, Name: fmt.Sprint("o", i), Kind: kind, Region: "us-west", Generation: 1, Version: 1, State: "pending", CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
		}
		return nil
	})
	p, err := s.Pending(ctx, "us-west", "ImagePullSecret", 10)
	if err != nil || len(p) != 1 || p[0].Name != "o0" {
		t.Fatalf("pending: %+v %v", p, err)
	}
	if n, err := s.SetStatus(ctx, []store.StatusUpdate{{ObjectID: p[0].ID, Generation: 2, State: "ready"}}); n != 0 || err != nil {
		t.Errorf("stale generation applied: %d %v", n, err)
	}
	if n, err := s.SetStatus(ctx, []store.StatusUpdate{{ObjectID: p[0].ID, Generation: 1, State: "failed", Message: "m"}}); n != 1 || err != nil {
		t.Errorf("status: %d %v", n, err)
	}
	if n, err := s.MarkPendingReady(ctx, "us-west", "SecretSet"); n != 2 || err != nil {
		t.Errorf("mark ready: %d %v", n, err)
	}
	if n, err := s.MarkPendingReady(ctx, "us-west", "SecretSet"); n != 0 || err != nil {
		t.Errorf("mark ready again: %d %v", n, err)
	}
	got, _ := s.Object(ctx, o.ID, "o0")
	if got.State != "failed" || got.Message != "m" {
		t.Errorf("o0: %s %s", got.State, got.Message)
	}
}

// A failing request rolls back only its own writes, also when many run at
// once (the SQLite store commits them in one batch).
func testUpdateIsolation(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	boom := errors.New("boom")
	var wg sync.WaitGroup
	results := make([]error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
				_, err := tx.CreateOrg(ctx, store.Org{Name: fmt.Sprint("org", i), DefaultRegion: "us-west"})
				if err != nil {
					return err
				}
				if err := tx.Audit(ctx, store.AuditRecord{Org: fmt.Sprint("org", i), Actor: "a", Action: "x"}); err != nil {
					return err
				}
				if i%3 == 0 {
					return boom // after writing: must be rolled back alone
				}
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range results {
		_, gerr := s.Org(ctx, fmt.Sprint("org", i))
		recs, _ := s.Audit(ctx, fmt.Sprint("org", i), 10)
		if i%3 == 0 {
			if !errors.Is(err, boom) || !errors.Is(gerr, store.ErrNotFound) || len(recs) != 0 {
				t.Errorf("request %d: %v, org lookup %v, audit %v", i, err, gerr, recs)
			}
		} else if err != nil || gerr != nil || len(recs) != 1 {
			t.Errorf("request %d: %v, org lookup %v, audit %v", i, err, gerr, recs)
		}
	}
	// A panic in fn is an error, not a crash, and writes nothing.
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.CreateOrg(ctx, store.Org{Name: "panicky", DefaultRegion: "us-west"}); err != nil {
			return err
		}
		panic("boom")
	})
	if _, gerr := s.Org(ctx, "panicky"); err == nil || !errors.Is(gerr, store.ErrNotFound) {
		t.Errorf("panic: %v, org %v", err, gerr)
	}
}

// Versions are unique and increase, across transactions and across stores
// on one database; they never fall below one read, nor below an imported one
// (for the store that imported and stores opened later).
func testVersions(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	seen := map[int64]bool{}
	var last int64
	for i := range 6 {
		s := []store.Store{s1, s2}[i%2]
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			v, err := tx.NextVersion(ctx)
			if err != nil {
				return err
			}
			w, err := tx.NextVersion(ctx)
			if seen[v] || seen[w] || w <= v {
				t.Errorf("versions %d, %d (seen %v)", v, w, seen)
			}
			seen[v], seen[w] = true, true
			if i < 2 && v <= last {
				t.Errorf("version %d after %d", v, last)
			}
			last = w
			return err
		})
	}
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.AdvanceVersion(ctx, 1_000_000) })
	for _, s := range []store.Store{s1, open(t)} {
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			v, err := tx.NextVersion(ctx)
			if v <= 1_000_000 {
				t.Errorf("version %d after AdvanceVersion(1000000)", v)
			}
			return err
		})
	}
	// An object written by one store with a high version gets a higher one
	// when the other store writes it next.
	o := newOrg(t, s1, "o")
	for range 3 {
		for _, s := range []store.Store{s1, s2, s2, s1} {
			var before, after int64
			if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
				cur, err := tx.Object(ctx, o.ID, "x")
				before = cur.Version
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := merge(s, o.ID, "x", map[string]int{"K": 1}, nil); err != nil {
				t.Fatal(err)
			}
			cur, _ := s.Object(ctx, o.ID, "x")
			after = cur.Version
			if after <= before {
				t.Errorf("version went from %d to %d", before, after)
			}
		}
	}
}

// Concurrent read-modify-writes of one object from two stores (two
// processes or replicas) never lose a key, and exactly one creates it.
func testConcurrentMerges(t *testing.T, open Opener) {
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	const n = 60
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := []store.Store{s1, s2}[i%2]
			errs[i] = merge(s, o.ID, "busy", map[string]int{fmt.Sprintf("K%02d", i): i}, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("merge %d: %v", i, err)
		}
	}
	got, err := s2.Object(context.Background(), o.ID, "busy")
	if err != nil || len(got.Keys) != n {
		t.Fatalf("after %d concurrent merges: %d keys, %v", n, len(got.Keys), err)
	}
	if got.Generation != n {
		t.Errorf("generation %d after %d merges", got.Generation, n)
	}
	vals, _ := s1.Values(context.Background(), got.ID)
	if len(vals) != n {
		t.Errorf("%d values after %d merges", len(vals), n)
	}
}

// Many first writes of one name at once: one creates it, the others find it.
func testConcurrentCreate(t *testing.T, open Opener) {
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	for round := range 5 {
		name := fmt.Sprint("new-", round)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = merge([]store.Store{s1, s2}[i%2], o.ID, name, map[string]int{fmt.Sprint("K", i): 1}, nil)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("%s: writer %d: %v", name, i, err)
			}
		}
		if got, err := s1.Object(context.Background(), o.ID, name); err != nil || len(got.Keys) != 8 || got.Generation != 8 {
			t.Errorf("%s: %d keys, generation %d, %v", name, len(got.Keys), got.Generation, err)
		}
	}
}

// A write never serves a rolled-back write, and sees commits made by
// another store on the same database (another process or replica).
func testSecondProcess(t *testing.T, open Opener) {
	ctx := context.Background()
	s1 := open(t)
	o := newOrg(t, s1, "o")
	readKeys := func(s store.Store) map[string]int {
		t.Helper()
		var keys map[string]int
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			cur, err := tx.Object(ctx, o.ID, "x")
			keys = cur.Keys
			return err
		})
		return keys
	}
	if err := merge(s1, o.ID, "x", map[string]int{"A": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := merge(s1, o.ID, "x", map[string]int{"B": 1}, errors.New("fail")); err == nil {
		t.Fatal("expected failure")
	}
	if k := readKeys(s1); len(k) != 1 || k["A"] != 1 {
		t.Errorf("after a failed write: %v", k)
	}
	s2 := open(t)
	if err := merge(s2, o.ID, "x", map[string]int{"C": 3}, nil); err != nil {
		t.Fatal(err)
	}
	if k := readKeys(s1); len(k) != 2 || k["C"] != 3 {
		t.Errorf("a commit by another store is not seen: %v", k)
	}
	// A status update by the other store is seen by the next write.
	cur, _ := s1.Object(ctx, o.ID, "x")
	if n, err := s2.MarkPendingReady(ctx, "us-west", "SecretSet"); n != 1 || err != nil {
		t.Fatalf("mark ready: %d %v", n, err)
	}
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		got, err := tx.Object(ctx, o.ID, "x")
		if err != nil || got.State != "ready" || got.Generation != cur.Generation {
			t.Errorf("after MarkPendingReady the writer reads %+v, %v", got, err)
		}
		return nil
	})
	// Delete by one store, read by the other in a write.
	update(t, s2, func(ctx context.Context, tx store.Tx) error {
		got, err := tx.Object(ctx, o.ID, "x")
		if err != nil {
			return err
		}
		if err := tx.DeleteObject(ctx, got.ID); err != nil {
			return err
		}
		if _, err := tx.Object(ctx, o.ID, "x"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleted object still read in its transaction: %v", err)
		}
		return nil
	})
	if err := s1.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Object(ctx, o.ID, "x")
		return err
	}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("object deleted by another store read later: %v", err)
	}
}

// Every successful request's audit records are written, whatever their
// number, and no failed request's.
// Concurrent requests write the audit records of the successful ones only,
// all of them, whatever their number. The first request holds the store
// until the others are queued, so that a store that batches commits (SQLite
// writes audit rows in prepared chunks of 128, 64, ... 1) gets them in one
// batch.
func testAudit(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	release := make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			<-release
			return tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "a", Action: "merge", Name: "first"})
		})
	}()
	const n = 199
	boom := errors.New("boom")
	var wg sync.WaitGroup
	results := make([]error, n)
	at := time.Unix(1700000000, 5).UTC()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
				if err := tx.Audit(ctx, store.AuditRecord{At: at, Org: "o", Actor: "a", Action: "merge", Kind: "SecretSet", Name: fmt.Sprint("n", i), Region: "us-east", Keys: []string{"B", "A"}}); err != nil {
					return err
				}
				if i%10 == 3 {
					return boom
				}
				return nil
			})
		}()
	}
	time.Sleep(200 * time.Millisecond) // let the n requests queue
	close(release)
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"first": true}
	for i, err := range results {
		switch {
		case i%10 == 3 && !errors.Is(err, boom):
			t.Fatalf("request %d: got %v, want boom", i, err)
		case i%10 != 3 && err != nil:
			t.Fatalf("request %d: %v", i, err)
		case err == nil:
			want[fmt.Sprint("n", i)] = true
		}
	}
	recs, err := s.Audit(ctx, "o", 1000)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range recs {
		if got[r.Name] {
			t.Errorf("audit record %s written twice", r.Name)
		}
		got[r.Name] = true
		if r.Name != "first" && (fmt.Sprint(r.Keys) != "[A B]" || !r.At.Equal(at) || r.Region != "us-east" || r.Kind != "SecretSet" || r.Actor != "a") {
			t.Errorf("audit record %+v", r)
		}
	}
	if len(got) != len(want) {
		t.Errorf("audit has %d records, want %d", len(got), len(want))
	}
	for name := range want {
		if !got[name] {
			t.Errorf("audit lacks %s", name)
		}
	}
	// Newest first, limited.
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "a", Action: "delete", Name: "last"})
	})
	if recs, err := s.Audit(ctx, "o", 1); err != nil || len(recs) != 1 || recs[0].Name != "last" || recs[0].Keys == nil {
		t.Errorf("newest audit record: %+v %v", recs, err)
	}
	if recs, _ := s.Audit(ctx, "other", 10); len(recs) != 0 {
		t.Errorf("audit of another org: %+v", recs)
	}
}

// An update that keeps or changes state and message stores exactly what it
// was given.
func testUpdateState(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	o := newOrg(t, s, "o")
	setState := func(state, msg string) {
		t.Helper()
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			cur, err := tx.Object(ctx, o.ID, "x")
			if err != nil {
				return err
			}
			cur.State, cur.Message = state, msg
			cur.Keys = map[string]int{"K": len(state)}
			cur.Version++
			_, err = tx.PutObject(ctx, cur)
			return err
		})
	}
	check := func(state, msg string) {
		t.Helper()
		cur, err := s.Object(ctx, o.ID, "x")
		if err != nil || cur.State != state || cur.Message != msg || cur.Keys["K"] != len(state) {
			t.Fatalf("row %+v, %v; want state %q message %q", cur, err, state, msg)
		}
	}
	if err := merge(s, o.ID, "x", map[string]int{"K": len("pending")}, nil); err != nil {
		t.Fatal(err)
	}
	setState("pending", "")
	check("pending", "")
	setState("failed", "m1")
	check("failed", "m1")
	setState("failed", "m2")
	check("failed", "m2")
	cur, _ := s.Object(ctx, o.ID, "x")
	if n, err := s.SetStatus(ctx, []store.StatusUpdate{{ObjectID: cur.ID, Generation: cur.Generation, State: "ready"}}); n != 1 || err != nil {
		t.Fatalf("status: %d %v", n, err)
	}
	setState("pending", "")
	check("pending", "")
	if p, err := s.Pending(ctx, "us-west", "SecretSet", 10); err != nil || len(p) != 1 {
		t.Fatalf("pending after a write: %v %v", p, err)
	}
	if n, err := s.MarkPendingReady(ctx, "us-west", "SecretSet"); n != 1 || err != nil {
		t.Fatalf("mark ready: %d %v", n, err)
	}
	setState("pending", "")
	check("pending", "")
}

// Claims hand each pending object to one holder at a time, until its lease
// runs out or it is written again.
func testClaims(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	now := time.Now().UTC()
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		for i := range 10 {
			if _, err := tx.PutObject(ctx, store.Object{OrgID: o.ID, Name: fmt.Sprintf("ips-%02d", i), Kind: "ImagePullSecret", Region: "us-west",
				Host: "https://r", Username: "u", Version: int64(i + 1), Generation: 1, State: "pending", CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
		}
		_, err := tx.PutObject(ctx, store.Object{OrgID: o.ID, Name: "elsewhere", Kind: "ImagePullSecret", Region: "us-east", Generation: 1, State: "pending", CreatedAt: now, UpdatedAt: now})
		return err
	})
	// Holders claiming at once get disjoint objects.
	var wg sync.WaitGroup
	got := make([][]store.Object, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			got[i], err = []store.Store{s1, s2}[i%2].ClaimPending(ctx, "us-west", "ImagePullSecret", fmt.Sprint("h", i), time.Minute, 3)
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	seen := map[int64]string{}
	for i, objs := range got {
		if len(objs) > 3 {
			t.Errorf("holder %d got %d objects, limit 3", i, len(objs))
		}
		for _, ob := range objs {
			if h, dup := seen[ob.ID]; dup {
				t.Errorf("%s claimed by %s and h%d", ob.Name, h, i)
			}
			seen[ob.ID] = fmt.Sprint("h", i)
			if ob.Region != "us-west" || ob.Generation != 1 || ob.Host != "https://r" {
				t.Errorf("claimed %+v", ob)
			}
		}
	}
	rest, err := s1.ClaimPending(ctx, "us-west", "ImagePullSecret", "h9", time.Minute, 100)
	if err != nil || len(seen) != 9 || len(rest) != 1 {
		t.Fatalf("claimed %d then %d of 10: %v", len(seen), len(rest), err)
	}
	if more, _ := s2.ClaimPending(ctx, "us-west", "ImagePullSecret", "h8", time.Minute, 100); len(more) != 0 {
		t.Errorf("claimed objects claimed again: %d", len(more))
	}
	// A new write (a new generation) is claimable at once.
	first := rest[0]
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Object(ctx, o.ID, first.Name)
		if err != nil {
			return err
		}
		cur.Generation++
		_, err = tx.PutObject(ctx, cur)
		return err
	})
	again, err := s2.ClaimPending(ctx, "us-west", "ImagePullSecret", "h7", time.Minute, 100)
	if err != nil || len(again) != 1 || again[0].ID != first.ID || again[0].Generation != 2 {
		t.Fatalf("claim of a rewritten object: %+v %v", again, err)
	}
	// An expired lease is claimable; a renewed one is not.
	short, err := s1.ClaimPending(ctx, "us-east", "ImagePullSecret", "h1", 200*time.Millisecond, 10)
	if err != nil || len(short) != 1 {
		t.Fatalf("claim in us-east: %+v %v", short, err)
	}
	time.Sleep(120 * time.Millisecond)
	if err := s1.RenewClaims(ctx, "h1", []int64{short[0].ID}, 700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // past the first lease, within the renewed one
	if c, _ := s2.ClaimPending(ctx, "us-east", "ImagePullSecret", "h2", time.Minute, 10); len(c) != 0 {
		t.Errorf("a renewed claim was taken over")
	}
	if err := s2.RenewClaims(ctx, "h2", []int64{short[0].ID}, time.Hour); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	if c, _ := s2.ClaimPending(ctx, "us-east", "ImagePullSecret", "h2", time.Minute, 10); len(c) != 1 {
		t.Errorf("an expired claim was not taken over (another holder's renewal must not count): %v", c)
	}
	// Ready objects are never claimed.
	if n, _ := s1.SetStatus(ctx, []store.StatusUpdate{{ObjectID: short[0].ID, Generation: 1, State: "ready"}}); n != 1 {
		t.Fatal("status not applied")
	}
	time.Sleep(10 * time.Millisecond)
	if c, _ := s1.ClaimPending(ctx, "us-east", "ImagePullSecret", "h3", 0, 10); len(c) != 0 {
		t.Errorf("a ready object was claimed")
	}
}

func testTokensEpoch(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	e0, err := s2.TokensEpoch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		return tx.CreateToken(ctx, store.Token{ID: "tok_a", Hash: []byte("a"), OrgID: o.ID, User: "u"})
	})
	if e, _ := s2.TokensEpoch(ctx); e != e0 {
		t.Errorf("creating a token changed the epoch")
	}
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.RevokeToken(ctx, "tok_a") })
	e1, err := s2.TokensEpoch(ctx)
	if err != nil || e1 == e0 {
		t.Errorf("revoking a token left the epoch at %d (%v)", e1, err)
	}
}

// Settings: unset reads nil; the first InitSetting of a name wins, for
// every store on the database, and later ones return its value.
// SampleValue finds a stored value with the names it is bound to, and none
// in an empty database.
func testSettings(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	if v, err := s1.Setting(ctx, "check"); err != nil || v != nil {
		t.Fatalf("unset setting: %q, %v", v, err)
	}
	if _, ok, err := s1.SampleValue(ctx); err != nil || ok {
		t.Fatalf("SampleValue of an empty database: ok %v, %v", ok, err)
	}
	got, err := s1.InitSetting(ctx, "check", []byte{0, 1, 2, 0xff})
	if err != nil || string(got) != "\x00\x01\x02\xff" {
		t.Fatalf("first InitSetting: %q, %v", got, err)
	}
	got, err = s2.InitSetting(ctx, "check", []byte("other"))
	if err != nil || string(got) != "\x00\x01\x02\xff" {
		t.Fatalf("second InitSetting (another store): %q, %v, want the first value", got, err)
	}
	if v, err := s2.Setting(ctx, "check"); err != nil || string(v) != "\x00\x01\x02\xff" {
		t.Fatalf("Setting after InitSetting: %q, %v", v, err)
	}
	o := newOrg(t, s1, "acme")
	if err := merge(s1, o.ID, "bot", map[string]int{"K": 4}, nil); err != nil {
		t.Fatal(err)
	}
	sv, ok, err := s2.SampleValue(ctx)
	if err != nil || !ok {
		t.Fatalf("SampleValue: ok %v, %v", ok, err)
	}
	if sv.Org != "acme" || sv.Region != "us-west" || sv.Name != "bot" || sv.Value.Key != "K" || string(sv.Value.Ciphertext) != "ct-K" {
		t.Errorf("SampleValue = %+v", sv)
	}
}

// Ownership (Managed, ApplySet) is stored and read back by this store and
// by a second one on the same database; AppliedObjects selects the managed
// objects of one apply set only, including the transaction's own writes,
// and an imperative rewrite (Managed false) takes an object out of its set.
func testAppliedObjects(t *testing.T, open Opener) {
	ctx := context.Background()
	s, s2 := open(t), open(t)
	o := newOrg(t, s, "o")
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		now := time.Now().UTC()
		for i, x := range []struct {
			name    string
			managed bool
			set     string
		}{{"a", true, ""}, {"b", true, "prod"}, {"c", false, ""}, {"d", true, "prod"}, {"e", false, "prod"}} {
			if _, err := tx.PutObject(ctx, store.Object{OrgID: o.ID, Name: x.name, Kind: "SecretSet", Region: "us-west",
				Version: int64(i + 1), Generation: 1, State: "pending", CreatedAt: now, UpdatedAt: now, Managed: x.managed, ApplySet: x.set}); err != nil {
				return err
			}
		}
		got, err := tx.AppliedObjects(ctx, o.ID, "prod")
		if err != nil {
			return err
		}
		if names := fmt.Sprint(objNames(got)); names != "[b d]" {
			t.Errorf("in the writing transaction: %s, want [b d]", names)
		}
		return nil
	})
	check := func(s store.Store, set, want string) {
		t.Helper()
		var got []store.Object
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			var err error
			got, err = tx.AppliedObjects(ctx, o.ID, set)
			return err
		})
		if names := fmt.Sprint(objNames(got)); names != want {
			t.Errorf("apply set %q: %s, want %s", set, names, want)
		}
		for _, obj := range got {
			if !obj.Managed || obj.ApplySet != set || obj.Version == 0 || obj.Kind != "SecretSet" {
				t.Errorf("applied object %+v", obj)
			}
		}
	}
	for _, st := range []store.Store{s, s2} {
		check(st, "", "[a]")
		check(st, "prod", "[b d]")
		check(st, "other", "[]")
		if b, err := st.Object(ctx, o.ID, "b"); err != nil || !b.Managed || b.ApplySet != "prod" {
			t.Errorf("read back b: %+v %v", b, err)
		}
		if e, err := st.Object(ctx, o.ID, "e"); err != nil || e.Managed || e.ApplySet != "prod" {
			t.Errorf("read back e: %+v %v", e, err)
		}
		listed := map[string]string{}
		if err := st.List(ctx, store.ListQuery{OrgID: o.ID}, func(it *store.ListItem) (bool, error) {
			listed[it.Name] = fmt.Sprintf("%v/%s", it.Managed, it.ApplySet)
			return true, nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(listed); got != "map[a:true/ b:true/prod c:false/ d:true/prod e:false/prod]" {
			t.Errorf("listed ownership: %s", got)
		}
	}
	// An imperative rewrite (Managed false) leaves the set, seen by both.
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		d, err := tx.Object(ctx, o.ID, "d")
		if err != nil {
			return err
		}
		d.Managed, d.ApplySet = false, ""
		d.Version = 100
		_, err = tx.PutObject(ctx, d)
		return err
	})
	check(s, "prod", "[b]")
	check(s2, "prod", "[b]")
	if p, err := s2.Pending(ctx, "us-west", "SecretSet", 10); err != nil || len(p) != 5 {
		t.Fatalf("pending: %d %v", len(p), err)
	} else {
		for _, obj := range p {
			if obj.Name == "b" && (!obj.Managed || obj.ApplySet != "prod") {
				t.Errorf("pending b: %+v", obj)
			}
		}
	}
}

func objNames(objs []store.Object) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.Name)
	}
	return out
}

// Many concurrent updates that declare their objects, from two stores (a
// store may run them in shared transactions): the failing ones leave
// nothing — whether they failed before any of their writes reached the
// database or after creating an object — and the others keep every key,
// including updates that also lock an object they did not declare.
func testGroupedUpdates(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	boom := errors.New("boom")
	const n = 160
	var wg sync.WaitGroup
	errs := make([]error, n)
	name := func(i int) string {
		if i%7 == 0 {
			return fmt.Sprint("new-", i) // created, then failing when i%4 == 0 too
		}
		return fmt.Sprint("set-", i%5)
	}
	failing := func(i int) bool { return i%4 == 0 }
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var fail error
			if failing(i) {
				fail = boom
			}
			also := ""
			if i%10 == 3 {
				also = fmt.Sprint("set-", (i+2)%5)
			}
			errs[i] = mergeAlso([]store.Store{s1, s2}[i%2], o.ID, name(i), also, map[string]int{fmt.Sprintf("K%03d", i): i + 1}, fail)
		}()
	}
	wg.Wait()
	want := map[string]map[string]int{}
	merged := 0
	for i, err := range errs {
		if failing(i) {
			if !errors.Is(err, boom) {
				t.Errorf("update %d: %v, want boom", i, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("update %d: %v", i, err)
			continue
		}
		merged++
		if want[name(i)] == nil {
			want[name(i)] = map[string]int{}
		}
		want[name(i)][fmt.Sprintf("K%03d", i)] = i + 1
	}
	for i := range n {
		got, err := s2.Object(ctx, o.ID, name(i))
		w, exists := want[name(i)]
		if !exists {
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s exists after only failed updates: %+v %v", name(i), got, err)
			}
			continue
		}
		if err != nil || !maps.Equal(got.Keys, w) || got.Generation != int64(len(w)) {
			t.Errorf("%s: keys %v generation %d (%v), want %v", name(i), got.Keys, got.Generation, err, w)
			continue
		}
		vals, err := s1.Values(ctx, got.ID)
		if err != nil || len(vals) != len(w) {
			t.Errorf("%s: %d values %v, want %d", name(i), len(vals), err, len(w))
		}
	}
	if recs, err := s1.Audit(ctx, "o", 1000); err != nil || len(recs) != merged {
		t.Errorf("%d audit records (%v), want %d", len(recs), err, merged)
	}
}

// mergeVersion is merge that also records the object's version and purges
// past the organization's limit, in the same transaction, as the platform
// does.
func mergeVersion(s store.Store, orgID int64, name string, set map[string]int) error {
	ctx := store.WithObjects(context.Background(), store.ObjectKey{OrgID: orgID, Name: name})
	return s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		o, err := mergeTx(ctx, tx, orgID, name, set)
		if err != nil {
			return err
		}
		if err := tx.PutVersion(ctx, store.Version{ObjectID: o.ID, Version: o.Generation, Actor: "a", Source: "set",
			Added: slices.Sorted(maps.Keys(set)), Keys: o.Keys, Values: mergeValues(set)}); err != nil {
			return err
		}
		return tx.PurgeVersions(ctx, orgID, o.ID, o.Generation)
	})
}

// History: versions numbered without gap or duplicate under concurrent
// writes from two store handles (two processes, or replicas), each holding
// a copy of the values of its moment; the organization's limit purges the
// oldest; a delete takes the history along.
func testHistory(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.SetHistoryLimit(ctx, o.ID, 100) })
	if n, err := s2.HistoryLimit(ctx, o.ID); err != nil || n != 100 {
		t.Fatalf("history limit %d (%v), want 100", n, err)
	}
	if err := mergeVersion(s1, o.ID, "bot", map[string]int{"K000": 1}); err != nil {
		t.Fatal(err)
	}
	const n = 100
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = mergeVersion([]store.Store{s1, s2}[i%2], o.ID, "bot", map[string]int{fmt.Sprintf("K%03d", i+1): 1})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("merge %d: %v", i, err)
		}
	}
	obj, err := s2.Object(ctx, o.ID, "bot")
	if err != nil || obj.Generation != n+1 {
		t.Fatalf("generation %d (%v), want %d", obj.Generation, err, n+1)
	}
	vs, err := s1.Versions(ctx, obj.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 100 || vs[0].Version != n+1 || vs[99].Version != 2 {
		t.Fatalf("%d versions kept (newest %v), want 101 down to 2", len(vs), vs[0].Version)
	}
	for i, v := range vs {
		if v.Version != int64(n+1-i) || len(v.Keys) != int(v.Version) || len(v.Added) != 1 {
			t.Fatalf("version %d (item %d): %d keys, added %v", v.Version, i, len(v.Keys), v.Added)
		}
	}
	// Each version holds the values of its moment.
	var v50 store.Version
	update(t, s2, func(ctx context.Context, tx store.Tx) error {
		var err error
		v50, err = tx.Version(ctx, obj.ID, 50)
		return err
	})
	if len(v50.Values) != 50 || string(v50.Values[0].Ciphertext) != "ct-K000" {
		t.Errorf("version 50: %d values", len(v50.Values))
	}
	// A version written twice is refused.
	err = s1.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		return tx.PutVersion(ctx, store.Version{ObjectID: obj.ID, Version: 50, Actor: "a", Source: "set"})
	})
	if err == nil {
		t.Error("a second version 50 was stored")
	}
	// A lower limit purges at the next write.
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.SetHistoryLimit(ctx, o.ID, 3) })
	if err := mergeVersion(s2, o.ID, "bot", map[string]int{"K000": 2}); err != nil {
		t.Fatal(err)
	}
	if vs, err = s1.Versions(ctx, obj.ID, 0, 1000); err != nil || len(vs) != 3 || vs[2].Version != n {
		t.Fatalf("after purge: %d versions (%v)", len(vs), err)
	}
	if _, err := s1.Version(ctx, obj.ID, 50); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("purged version 50: %v, want ErrNotFound", err)
	}
	if paged, err := s1.Versions(ctx, obj.ID, vs[0].Version, 1); err != nil || len(paged) != 1 || paged[0].Version != vs[1].Version {
		t.Errorf("page before %d: %+v (%v)", vs[0].Version, paged, err)
	}
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.DeleteObject(ctx, obj.ID) })
	if vs, err := s2.Versions(ctx, obj.ID, 0, 10); err != nil || len(vs) != 0 {
		t.Errorf("history of a deleted object: %d versions (%v)", len(vs), err)
	}
	if err := s1.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.SetHistoryLimit(ctx, 1<<40, 5) }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("history limit of a missing organization: %v", err)
	}
}

// DeltaWrite is a write of an object's contents: the values it sets (key
// → ciphertext), the keys it removes, its labels.
type DeltaWrite struct {
	Set     map[string]string
	Removed []string
	Labels  map[string]string
}

// WriteDelta writes w as the next generation of object name (creating
// it), its version and the purge, as the platform does, and returns the
// object after it.
func WriteDelta(t *testing.T, s store.Store, orgID int64, name string, w DeltaWrite) store.Object {
	t.Helper()
	var o store.Object
	ctx := store.WithObjects(context.Background(), store.ObjectKey{OrgID: orgID, Name: name})
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		var err error
		o, err = tx.Object(ctx, orgID, name)
		if errors.Is(err, store.ErrNotFound) {
			o = store.Object{OrgID: orgID, Name: name, Kind: "SecretSet", Region: "us-west", CreatedAt: time.Now().UTC()}
		} else if err != nil {
			return err
		}
		before := o.Keys
		o.Keys = maps.Clone(o.Keys)
		if o.Keys == nil {
			o.Keys = map[string]int{}
		}
		var vals []store.Value
		var added, changed []string
		for _, k := range slices.Sorted(maps.Keys(w.Set)) {
			if _, had := before[k]; had {
				changed = append(changed, k)
			} else {
				added = append(added, k)
			}
			o.Keys[k] = len(w.Set[k])
			vals = append(vals, store.Value{Key: k, Size: len(w.Set[k]), Ciphertext: []byte(w.Set[k])})
		}
		for _, k := range w.Removed {
			delete(o.Keys, k)
		}
		o.Labels = w.Labels
		if o.Version, err = tx.NextVersion(ctx); err != nil {
			return err
		}
		o.Generation++
		o.State, o.UpdatedAt = "pending", time.Now().UTC()
		if o.ID, err = tx.PutObject(ctx, o); err != nil {
			return err
		}
		if err := tx.DeleteValues(ctx, o.ID, w.Removed); err != nil {
			return err
		}
		if err := tx.PutValues(ctx, o.ID, vals); err != nil {
			return err
		}
		if err := tx.PutVersion(ctx, store.Version{ObjectID: o.ID, Version: o.Generation, Actor: "a", Source: "set",
			Added: added, Changed: changed, Removed: w.Removed, Labels: o.Labels, Keys: o.Keys, Values: vals}); err != nil {
			return err
		}
		return tx.PurgeVersions(ctx, orgID, o.ID, o.Generation)
	})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// versionValues reads version v of object id as a transaction does (what
// a rollback writes back): key → ciphertext; nil when it is purged.
func versionValues(t *testing.T, s store.Store, id, v int64) map[string]string {
	t.Helper()
	var got map[string]string
	err := s.Update(context.Background(), func(ctx context.Context, tx store.Tx) error {
		ver, err := tx.Version(ctx, id, v)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		got = map[string]string{}
		for _, val := range ver.Values {
			if val.Size != len(val.Ciphertext) {
				return fmt.Errorf("version %d: key %s has size %d, want %d", v, val.Key, val.Size, len(val.Ciphertext))
			}
			got[val.Key] = string(val.Ciphertext)
		}
		if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(ver.Keys))) {
			return fmt.Errorf("version %d: values of %v, header keys %v", v, slices.Sorted(maps.Keys(got)), ver.Keys)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// History stores what each write changed and reads every kept version
// whole: a key removed then added again, a version whose values all
// stayed (labels only), and the versions kept past a purge that read
// values written before the oldest kept version (what a rollback across
// the purge boundary writes back).
func testHistoryDeltas(t *testing.T, open Opener) {
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.SetHistoryLimit(ctx, o.ID, 10) })
	writes := []DeltaWrite{
		{Set: map[string]string{"A": "a1", "B": "b1"}},              // 1
		{Set: map[string]string{"A": "a2"}},                         // 2
		{Removed: []string{"B"}},                                    // 3
		{Labels: map[string]string{"team": "voice"}},                // 4: no value changes
		{Set: map[string]string{"B": "b5"}},                         // 5: B again
		{Set: map[string]string{"B": "b6"}, Removed: []string{"A"}}, // 6
		{Set: map[string]string{"A": "a7"}},                         // 7: A again
	}
	want := []map[string]string{
		{"A": "a1", "B": "b1"},
		{"A": "a2", "B": "b1"},
		{"A": "a2"},
		{"A": "a2"},
		{"A": "a2", "B": "b5"},
		{"B": "b6"},
		{"A": "a7", "B": "b6"},
	}
	var obj store.Object
	for i, w := range writes {
		obj = WriteDelta(t, []store.Store{s1, s2}[i%2], o.ID, "bot", w)
	}
	for i, w := range want {
		if got := versionValues(t, s2, obj.ID, int64(i+1)); !maps.Equal(got, w) {
			t.Errorf("version %d: values %v, want %v", i+1, got, w)
		}
	}
	if vals, err := s1.Values(context.Background(), obj.ID); err != nil || len(vals) != 2 {
		t.Errorf("current values %v (%v), want A and B", vals, err)
	}
	// A limit of 2: the next write (A again) keeps versions 7 and 8; B of
	// both was written at 6, before the oldest kept version, and A of 7
	// at 7, the row just before the one of 8.
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.SetHistoryLimit(ctx, o.ID, 2) })
	obj = WriteDelta(t, s2, o.ID, "bot", DeltaWrite{Set: map[string]string{"A": "a8"}, Labels: map[string]string{"team": "ops"}})
	for v := int64(1); v <= 6; v++ {
		if got := versionValues(t, s1, obj.ID, v); got != nil {
			t.Errorf("version %d kept after the purge: %v", v, got)
		}
	}
	for v, w := range map[int64]map[string]string{7: want[6], 8: {"A": "a8", "B": "b6"}} {
		if got := versionValues(t, s1, obj.ID, v); !maps.Equal(got, w) {
			t.Errorf("version %d after the purge: values %v, want %v", v, got, w)
		}
	}
	// A limit of 1 and a write that removes B: only version 9 remains,
	// without B.
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.SetHistoryLimit(ctx, o.ID, 1) })
	obj = WriteDelta(t, s1, o.ID, "bot", DeltaWrite{Removed: []string{"B"}})
	if got := versionValues(t, s2, obj.ID, 9); !maps.Equal(got, map[string]string{"A": "a8"}) {
		t.Errorf("version 9: values %v, want A only", got)
	}
	if got := versionValues(t, s2, obj.ID, 8); got != nil {
		t.Errorf("version 8 kept with a limit of 1: %v", got)
	}
	// B added again after its removal was purged.
	obj = WriteDelta(t, s2, o.ID, "bot", DeltaWrite{Set: map[string]string{"B": "b10"}})
	if got := versionValues(t, s1, obj.ID, 10); !maps.Equal(got, map[string]string{"A": "a8", "B": "b10"}) {
		t.Errorf("version 10: values %v, want A and B", got)
	}
}

// Sealing keys are kept per organization in Seq order, read back by a
// second store, refused when Seq or ID is taken, retired once (the first
// time stays), and isolated between organizations.
func testSealingKeys(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	a, b := newOrg(t, s1, "acme"), newOrg(t, s1, "other")
	if ks, err := s2.SealingKeys(ctx, a.ID); err != nil || len(ks) != 0 {
		t.Fatalf("keys of a new organization: %v, %v", ks, err)
	}
	at := time.Unix(1700000000, 123).UTC()
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		for i, id := range []string{"k1", "k2"} {
			if err := tx.PutSealingKey(ctx, store.SealingKey{OrgID: a.ID, Seq: int64(i + 1), ID: id, Recipient: "age1" + id, Identity: []byte{0, byte(i), 0xff}, CreatedAt: at}); err != nil {
				return err
			}
		}
		return tx.PutSealingKey(ctx, store.SealingKey{OrgID: b.ID, Seq: 1, ID: "k1", Recipient: "age1b", Identity: []byte("b")})
	})
	for name, k := range map[string]store.SealingKey{
		"same seq": {OrgID: a.ID, Seq: 2, ID: "k3", Recipient: "r", Identity: []byte("x")},
		"same id":  {OrgID: a.ID, Seq: 3, ID: "k2", Recipient: "r", Identity: []byte("x")},
	} {
		err := s2.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.PutSealingKey(ctx, k) })
		if !errors.Is(err, store.ErrExists) {
			t.Errorf("PutSealingKey with the %s: %v, want ErrExists", name, err)
		}
	}
	ks, err := s2.SealingKeys(ctx, a.ID)
	if err != nil || len(ks) != 2 {
		t.Fatalf("SealingKeys: %v, %v", ks, err)
	}
	if k := ks[1]; k.Seq != 2 || k.ID != "k2" || k.Recipient != "age1k2" || string(k.Identity) != "\x00\x01\xff" || !k.CreatedAt.Equal(at) || k.RetiredAt != nil {
		t.Errorf("second key = %+v", k)
	}
	retired := at.Add(time.Hour)
	update(t, s2, func(ctx context.Context, tx store.Tx) error { return tx.RetireSealingKey(ctx, a.ID, "k1", retired) })
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		if err := tx.RetireSealingKey(ctx, a.ID, "k1", retired.Add(time.Hour)); err != nil {
			return err
		}
		ks, err := tx.SealingKeys(ctx, a.ID)
		if err != nil || len(ks) != 2 || ks[0].RetiredAt == nil || !ks[0].RetiredAt.Equal(retired) {
			t.Errorf("keys in the transaction after retiring k1 twice: %+v, %v", ks, err)
		}
		return nil
	})
	err = s1.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.RetireSealingKey(ctx, a.ID, "nope", retired) })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("retiring an unknown key: %v, want ErrNotFound", err)
	}
	if ks, err := s1.SealingKeys(ctx, b.ID); err != nil || len(ks) != 1 || ks[0].Recipient != "age1b" || ks[0].RetiredAt != nil {
		t.Errorf("the other organization's keys: %+v, %v", ks, err)
	}
}

// testDigests: the values' digests an object carries come back as written,
// through the writing store (cached or not) and another one, and a write
// without them leaves none.
func testDigests(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	org := newOrg(t, s1, "o")
	key := store.ObjectKey{OrgID: org.ID, Name: "app"}
	digests := map[string][]byte{"A": bytes.Repeat([]byte{0xfb}, 16), "C": {0, 1, 2}}
	write := func(digests map[string][]byte) {
		t.Helper()
		update(t, s1, func(ctx context.Context, tx store.Tx) error {
			o, err := tx.Object(ctx, org.ID, "app")
			if errors.Is(err, store.ErrNotFound) {
				now := time.Now().UTC()
				o = store.Object{OrgID: org.ID, Name: "app", Kind: "SecretSet", Region: "us-west", CreatedAt: now, UpdatedAt: now}
			} else if err != nil {
				return err
			}
			o.Keys, o.Digests = map[string]int{"A": 1, "B": 2, "C": 3}, digests
			if o.Version, err = tx.NextVersion(ctx); err != nil {
				return err
			}
			o.Generation++
			o.State = "pending"
			_, err = tx.PutObject(ctx, o)
			return err
		})
	}
	check := func(when string, want map[string][]byte) {
		t.Helper()
		for i, s := range []store.Store{s1, s2} {
			var inTx store.Object
			update(t, s, func(ctx context.Context, tx store.Tx) error {
				var err error
				inTx, err = tx.Object(store.WithObjects(ctx, key), org.ID, "app")
				return err
			})
			read, err := s.Object(ctx, org.ID, "app")
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []store.Object{inTx, read} {
				if len(got.Digests) != len(want) || got.Keys["B"] != 2 {
					t.Fatalf("%s, store %d: keys %v digests %v, want %v", when, i+1, got.Keys, got.Digests, want)
				}
				for k, d := range want {
					if !bytes.Equal(got.Digests[k], d) {
						t.Errorf("%s, store %d: digest of %s %x, want %x", when, i+1, k, got.Digests[k], d)
					}
				}
			}
		}
	}
	write(digests)
	check("written with digests", digests)
	if it := listed(t, s2, org.ID); len(it) != 1 || it[0] != "app:A,B,C" {
		t.Errorf("listed %v, want app:A,B,C", it)
	}
	write(digests) // now from the writer's cache, where it keeps one
	check("written again", digests)
	write(nil)
	check("written without digests", nil)
}

// listed returns the objects of org as List reports them: "name:key,key".
func listed(t *testing.T, s store.Store, orgID int64) []string {
	t.Helper()
	var out []string
	err := s.List(context.Background(), store.ListQuery{OrgID: orgID}, func(it *store.ListItem) (bool, error) {
		out = append(out, it.Name+":"+strings.Join(it.KeyNames, ","))
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

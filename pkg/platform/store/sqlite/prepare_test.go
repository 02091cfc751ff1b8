package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The writer prepares a statement for its cache only once a second batch
// ran it: a process that writes once (a botkit command) parses the
// statements its write runs and no other (it prepared every statement of
// the write path, ~45, before its first batch), and a process that keeps
// writing keeps what it runs prepared. Each write still commits.
func TestWriterPreparesWhatItReuses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DatabaseFile)
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cached := func() []string {
		st.wc.mu.Lock()
		defer st.wc.mu.Unlock()
		var qs []string
		for q := range st.wc.m {
			qs = append(qs, q)
		}
		return qs
	}
	write := func(name string) {
		t.Helper()
		if err := st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateOrg(ctx, store.Org{Name: name, DefaultRegion: "us-west"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	write("first")
	if qs := cached(); len(qs) != 0 {
		t.Errorf("after one write the writer's cache holds %d statements, want 0: %q", len(qs), qs)
	}
	write("second")
	write("third")
	qs := cached()
	if !slices.Contains(qs, qInsertOrg) {
		t.Errorf("after three writes the writer's cache lacks the statement they ran (%q); it holds %q", qInsertOrg, qs)
	}
	if slices.Contains(qs, qUpsertValue) {
		t.Errorf("the writer's cache holds a statement no write ran (%q)", qUpsertValue)
	}
	orgs, err := st.Orgs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(orgs) != 3 {
		t.Errorf("%d organizations after three writes, want 3", len(orgs))
	}
}

// A provisioner's pass over a region where nothing is pending (most of
// them: a drain of the embedded platform passes over every region) costs
// the writer no transaction; one where something is pending marks it ready
// in one.
func TestMarkPendingReadyWritesOnlyWhenPending(t *testing.T) {
	ctx := context.Background()
	var commits atomic.Int64
	st, err := Open(ctx, filepath.Join(t.TempDir(), DatabaseFile), Options{OnCommit: func(int, time.Duration) { commits.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		org, err := tx.CreateOrg(ctx, store.Org{Name: "o", DefaultRegion: "us-west"})
		if err != nil {
			return err
		}
		v, err := tx.NextVersion(ctx)
		if err != nil {
			return err
		}
		_, err = tx.PutObject(ctx, store.Object{OrgID: org.ID, Name: "s", Kind: resources.KindSecretSet, Region: "us-west",
			State: resources.StatePending, Version: v, Generation: 1, Keys: map[string]int{}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	before := commits.Load()
	for _, region := range []string{"us-east", "eu-central", "ap-south"} {
		if n, err := st.MarkPendingReady(ctx, region, resources.KindSecretSet); err != nil || n != 0 {
			t.Fatalf("MarkPendingReady(%s) = %d, %v; want 0, nil", region, n, err)
		}
	}
	if n := commits.Load() - before; n != 0 {
		t.Errorf("passes over regions with nothing pending made %d write transactions, want 0", n)
	}
	if n, err := st.MarkPendingReady(ctx, "us-west", resources.KindSecretSet); err != nil || n != 1 {
		t.Fatalf("MarkPendingReady(us-west) = %d, %v; want 1, nil", n, err)
	}
	if n := commits.Load() - before; n != 1 {
		t.Errorf("the pass over the pending set made %d write transactions, want 1", n)
	}
	pending, err := st.Pending(ctx, "us-west", resources.KindSecretSet, 10)
	if err != nil || len(pending) != 0 {
		t.Errorf("after the pass: %d pending (%v), want 0", len(pending), err)
	}
}

package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform/store"
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

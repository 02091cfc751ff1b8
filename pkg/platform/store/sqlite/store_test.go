package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/storetest"
)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "platform.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The store passes the contract of store.Store.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		path := filepath.Join(t.TempDir(), "platform.db")
		return func(t *testing.T) store.Store {
			s, err := Open(context.Background(), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	})
}

// A batch writes the audit records of its successful requests only, all of
// them, whatever their number (they go out in prepared chunks of 128, 64,
// ... 1 rows).
func TestAuditBatched(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	// The first request holds the writer until the others are queued, so
	// that they commit together in one batch.
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
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
				if err := tx.Audit(ctx, store.AuditRecord{Org: "o", Actor: "a", Action: "merge", Name: fmt.Sprint("n", i), Keys: []string{"B", "A"}}); err != nil {
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
		if r.Name != "first" && fmt.Sprint(r.Keys) != "[A B]" {
			t.Errorf("audit record %s: keys %v, want [A B]", r.Name, r.Keys)
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
}

// Processes opening a fresh database at the same moment (parallel CLI
// commands on a new machine) all get it: switching to WAL takes a lock
// SQLite's busy handler does not wait for, so Open retries it. The openers
// are separate processes (this test binary again), as in real use.
func TestOpenFreshDatabaseConcurrently(t *testing.T) {
	if path := os.Getenv("BOTKIT_TEST_OPEN_DB"); path != "" {
		ctx := context.Background()
		s, err := Open(ctx, path, Options{})
		if err == nil {
			// Write, as a command would, so that openers meet writers and
			// the checkpoint of a closing one.
			err = s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
				_, err := tx.CreateOrg(ctx, store.Org{Name: fmt.Sprint("o", os.Getpid()), DefaultRegion: "us-west", CreatedAt: time.Now()})
				return err
			})
			if cerr := s.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	for round := range 40 {
		path := filepath.Join(t.TempDir(), "platform.db")
		const n = 12
		cmds := make([]*exec.Cmd, n)
		outs := make([]*bytes.Buffer, n)
		for i := range n {
			cmds[i] = exec.Command(os.Args[0], "-test.run=^TestOpenFreshDatabaseConcurrently$")
			cmds[i].Env = append(os.Environ(), "BOTKIT_TEST_OPEN_DB="+path)
			outs[i] = &bytes.Buffer{}
			cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		}
		for _, c := range cmds {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("round %d, process %d: %v: %s", round, i, err, outs[i])
			}
		}
	}
}

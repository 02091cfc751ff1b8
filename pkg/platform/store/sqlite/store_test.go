package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/storetest"
)

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

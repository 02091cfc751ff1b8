package postgres

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/pgtest"
	"github.com/botkit-dev/botkit/internal/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/storetest"
)

// One PostgreSQL server for the package's tests, a fresh database per test.
var pg = pgtest.NewShared()

func TestMain(m *testing.M) {
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

func opener(url string) storetest.Opener {
	return func(t *testing.T) store.Store {
		s, err := Open(context.Background(), url, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

// The store passes the contract of store.Store on a real PostgreSQL.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener { return opener(pg.Database(t)) })
}

// Several stores opening one new database at once apply the migrations once.
func TestConcurrentMigrations(t *testing.T) {
	url := pg.Database(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := Open(context.Background(), url, Options{})
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// An unreachable database is one line naming it, without its password, and
// ErrUnavailable-like; a bad URL never echoes the password.
func TestOpenErrors(t *testing.T) {
	port := testenv.FreePort(t)
	url := "postgres://bob:s3cret-pw@127.0.0.1:" + strconv.Itoa(port) + "/x?sslmode=disable"
	_, err := Open(context.Background(), url, Options{})
	if err == nil {
		t.Fatal("open of an unreachable database succeeded")
	}
	msg := err.Error()
	if strings.Contains(msg, "s3cret-pw") || strings.Contains(msg, "\n") || !strings.Contains(msg, "unreachable") || !strings.Contains(msg, "127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("error: %q", msg)
	}
	_, err = Open(context.Background(), "postgres://bob:s3cret-pw@127.0.0.1:5432/x?sslmode=bogus", Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("bad URL: %v", err)
	}
	if Redact("postgres://u:p@h/db?password=q") != "postgres://u:xxxxx@h/db?password=xxxxx" {
		t.Errorf("Redact: %s", Redact("postgres://u:p@h/db?password=q"))
	}
}

// Statements against a database that went away are ErrUnavailable.
func TestUnavailable(t *testing.T) {
	c := pgtest.Start(t)
	s := opener(c.Database(t))(t)
	ctx := context.Background()
	if _, err := s.Orgs(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.StopServer("immediate"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Orgs(ctx); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("read while down: %v", err)
	}
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateOrg(ctx, store.Org{Name: "x", DefaultRegion: "us-west"})
		return err
	})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("write while down: %v", err)
	}
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	// The pool's dead connections are replaced without an error.
	if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateOrg(ctx, store.Org{Name: "x", DefaultRegion: "us-west"})
		return err
	}); err != nil {
		t.Errorf("write after restart: %v", err)
	}
	if _, err := s.Org(ctx, "x"); err != nil {
		t.Errorf("read after restart: %v", err)
	}
}

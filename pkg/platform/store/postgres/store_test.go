package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/pgtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/storetest"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"
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
	if Redact("postgres://u:p@h/db?password=q") != "postgres://REDACTED@h/db?REDACTED" {
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

// Connection failures are recognised by their types, never by their text:
// a closed pool or connection is store.ErrUnavailable, a refused
// statement is not, and a message that merely reads like one is not.
func TestUnavailableErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("acquire: %w", puddle.ErrClosedPool), true},
		{fmt.Errorf("query: %w", pgconn.ErrConnClosed), true},
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "23505"}, false},
		{errors.New("conn closed"), false},
		{errors.New("closed pool"), false},
	} {
		if got := isUnavailable(c.err); got != c.want {
			t.Errorf("isUnavailable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	s := openStore(t, pg.Database(t), Options{})
	s.Close()
	err := s.Update(context.Background(), func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Org(ctx, "o")
		return err
	})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("an update on a closed store: %v, want store.ErrUnavailable", err)
	}
}

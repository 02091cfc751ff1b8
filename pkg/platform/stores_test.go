package platform_test

import (
	"context"
	"os"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/pgtest"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
)

// pg is the PostgreSQL server of this test binary, started by the first
// test that runs on PostgreSQL.
var pg = pgtest.NewShared()

func TestMain(m *testing.M) {
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

// testDB names the store a test's platform runs on.
type testDB struct {
	name     string
	postgres bool
}

// open opens a fresh PostgreSQL database for the test (platform.Open
// takes it over and closes it).
func (d testDB) open(t *testing.T) store.Store {
	t.Helper()
	st, err := stores.Open(context.Background(), stores.Location{URL: pg.Database(t)}, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// eachStore runs fn once on SQLite and once on PostgreSQL (a real server,
// internal/testsupport/pgtest: missing binaries skip that half, or fail it under CI).
func eachStore(t *testing.T, fn func(t *testing.T, db testDB)) {
	for _, db := range []testDB{{name: "sqlite"}, {name: "postgres", postgres: true}} {
		t.Run(db.name, func(t *testing.T) { fn(t, db) })
	}
}

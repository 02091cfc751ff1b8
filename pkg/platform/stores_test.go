package platform_test

import (
	"os"
	"testing"

	"github.com/botkit-dev/botkit/internal/pgtest"
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

// url returns a fresh PostgreSQL database for the test.
func (d testDB) url(t *testing.T) string { return pg.Database(t) }

// eachStore runs fn once on SQLite and once on PostgreSQL (a real server,
// internal/pgtest: missing binaries skip that half, or fail it under CI).
func eachStore(t *testing.T, fn func(t *testing.T, db testDB)) {
	for _, db := range []testDB{{name: "sqlite"}, {name: "postgres", postgres: true}} {
		t.Run(db.name, func(t *testing.T) { fn(t, db) })
	}
}

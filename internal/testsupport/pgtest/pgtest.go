// Package pgtest runs real PostgreSQL servers for tests: the Debian server
// binaries (/usr/lib/postgresql/15/bin, or PGTEST_BINDIR) start a cluster in
// a temporary directory on a free port of 127.0.0.1, as user postgres when
// the tests run as root. Missing binaries fail the test under CI and skip
// it elsewhere (internal/testenv).
//
// A test binary shares one cluster between its tests and gives each test a
// fresh database:
//
//	var pg = pgtest.NewShared()
//
//	func TestMain(m *testing.M) { code := m.Run(); pg.Stop(); os.Exit(code) }
//
//	func TestX(t *testing.T) { url := pg.Database(t) ... }
//
// A test that stops or restarts the server starts its own with Start.
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/jackc/pgx/v5"
)

// BinDir is where the Debian postgresql-15 package installs the server.
const BinDir = "/usr/lib/postgresql/15/bin"

func binDir() string {
	if d := os.Getenv("PGTEST_BINDIR"); d != "" {
		return d
	}
	return BinDir
}

// Cluster is a running PostgreSQL server.
type Cluster struct {
	dir  string // parent of data/ and the socket
	bin  string
	Port int
	root bool // commands run as user postgres through su

	mu      sync.Mutex
	dbSeq   atomic.Int64
	stopped bool
}

// Available reports whether the server binaries are installed, and why not.
func Available() (string, bool) {
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		p := filepath.Join(binDir(), b)
		if _, err := os.Stat(p); err != nil {
			return fmt.Sprintf("PostgreSQL server binary %s not found (apt-get install postgresql-15)", p), false
		}
	}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			return "running as root and there is no postgres user to run the server as", false
		}
	}
	return "", true
}

// Start starts a cluster for this test only; it is stopped when the test
// ends.
func Start(t testing.TB) *Cluster {
	t.Helper()
	testenv.NeedInstalled(t, "PostgreSQL 15")
	if why, ok := Available(); !ok {
		testenv.Missing(t, "%s", why)
	}
	c, err := start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func start() (*Cluster, error) {
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, bin: binDir(), root: os.Geteuid() == 0}
	if c.root {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, err
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	if out, err := c.run(filepath.Join(c.bin, "initdb"), "-D", c.dataDir(), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	// A few ports may be taken between the check and the start: retry.
	for attempt := 0; ; attempt++ {
		if c.Port, err = freePort(); err != nil {
			return nil, err
		}
		err = c.Restart()
		if err == nil || attempt == 4 {
			break
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func (c *Cluster) dataDir() string { return filepath.Join(c.dir, "data") }

// run runs a server program, as user postgres when root.
func (c *Cluster) run(prog string, args ...string) (string, error) {
	var cmd *exec.Cmd
	if c.root {
		q := make([]string, 0, len(args)+1)
		for _, a := range append([]string{prog}, args...) {
			q = append(q, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
		cmd = exec.Command("su", "postgres", "-s", "/bin/sh", "-c", strings.Join(q, " "))
	} else {
		cmd = exec.Command(prog, args...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = c.dir
	err := cmd.Run()
	return out.String(), err
}

// Restart starts the server (again, after StopServer) on the same port and
// data, and waits until it accepts connections. The tests' clusters run
// with fsync off: they never outlive the machine, and a crash of the server
// alone loses nothing the operating system holds.
func (c *Cluster) Restart() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", c.Port, c.dir)
	if out, err := c.run(filepath.Join(c.bin, "pg_ctl"), "-D", c.dataDir(), "-o", opts, "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", patienceSeconds, "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %v: %s\n%s", err, out, c.Log())
	}
	c.mu.Lock()
	c.stopped = false
	c.mu.Unlock()
	return nil
}

// StopServer stops the server (mode: "fast" shuts down cleanly,
// "immediate" crashes it) but keeps its data for Restart.
func (c *Cluster) StopServer(mode string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	out, err := c.run(filepath.Join(c.bin, "pg_ctl"), "-D", c.dataDir(), "-m", mode, "-w", "-t", patienceSeconds, "stop")
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, out)
	}
	c.stopped = true
	return nil
}

// Dir returns the directory holding the cluster's files (data, socket,
// log).
func (c *Cluster) Dir() string { return c.dir }

// Log returns the server log.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
	return string(b)
}

// Stop stops the server and removes its files.
func (c *Cluster) Stop() {
	_ = c.StopServer("immediate")
	os.RemoveAll(c.dir)
}

// URL returns the connection URL of database db.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, db)
}

// Database creates a new, empty database and returns its URL.
func (c *Cluster) Database(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), c.dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	return c.URL(name)
}

// Shared is a cluster started on first use and shared by the tests of one
// test binary; TestMain calls Stop after m.Run.
type Shared struct {
	once sync.Once
	c    *Cluster
	err  error
	why  string
}

// NewShared returns a Shared cluster, not started yet.
func NewShared() *Shared { return &Shared{} }

// Cluster returns the shared cluster, starting it on first use.
func (s *Shared) Cluster(t testing.TB) *Cluster {
	t.Helper()
	testenv.NeedInstalled(t, "PostgreSQL 15")
	s.once.Do(func() {
		why, ok := Available()
		if !ok {
			s.why = why
			return
		}
		s.c, s.err = start()
	})
	if s.why != "" {
		testenv.Missing(t, "%s", s.why)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.c
}

// Database creates a fresh database on the shared cluster and returns its
// URL.
func (s *Shared) Database(t testing.TB) string {
	t.Helper()
	return s.Cluster(t).Database(t)
}

// Stop stops the shared cluster if it was started.
func (s *Shared) Stop() {
	if s.c != nil {
		s.c.Stop()
	}
}

// patienceSeconds is pg_ctl's wait bound: testenv.Patience, a bound on a
// server that hangs, not on one a loaded machine starts slowly.
var patienceSeconds = strconv.Itoa(int(testenv.Patience / time.Second))

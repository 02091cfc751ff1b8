package main

// The PostgreSQL benchmark (-store postgres://…): replicas are separate
// processes (this program re-run with -serve-replica), so that each one's
// CPU time can be read from /proc. In alternating rounds it measures
//
//   - F: the raw floor: 32 connections each committing single-row INSERTs
//     (synchronous_commit=on) into a table of the same database;
//   - 1: HTTP merges by -clients clients through one replica;
//   - N: the same through -replicas replicas (client i uses replica i % N).
//
// and reports the medians, 1/F (goal >= 0.8), N/1 (goal >= 0.9) and the CPU
// time per write of every replica.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/prommetrics"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/jackc/pgx/v5/pgxpool"
)

// openReplica opens the platform as a replica (and phase P) does, with the
// master key in keyFile.
func (o options) openReplica(ctx context.Context, keyFile string) (*platform.Server, error) {
	metrics := prommetrics.New() // as botkit-platform serve
	st, err := stores.Open(ctx, stores.Location{URL: o.store}, stores.Options{OnCommit: metrics.Commit, CommitDelay: o.commitDelay, CommitBatch: o.commitBatch})
	if err != nil {
		return nil, err
	}
	return platform.Open(ctx, platform.Options{Store: st, MasterKeyFile: keyFile, Metrics: metrics})
}

// serveReplica serves one replica on 127.0.0.1:0, prints its address and
// runs until stdin closes (the benchmark ended or died).
func serveReplica(ctx context.Context, o options) error {
	cmdutil.DefaultGCPercent(platform.ServingGCPercent) // as botkit-platform serve
	srv, err := o.openReplica(ctx, o.keyFile)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := platform.HTTPServer(srv.Handler(), nil)
	go hs.Serve(ln)
	fmt.Printf("listening on http://%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	return hs.Close()
}

type replica struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	url   string
}

func startReplica(o options, keyFile string, i int) (*replica, error) {
	args := []string{"-serve-replica", "-store", o.store, "-master-key-file", keyFile, "-commit-delay", o.commitDelay.String(), "-commit-batch", strconv.Itoa(o.commitBatch)}
	if o.replicaProfile != "" {
		args = append(args, "-cpuprofile", fmt.Sprintf("%s.%d", o.replicaProfile, i))
	}
	cmd := exec.Command(os.Args[0], args...)
	if o.replicaProcs > 0 {
		cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", o.replicaProcs))
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("replica did not start: %q %v", line, err)
	}
	return &replica{cmd: cmd, stdin: stdin, url: strings.TrimSpace(strings.TrimPrefix(line, "listening on "))}, nil
}

func (r *replica) stop() {
	r.stdin.Close()
	done := make(chan struct{})
	go func() { r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		<-done
	}
}

// cpu returns the CPU time (user + system) the replica used so far.
func (r *replica) cpu() time.Duration {
	c, _ := procCPU(r.cmd.Process.Pid)
	return c
}

// batchStats counts group-commit batches: how many, the write transactions
// in them and the seconds from a batch's start to its durable commit.
type batchStats struct{ n, writes, seconds float64 }

func (a batchStats) minus(b batchStats) batchStats {
	return batchStats{a.n - b.n, a.writes - b.writes, a.seconds - b.seconds}
}

func (a batchStats) plus(b batchStats) batchStats {
	return batchStats{a.n + b.n, a.writes + b.writes, a.seconds + b.seconds}
}

// batches returns the replica's batchStats so far, from its /metrics.
func (r *replica) batches() (st batchStats) {
	resp, err := http.Get(r.url + "/metrics")
	if err != nil {
		return st
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "botkit_platform_store_commit_batch_size_count":
			st.n, _ = strconv.ParseFloat(val, 64)
		case "botkit_platform_store_commit_batch_size_sum":
			st.writes, _ = strconv.ParseFloat(val, 64)
		case "botkit_platform_store_commit_duration_seconds_sum":
			st.seconds, _ = strconv.ParseFloat(val, 64)
		}
	}
	return st
}

// batchCounter sums batches() over replicas.
func batchCounter(reps []*replica) (st batchStats) {
	for _, r := range reps {
		st = st.plus(r.batches())
	}
	return st
}

// procCPU returns the CPU time (user + system) process pid used so far and
// its parent's pid, from /proc (in USER_HZ = 1/100 s ticks).
func procCPU(pid int) (time.Duration, int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0, 0
	}
	ppid, _ := strconv.Atoi(f[1])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond, ppid
}

// postmaster finds the local PostgreSQL server's main process (the parent
// of this connection's backend), or 0 when the server is not on this
// machine's /proc (then the database's CPU is not reported).
func postmaster(ctx context.Context, pool *pgxpool.Pool) int {
	var backend int
	if err := pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return 0
	}
	if _, ppid := procCPU(backend); ppid > 1 {
		return ppid
	}
	return 0
}

// walSyncs returns how many times the server flushed its WAL so far
// (pg_stat_wal.wal_sync; 0 when it cannot be read).
func walSyncs(ctx context.Context, raw *rawPG) int64 {
	var n int64
	_ = raw.pool.QueryRow(ctx, `SELECT wal_sync FROM pg_stat_wal`).Scan(&n)
	return n
}

// serverCPU is the CPU time used so far by the PostgreSQL server whose main
// process is pm: its processes alive now (backends of the pools, the WAL
// writer, the checkpointer, …; processes that already exited are missed).
func serverCPU(pm int) time.Duration {
	if pm == 0 {
		return 0
	}
	total, _ := procCPU(pm)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == pm {
			continue
		}
		if c, ppid := procCPU(pid); ppid == pm {
			total += c
		}
	}
	return total
}

// rawPG is the floor: single-row committed INSERTs from many connections.
type rawPG struct {
	pool *pgxpool.Pool
	val  []byte
}

func openRawPG(ctx context.Context, url string, conns int) (*rawPG, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns, cfg.MinConns = int32(conns), int32(conns)
	cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_raw_commits (id BIGSERIAL PRIMARY KEY, k TEXT NOT NULL, v BYTEA NOT NULL)`); err != nil {
		pool.Close()
		return nil, err
	}
	return &rawPG{pool: pool, val: make([]byte, 64)}, nil
}

func (r *rawPG) commits(ctx context.Context, conns int, d time.Duration) (phase, error) {
	deadline := time.Now().Add(d)
	return runClients(conns, func(i int) ([]time.Duration, error) {
		var lat []time.Duration
		for n := 0; time.Now().Before(deadline); n++ {
			t0 := time.Now()
			// One statement outside a transaction block: its own committed
			// transaction.
			if _, err := r.pool.Exec(ctx, `INSERT INTO bench_raw_commits (k, v) VALUES ($1, $2)`, fmt.Sprintf("K_%d_%d", i, n), r.val); err != nil {
				return lat, err
			}
			lat = append(lat, time.Since(t0))
		}
		return lat, nil
	})
}

func runPostgres(ctx context.Context, o options, out io.Writer) error {
	if o.clients < 1 || o.duration <= 0 || o.rounds < 1 || o.replicas < 2 || o.sets < 1 {
		return fmt.Errorf("-clients, -sets and -rounds must be >= 1, -replicas >= 2, -duration > 0")
	}
	round := o.duration / time.Duration(o.rounds)
	dir, err := os.MkdirTemp("", "botkit-bench-pg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	key := make([]byte, 32)
	rand.Read(key)
	keyFile := filepath.Join(dir, "master.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(key)), 0o600); err != nil {
		return err
	}
	adminStore, err := stores.Open(ctx, stores.Location{URL: o.store}, stores.Options{})
	if err != nil {
		return err
	}
	admin := service.NewAdmin(adminStore, "")
	defer admin.Close()
	org := "bench-" + hex.EncodeToString(key[:4]) // the database may hold earlier runs
	if _, err := admin.CreateOrg(ctx, org, ""); err != nil {
		return err
	}
	token, _, err := admin.CreateToken(ctx, org, "bench")
	if err != nil {
		return err
	}
	var reps []*replica
	defer func() {
		for _, r := range reps {
			r.stop()
		}
	}()
	for i := range o.replicas {
		r, err := startReplica(o, keyFile, i)
		if err != nil {
			return err
		}
		reps = append(reps, r)
	}
	urls := make([]string, len(reps))
	for i, r := range reps {
		urls[i] = r.url
	}
	raw, err := openRawPG(ctx, o.store, o.clients)
	if err != nil {
		return fmt.Errorf("raw PostgreSQL: %w", err)
	}
	defer raw.pool.Close()

	fmt.Fprintf(out, "botkit platform on PostgreSQL — %d clients merging into %d sets, %d alternating rounds of %s per phase, %d replica processes, commit delay %s up to batches of %d\n\n",
		o.clients, min(o.sets, o.clients), o.rounds, round, o.replicas, o.commitDelay, o.commitBatch)
	seq := make([]int, o.clients)
	if _, err := merges(urls, org, token, o.clients, o.sets, 300*time.Millisecond, seq); err != nil {
		return err
	}
	if _, err := raw.commits(ctx, o.clients, 300*time.Millisecond); err != nil {
		return fmt.Errorf("raw PostgreSQL: %w", err)
	}

	var handler http.Handler // phase P (-in-process)
	if o.inProcess {
		srv, err := o.openReplica(ctx, keyFile)
		if err != nil {
			return err
		}
		defer srv.Close()
		handler = srv.Handler()
	}
	var floorRounds, oneRounds, manyRounds, inRounds []phase
	var inGen, inDB time.Duration
	oneCPU := time.Duration(0)
	// The load generator (this process: the pgx connections of the floor,
	// the HTTP clients of the other phases) shares the cores with the
	// database and the replicas; its CPU per request is reported per phase.
	var genCPU [3]time.Duration
	// The database's CPU per phase, when it runs on this machine.
	pm := postmaster(ctx, raw.pool)
	var dbCPU [3]time.Duration
	var batch [3]batchStats // the group-commit batches of each phase
	var syncs [3]int64      // WAL flushes of each phase
	manyCPU := make([]time.Duration, len(reps))
	fmt.Fprintf(out, "round   raw commits/s   1 replica/s   %d replicas/s\n", len(reps))
	for r := range o.rounds {
		var f, one, many phase
		steps := []func() error{
			func() (err error) {
				g0, d0, s0 := cpuTime(), serverCPU(pm), walSyncs(ctx, raw)
				f, err = raw.commits(ctx, o.clients, round)
				genCPU[0] += cpuTime() - g0
				dbCPU[0] += serverCPU(pm) - d0
				syncs[0] += walSyncs(ctx, raw) - s0
				return err
			},
			func() (err error) {
				c0, g0, d0, s0 := reps[0].cpu(), cpuTime(), serverCPU(pm), walSyncs(ctx, raw)
				b0 := batchCounter(reps)
				one, err = merges(urls[:1], org, token, o.clients, o.sets, round, seq)
				batch[1] = batch[1].plus(batchCounter(reps).minus(b0))
				oneCPU += reps[0].cpu() - c0
				genCPU[1] += cpuTime() - g0
				dbCPU[1] += serverCPU(pm) - d0
				syncs[1] += walSyncs(ctx, raw) - s0
				return err
			},
			func() (err error) {
				c0 := make([]time.Duration, len(reps))
				for i, rp := range reps {
					c0[i] = rp.cpu()
				}
				g0, d0, s0 := cpuTime(), serverCPU(pm), walSyncs(ctx, raw)
				b0 := batchCounter(reps)
				many, err = merges(urls, org, token, o.clients, o.sets, round, seq)
				batch[2] = batch[2].plus(batchCounter(reps).minus(b0))
				genCPU[2] += cpuTime() - g0
				dbCPU[2] += serverCPU(pm) - d0
				syncs[2] += walSyncs(ctx, raw) - s0
				for i, rp := range reps {
					manyCPU[i] += rp.cpu() - c0[i]
				}
				return err
			},
		}
		if handler != nil {
			steps = append(steps, func() (err error) {
				g0, d0 := cpuTime(), serverCPU(pm)
				p, err := handlerMerges(handler, org, token, o.clients, o.sets, round, seq)
				inGen += cpuTime() - g0
				inDB += serverCPU(pm) - d0
				inRounds = append(inRounds, p)
				return err
			})
		}
		for i := range steps {
			if err := steps[(i+r)%len(steps)](); err != nil {
				return err
			}
		}
		fmt.Fprintf(out, "%5d %15.0f %13.0f %15.0f\n", r+1, f.rate(), one.rate(), many.rate())
		floorRounds, oneRounds, manyRounds = append(floorRounds, f), append(oneRounds, one), append(manyRounds, many)
	}
	client := &http.Client{}
	if err := verifyMerges(ctx, client, urls[len(urls)-1], org, token, o.clients, o.sets, seq); err != nil {
		return err
	}
	fm, om, mm := medianRate(floorRounds), medianRate(oneRounds), medianRate(manyRounds)
	count := func(ps []phase) int {
		n := 0
		for _, p := range ps {
			n += p.n
		}
		return n
	}
	fn, on, mn := count(floorRounds), count(oneRounds), count(manyRounds)
	perReq := func(c time.Duration, n int) float64 { return float64(c.Microseconds()) / float64(max(n, 1)) }
	fl, ol, ml := allLatencies(floorRounds), allLatencies(oneRounds), allLatencies(manyRounds)
	fmt.Fprintf(out, "\nF: raw PostgreSQL, single-row INSERT commits from %d connections (synchronous_commit=on)\n", o.clients)
	fmt.Fprintf(out, "  median commits/s     %10.0f   (rounds %s)   latency p50 / p99 %s / %s\n", fm, rates(floorRounds), pct(fl, 0.5), pct(fl, 0.99))
	fmt.Fprintf(out, "  load generator CPU   %10.0f µs per commit (pgx)\n", perReq(genCPU[0], fn))
	dbLine := func(i, n int) {
		if pm != 0 {
			fmt.Fprintf(out, "  database CPU         %10.0f µs per write (all PostgreSQL processes)\n", perReq(dbCPU[i], n))
		}
		if syncs[i] > 0 {
			fmt.Fprintf(out, "  WAL flushes          %10.1f writes per flush (pg_stat_wal)\n", float64(n)/float64(syncs[i]))
		}
	}
	dbLine(0, fn)
	groupLine := func(b batchStats) {
		fmt.Fprintf(out, "  group commit         %10.1f writes per batch, %.2f ms from its start to its durable commit\n",
			b.writes/max(b.n, 1), 1000*b.seconds/max(b.n, 1))
	}
	fmt.Fprintf(out, "1: HTTP merges through 1 replica (durable before the answer; every merge verified present)\n")
	fmt.Fprintf(out, "  median writes/s      %10.0f   (rounds %s)   latency p50 / p99 %s / %s\n", om, rates(oneRounds), pct(ol, 0.5), pct(ol, 0.99))
	fmt.Fprintf(out, "  replica CPU          %10.0f µs per write\n", perReq(oneCPU, on))
	fmt.Fprintf(out, "  load generator CPU   %10.0f µs per write (HTTP clients)\n", perReq(genCPU[1], on))
	dbLine(1, on)
	groupLine(batch[1])
	fmt.Fprintf(out, "%d: HTTP merges through %d replicas\n", len(reps), len(reps))
	fmt.Fprintf(out, "  median writes/s      %10.0f   (rounds %s)   latency p50 / p99 %s / %s\n", mm, rates(manyRounds), pct(ml, 0.5), pct(ml, 0.99))
	var per []string
	total := time.Duration(0)
	for i, c := range manyCPU {
		per = append(per, fmt.Sprintf("#%d %.0f", i+1, float64(c.Microseconds())/float64(max(mn, 1))))
		total += c
	}
	fmt.Fprintf(out, "  replica CPU          %10.0f µs per write in all (per replica, per write of the phase: %s)\n",
		float64(total.Microseconds())/float64(max(mn, 1)), strings.Join(per, ", "))
	fmt.Fprintf(out, "  load generator CPU   %10.0f µs per write (HTTP clients)\n", perReq(genCPU[2], mn))
	dbLine(2, mn)
	groupLine(batch[2])
	if handler != nil {
		in, il, n := medianRate(inRounds), allLatencies(inRounds), count(inRounds)
		fmt.Fprintf(out, "P: the platform's handler called in this process (merges of phase 1 without the network and net/http's server)\n")
		fmt.Fprintf(out, "  median writes/s      %10.0f   (rounds %s)   latency p50 / p99 %s / %s\n", in, rates(inRounds), pct(il, 0.5), pct(il, 0.99))
		fmt.Fprintf(out, "  this process's CPU   %10.0f µs per write (platform and clients)\n", perReq(inGen, n))
		if pm != 0 {
			fmt.Fprintf(out, "  database CPU         %10.0f µs per write (all PostgreSQL processes)\n", perReq(inDB, n))
		}
		fmt.Fprintf(out, "ratio in process / raw floor    %.2f\n", in/fm)
	}
	fmt.Fprintf(out, "ratio 1 replica / raw floor     %.2f   (goal >= 0.8)\n", om/fm)
	fmt.Fprintf(out, "ratio %d replicas / 1 replica    %.2f   (goal >= 0.9)\n", len(reps), mm/om)
	return nil
}

// handlerMerges is merges without the network: each client goroutine
// calls h with the request a lean client would send (phase P).
func handlerMerges(h http.Handler, org, token string, clients, sets int, d time.Duration, seq []int) (phase, error) {
	deadline := time.Now().Add(d)
	return runClients(clients, func(i int) ([]time.Duration, error) {
		path := fmt.Sprintf("/v1/organizations/%s/secrets/bench-%d", org, i%sets)
		var lat []time.Duration
		for time.Now().Before(deadline) {
			req := httptest.NewRequest(http.MethodPatch, path, strings.NewReader(fmt.Sprintf(`{"set":{"KEY_%d":"value-%d-%d"}}`, i, i, seq[i])))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			t0 := time.Now()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK && rec.Code != http.StatusCreated {
				return lat, fmt.Errorf("in-process merge: %d %s", rec.Code, rec.Body)
			}
			lat = append(lat, time.Since(t0))
			seq[i]++
		}
		return lat, nil
	})
}

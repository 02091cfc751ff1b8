// Command platform benchmarks the botkit platform's write path and list.
//
// It serves the platform (pkg/platform over a fresh SQLite file) on
// 127.0.0.1 and compares two write loads on the same disk:
//
//   - A: N concurrent HTTP clients doing merges (PATCH), each answered only
//     after its durable commit;
//   - B: the raw rate of single fsynced SQLite commits (WAL,
//     synchronous=FULL, one INSERT per transaction, one connection).
//
// The disk's fsync rate drifts a lot from second to second, so A and B run
// in alternating rounds (A B, B A, A B, ...: each side goes first equally
// often), and the ratio compared with the goal is the ratio of the per-phase
// medians. Above 1.0 means group commit turns concurrent requests into more
// durable writes per second than one-commit-per-write SQLite can do. After
// the rounds every client's key is checked to be in its set (no merge lost).
// Finally it lists 10,000 secret sets as JSON and reports the time.
//
//	go run ./bench/platform -clients 32 -duration 10s
package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/prommetrics"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	_ "modernc.org/sqlite"
)

type options struct {
	store    string
	replicas int
	serve    bool   // internal: run as a replica process of a -store benchmark
	keyFile  string // internal: the replicas' master key
	clients  int
	duration time.Duration
	rounds   int
	dir      string
	listSets int
	listRuns int
	// replicaProfile: with -store, replica i writes a CPU profile to
	// replicaProfile.i (replicas are other processes).
	replicaProfile string
	sets           int           // secret sets the merge clients write (client i: set i % sets)
	replicaProcs   int           // GOMAXPROCS of the replicas (0: Go's default)
	inProcess      bool          // add the phase of the platform's handler called in this process
	commitDelay    time.Duration // the replicas' --commit-delay
	commitBatch    int           // and --commit-batch
}

func main() {
	var o options
	flag.StringVar(&o.store, "store", "", "postgres://… URL: benchmark replicas on this PostgreSQL database against its raw commit rate (default: SQLite)")
	flag.IntVar(&o.replicas, "replicas", 3, "with -store: replica processes of the multi-replica phase (compared with one replica)")
	flag.BoolVar(&o.serve, "serve-replica", false, "internal: serve one replica for a -store benchmark")
	flag.StringVar(&o.keyFile, "master-key-file", "", "internal: master key of -serve-replica")
	flag.IntVar(&o.clients, "clients", 32, "concurrent HTTP clients doing merges")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "total time of each write phase (HTTP merges, raw commits), split into -rounds rounds")
	flag.IntVar(&o.rounds, "rounds", 5, "alternating rounds of HTTP merges and raw commits")
	flag.StringVar(&o.dir, "dir", "", "directory for the databases (default: a new temporary directory)")
	flag.IntVar(&o.listSets, "list-sets", 10000, "secret sets to create for the list benchmark (0 skips it)")
	flag.IntVar(&o.listRuns, "list-runs", 20, "list requests to time")
	flag.IntVar(&o.sets, "sets", 0, "secret sets the merge clients write into (client i: set i mod sets); 0: 32 with -store (one set per client with 32 clients), 8 on SQLite (4 clients writing each set at once)")
	flag.BoolVar(&o.inProcess, "in-process", false, "with -store: add a phase P, the platform's HTTP handler called in this process by the clients' goroutines (no network, no net/http server)")
	flag.IntVar(&o.replicaProcs, "replica-gomaxprocs", 0, "with -store: GOMAXPROCS of each replica process (0: Go's default, the number of cores)")
	flag.DurationVar(&o.commitDelay, "commit-delay", stores.DefaultCommitDelay, "with -store: the replicas' commit delay (botkit-platform serve --commit-delay; 0: none)")
	flag.IntVar(&o.commitBatch, "commit-batch", stores.MaxCommitBatch, "with -commit-delay: the most writes a replica waits for (botkit-platform serve --commit-batch)")
	flag.StringVar(&o.replicaProfile, "replica-cpuprofile", "", "with -store: replica i writes a CPU profile of its run to this file name + .i")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if o.sets == 0 {
		// On SQLite all writes are serialized by one writer anyway; with
		// replicas, clients sharing a set serialize on its row lock across
		// replicas, which is not what a platform of many teams' sets sees.
		o.sets = 8
		if o.store != "" {
			o.sets = 32
		}
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "error: -cpuprofile:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	var err error
	switch {
	case o.serve:
		err = serveReplica(context.Background(), o)
	case o.store != "":
		err = runPostgres(context.Background(), o, os.Stdout)
	default:
		err = run(context.Background(), o, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// phase is the outcome of one timed round of one side.
type phase struct {
	n       int
	elapsed time.Duration
	lat     []time.Duration
}

func (p phase) rate() float64 { return float64(p.n) / p.elapsed.Seconds() }

func run(ctx context.Context, o options, out io.Writer) error {
	if o.clients < 1 || o.duration <= 0 {
		return fmt.Errorf("-clients must be >= 1 and -duration > 0")
	}
	if o.rounds < 1 || o.sets < 1 {
		return fmt.Errorf("-rounds and -sets must be >= 1")
	}
	round := o.duration / time.Duration(o.rounds)
	dir := o.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "botkit-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	metrics := prommetrics.New()
	dataDir := filepath.Join(dir, "platform")
	st, err := stores.Open(ctx, stores.Location{DataDir: dataDir}, stores.Options{OnCommit: metrics.Commit})
	if err != nil {
		return err
	}
	srv, err := platform.Open(ctx, platform.Options{Store: st, DataDir: dataDir, Metrics: metrics})
	if err != nil {
		return err
	}
	defer srv.Close()
	admin := srv.Admin()
	if _, err := admin.CreateOrg(ctx, "bench", ""); err != nil {
		return err
	}
	token, _, err := admin.CreateToken(ctx, "bench", "bench")
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := platform.HTTPServer(srv.Handler(), nil)
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.clients + 4, MaxConnsPerHost: o.clients + 4}}

	raw, err := openRaw(ctx, filepath.Join(dir, "raw.db"))
	if err != nil {
		return fmt.Errorf("raw sqlite: %w", err)
	}
	defer raw.close()

	fmt.Fprintf(out, "botkit platform benchmark — %d clients, %d alternating rounds of %s per side, dir %s\n\n",
		o.clients, o.rounds, round, dir)

	// Warm up both sides (sets created, statements prepared, caches
	// filled); not counted.
	seq := make([]int, o.clients) // next value number of each client
	if _, err := merges([]string{base}, "bench", token, o.clients, o.sets, 300*time.Millisecond, seq); err != nil {
		return err
	}
	if _, err := raw.commits(ctx, 300*time.Millisecond); err != nil {
		return fmt.Errorf("raw sqlite: %w", err)
	}

	var httpRounds, rawRounds []phase
	var cpuUsed time.Duration
	commitsBefore := commitCount(metrics)
	fmt.Fprintf(out, "round   HTTP merges/s   raw commits/s   ratio\n")
	for r := range o.rounds {
		var h, b phase
		doHTTP := func() error {
			cpu0 := cpuTime()
			var err error
			h, err = merges([]string{base}, "bench", token, o.clients, o.sets, round, seq)
			cpuUsed += cpuTime() - cpu0
			return err
		}
		doRaw := func() error {
			var err error
			b, err = raw.commits(ctx, round)
			if err != nil {
				return fmt.Errorf("raw sqlite: %w", err)
			}
			return nil
		}
		first, second := doHTTP, doRaw
		if r%2 == 1 {
			first, second = doRaw, doHTTP
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
		order := "A B"
		if r%2 == 1 {
			order = "B A"
		}
		fmt.Fprintf(out, "%d (%s) %13.0f %15.0f   %.2f\n", r+1, order, h.rate(), b.rate(), h.rate()/b.rate())
		httpRounds = append(httpRounds, h)
		rawRounds = append(rawRounds, b)
	}
	commits := commitCount(metrics) - commitsBefore
	if err := verifyMerges(ctx, client, base, "bench", token, o.clients, o.sets, seq); err != nil {
		return err
	}
	hm, bm := medianRate(httpRounds), medianRate(rawRounds)
	hlat, blat := allLatencies(httpRounds), allLatencies(rawRounds)
	var hn int
	var helapsed time.Duration
	for _, h := range httpRounds {
		hn += h.n
		helapsed += h.elapsed
	}
	fmt.Fprintf(out, "\nA: HTTP merges (PATCH, durable before the answer; every merge verified present)\n")
	fmt.Fprintf(out, "  median writes/s      %10.0f   (rounds %s)\n", hm, rates(httpRounds))
	fmt.Fprintf(out, "  latency p50 / p99    %10s / %s   (%d acknowledged)\n", pct(hlat, 0.50), pct(hlat, 0.99), hn)
	fmt.Fprintf(out, "  CPU                  %10.2f cores busy (server and clients), %.0f µs per write\n",
		cpuUsed.Seconds()/helapsed.Seconds(), float64(cpuUsed.Microseconds())/float64(max(hn, 1)))
	if commits > 0 {
		fmt.Fprintf(out, "  database commits     %10.0f   (%.1f writes per commit, provisioner included)\n", commits, float64(hn)/commits)
	}
	fmt.Fprintf(out, "B: raw SQLite, one INSERT per fsynced commit (WAL, synchronous=FULL), same disk\n")
	fmt.Fprintf(out, "  median commits/s     %10.0f   (rounds %s)\n", bm, rates(rawRounds))
	fmt.Fprintf(out, "  latency p50 / p99    %10s / %s\n", pct(blat, 0.50), pct(blat, 0.99))
	fmt.Fprintf(out, "ratio of medians A / B   %.2f   (goal >= 1.0)\n\n", hm/bm)

	// List 10,000 sets as JSON.
	if o.listSets > 0 {
		if err := listBench(ctx, client, base, admin, o, out); err != nil {
			return err
		}
	}
	return nil
}

func medianRate(ps []phase) float64 {
	r := make([]float64, len(ps))
	for i, p := range ps {
		r[i] = p.rate()
	}
	slices.Sort(r)
	if len(r)%2 == 1 {
		return r[len(r)/2]
	}
	return (r[len(r)/2-1] + r[len(r)/2]) / 2
}

func rates(ps []phase) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("%.0f", p.rate())
	}
	return strings.Join(s, " ")
}

func allLatencies(ps []phase) []time.Duration {
	var all []time.Duration
	for _, p := range ps {
		all = append(all, p.lat...)
	}
	slices.Sort(all)
	return all
}

// cpuTime is the CPU time (user + system) this process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func pct(sorted []time.Duration, p float64) string {
	if len(sorted) == 0 {
		return "-"
	}
	i := int(float64(len(sorted)-1) * p)
	return sorted[i].Round(10 * time.Microsecond).String()
}

func commitCount(m *prommetrics.Metrics) float64 {
	mfs, err := m.Registry().Gather()
	if err != nil {
		return 0
	}
	for _, mf := range mfs {
		if mf.GetName() == "botkit_platform_store_commits_total" && len(mf.GetMetric()) > 0 {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}

// rawDB is the baseline: one connection doing one-INSERT transactions.
type rawDB struct {
	db   *sql.DB
	ins  *sql.Stmt
	val  []byte
	next int
}

func openRaw(ctx context.Context, path string) (*rawDB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, k TEXT, v BLOB)`); err != nil {
		db.Close()
		return nil, err
	}
	// Prepared once, like the platform's statements: the baseline is the
	// disk's commit rate, not SQL parsing.
	ins, err := db.PrepareContext(ctx, `INSERT INTO t (k, v) VALUES (?, ?)`)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &rawDB{db: db, ins: ins, val: bytes.Repeat([]byte{0xab}, 64)}, nil
}

func (r *rawDB) close() {
	r.ins.Close()
	r.db.Close()
}

// commits runs single-row transactions, each fsynced, for d.
func (r *rawDB) commits(ctx context.Context, d time.Duration) (phase, error) {
	var p phase
	start := time.Now()
	for time.Since(start) < d {
		t0 := time.Now()
		tx, err := r.db.BeginTx(ctx, nil)
		if err != nil {
			return p, err
		}
		if _, err := tx.StmtContext(ctx, r.ins).ExecContext(ctx, fmt.Sprintf("K_%d", r.next), r.val); err != nil {
			tx.Rollback()
			return p, err
		}
		if err := tx.Commit(); err != nil {
			return p, err
		}
		r.next++
		p.lat = append(p.lat, time.Since(t0))
	}
	p.n, p.elapsed = len(p.lat), time.Since(start)
	return p, nil
}

func patch(ctx context.Context, c *http.Client, url, token string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// merges runs clients goroutines, each merging one key (a fresh value every
// time: seq[i] counts client i's values) into one of 8 shared sets of org,
// for d. Client i talks to bases[i % len(bases)].
// Each client is a lean HTTP/1.1 client on its own keep-alive connection
// (like wrk), so that the load generator takes little of the CPU the server
// needs. Any failed merge ends the benchmark with an error.
func merges(bases []string, org, token string, clients, sets int, d time.Duration, seq []int) (phase, error) {
	deadline := time.Now().Add(d)
	return runClients(clients, func(i int) ([]time.Duration, error) {
		host := strings.TrimPrefix(bases[i%len(bases)], "http://")
		return leanClient(host, org, token, i, sets, deadline, &seq[i])
	})
}

// runClients runs n clients at once until they return, and gathers their
// latencies and the first error into one phase.
func runClients(n int, client func(i int) ([]time.Duration, error)) (phase, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var p phase
	var firstErr error
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat, err := client(i)
			mu.Lock()
			p.lat = append(p.lat, lat...)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	p.n, p.elapsed = len(p.lat), time.Since(start)
	return p, firstErr
}

func leanClient(host, org, token string, i, sets int, deadline time.Time, seq *int) ([]time.Duration, error) {
	conn, err := net.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	br := bufio.NewReaderSize(conn, 16<<10)
	path := fmt.Sprintf("/v1/organizations/%s/secrets/bench-%d", org, i%sets)
	// Everything but the body's value number and its length is built once;
	// a request is then a few appends into one reused buffer and one write.
	head := []byte(fmt.Sprintf("PATCH %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: ", path, host, token))
	bodyHead := []byte(fmt.Sprintf(`{"set":{"KEY_%d":"value-%d-`, i, i))
	const bodyTail = `"}}`
	var lat []time.Duration
	req := make([]byte, 0, len(head)+len(bodyHead)+64)
	for time.Now().Before(deadline) {
		n := int64(*seq)
		digits := 1
		for m := n; m >= 10; m /= 10 {
			digits++
		}
		req = append(req[:0], head...)
		req = strconv.AppendInt(req, int64(len(bodyHead)+digits+len(bodyTail)), 10)
		req = append(req, "\r\n\r\n"...)
		req = append(req, bodyHead...)
		req = strconv.AppendInt(req, n, 10)
		req = append(req, bodyTail...)
		t0 := time.Now()
		if _, err := conn.Write(req); err != nil {
			return lat, err
		}
		code, err := readResponse(br)
		if err != nil {
			return lat, err
		}
		if code != 200 && code != 201 {
			return lat, fmt.Errorf("merge into %s: HTTP %d", path, code)
		}
		lat = append(lat, time.Since(t0))
		*seq++
	}
	return lat, nil
}

// readResponse reads one HTTP/1.1 response with a Content-Length body (what
// the platform sends) and returns its status code; it parses only the status
// line and Content-Length, and discards the body without copying it.
func readResponse(br *bufio.Reader) (int, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	length := -1
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(line) <= 2 { // "\r\n": end of the header
			break
		}
		if len(line) > 16 && (line[0] == 'C' || line[0] == 'c') && bytes.EqualFold(line[:15], []byte("Content-Length:")) {
			length, err = strconv.Atoi(string(bytes.TrimSpace(line[15:])))
			if err != nil {
				return 0, fmt.Errorf("bad Content-Length %q", line)
			}
		}
	}
	if length < 0 {
		return 0, fmt.Errorf("response without Content-Length (HTTP %d)", code)
	}
	if _, err := br.Discard(length); err != nil {
		return 0, err
	}
	return code, nil
}

// verifyMerges checks that group commit lost no merge: every client's key is
// in its set, and the newest resourceVersion is at least the number of
// acknowledged merges (each merge takes the next value of one store-wide
// counter, which a lost commit would hand out again).
func verifyMerges(ctx context.Context, c *http.Client, base, org, token string, clients, sets int, seq []int) error {
	acked := 0
	for _, n := range seq {
		acked += n
	}
	newest := int64(0)
	for set := range min(clients, sets) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/v1/organizations/%s/secrets/bench-%d", base, org, set), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		var obj struct {
			Metadata struct{ ResourceVersion string }
			Spec     struct{ Keys []string }
		}
		err = json.NewDecoder(resp.Body).Decode(&obj)
		resp.Body.Close()
		if err != nil {
			return err
		}
		for i := set; i < clients; i += sets {
			if !slices.Contains(obj.Spec.Keys, fmt.Sprintf("KEY_%d", i)) {
				return fmt.Errorf("verification failed: bench-%d lacks KEY_%d", set, i)
			}
		}
		v, err := strconv.ParseInt(obj.Metadata.ResourceVersion, 10, 64)
		if err != nil {
			return fmt.Errorf("verification: bench-%d: resourceVersion %q: %w", set, obj.Metadata.ResourceVersion, err)
		}
		newest = max(newest, v)
	}
	if newest < int64(acked) {
		return fmt.Errorf("verification failed: %d merges acknowledged but the newest resourceVersion is %d", acked, newest)
	}
	return nil
}

func listBench(ctx context.Context, c *http.Client, base string, admin *service.Admin, o options, out io.Writer) error {
	if _, err := admin.CreateOrg(ctx, "lister", ""); err != nil {
		return err
	}
	token, _, err := admin.CreateToken(ctx, "lister", "bench")
	if err != nil {
		return err
	}
	t0 := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var once sync.Once
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(o.listSets) {
					return
				}
				url := fmt.Sprintf("%s/v1/organizations/lister/secrets/set-%05d", base, i)
				body := fmt.Appendf(nil, `{"set":{"API_KEY":"v%d","LOG_LEVEL":"debug","REGION":"x"},"labels":{"team":"voice"}}`, i)
				code, err := patch(ctx, c, url, token, body)
				if err == nil && code != 201 {
					err = fmt.Errorf("create set-%05d: HTTP %d", i, code)
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	fmt.Fprintf(out, "created %d sets over HTTP in %s\n", o.listSets, time.Since(t0).Round(time.Millisecond))
	var times []time.Duration
	size := 0
	for range o.listRuns {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/organizations/lister/secrets", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		t := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t)
		if err != nil || resp.StatusCode != 200 {
			return fmt.Errorf("list: HTTP %d %v", resp.StatusCode, err)
		}
		size = len(b)
		times = append(times, d)
	}
	slices.Sort(times)
	fmt.Fprintf(out, "list %d sets as JSON (GET, %d runs, %.1f MB)\n", o.listSets, o.listRuns, float64(size)/1e6)
	fmt.Fprintf(out, "  median %s, p90 %s, max %s   (goal < 150ms)\n", pct(times, 0.5), pct(times, 0.9), times[len(times)-1].Round(10*time.Microsecond))
	return nil
}

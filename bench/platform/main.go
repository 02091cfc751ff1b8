// Command platform benchmarks the botkit platform's write path and list.
//
// It serves the platform (pkg/platform over a fresh SQLite file) on
// 127.0.0.1, drives N concurrent HTTP clients doing merges (PATCH) for a
// fixed time, and prints durable writes/s and p50/p99 latency. In the same
// run and directory it measures the raw rate of single fsynced SQLite
// commits (WAL, synchronous=FULL, one INSERT per transaction) and prints the
// ratio: above 1.0 means group commit turns concurrent requests into more
// durable writes per second than one-commit-per-write SQLite could do.
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
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform"
	_ "modernc.org/sqlite"
)

type options struct {
	clients  int
	duration time.Duration
	dir      string
	listSets int
	listRuns int
}

func main() {
	var o options
	flag.IntVar(&o.clients, "clients", 32, "concurrent HTTP clients doing merges")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long each write phase runs")
	flag.StringVar(&o.dir, "dir", "", "directory for the databases (default: a new temporary directory)")
	flag.IntVar(&o.listSets, "list-sets", 10000, "secret sets to create for the list benchmark (0 skips it)")
	flag.IntVar(&o.listRuns, "list-runs", 20, "list requests to time")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	if o.clients < 1 || o.duration <= 0 {
		return fmt.Errorf("-clients must be >= 1 and -duration > 0")
	}
	dir := o.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "botkit-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	srv, err := platform.Open(ctx, platform.Options{DataDir: filepath.Join(dir, "platform")})
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
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.clients + 4, MaxConnsPerHost: o.clients + 4}}

	fmt.Fprintf(out, "botkit platform benchmark — %d clients, %s per phase, dir %s\n\n", o.clients, o.duration, dir)

	// Phase 1: raw SQLite single fsynced commits on the same disk.
	raw, err := rawCommits(ctx, filepath.Join(dir, "raw.db"), o.duration)
	if err != nil {
		return fmt.Errorf("raw sqlite: %w", err)
	}

	// Phase 2: concurrent merges over HTTP.
	commitsBefore := commitCount(srv)
	cpuBefore := cpuTime()
	lat, n, errs, elapsed, err := merges(ctx, client, base, token, o)
	cpuUsed := cpuTime() - cpuBefore
	if err != nil {
		return err
	}
	commits := commitCount(srv) - commitsBefore
	if err := verifyMerges(ctx, client, base, token, o.clients); err != nil {
		return err
	}
	rate := float64(n) / elapsed.Seconds()
	slices.Sort(lat)
	fmt.Fprintf(out, "HTTP merges (PATCH, durable before the answer)\n")
	fmt.Fprintf(out, "  durable writes/s     %10.0f   (%d acknowledged, %d errors, %.1fs)\n", rate, n, errs, elapsed.Seconds())
	fmt.Fprintf(out, "  latency p50 / p99    %10s / %s\n", pct(lat, 0.50), pct(lat, 0.99))
	fmt.Fprintf(out, "  CPU                  %10.2f cores busy (server and clients), %.0f µs per write\n", cpuUsed.Seconds()/elapsed.Seconds(), float64(cpuUsed.Microseconds())/float64(max(n, 1)))
	if commits > 0 {
		fmt.Fprintf(out, "  database commits     %10.0f   (%.1f transactions per commit, provisioner included)\n", commits, (float64(n)+0)/commits)
	}
	fmt.Fprintf(out, "raw SQLite, one INSERT per fsynced commit (WAL, synchronous=FULL), same disk\n")
	fmt.Fprintf(out, "  commits/s            %10.0f\n", raw)
	fmt.Fprintf(out, "ratio HTTP merges / raw commits   %.2f   (goal >= 1.0)\n\n", rate/raw)

	// Phase 3: list 10,000 sets as JSON.
	if o.listSets > 0 {
		if err := listBench(ctx, client, base, admin, srv, o, out); err != nil {
			return err
		}
	}
	return nil
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

func commitCount(srv *platform.Server) float64 {
	mfs, err := srv.Metrics().Gather()
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

// rawCommits measures single-row transactions, each fsynced, for d.
func rawCommits(ctx context.Context, path string, d time.Duration) (float64, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(5000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, k TEXT, v BLOB)`); err != nil {
		return 0, err
	}
	val := bytes.Repeat([]byte{0xab}, 64)
	start := time.Now()
	n := 0
	for time.Since(start) < d {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO t (k, v) VALUES (?, ?)`, fmt.Sprintf("K_%d", n), val); err != nil {
			tx.Rollback()
			return 0, err
		}
		if err := tx.Commit(); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
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

// merges runs o.clients goroutines, each merging one key (a fresh value
// every time) into one of 8 shared sets, for o.duration. Each client is a
// lean HTTP/1.1 client on its own keep-alive connection (like wrk), so that
// the load generator takes little of the CPU the server needs.
func merges(ctx context.Context, _ *http.Client, base, token string, o options) ([]time.Duration, int, int64, time.Duration, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []time.Duration
	var errs atomic.Int64
	var firstErr error
	host := strings.TrimPrefix(base, "http://")
	start := time.Now()
	deadline := start.Add(o.duration)
	for i := range o.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat, err := leanClient(host, token, i, deadline, &errs)
			mu.Lock()
			all = append(all, lat...)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all, len(all), errs.Load(), time.Since(start), firstErr
}

func leanClient(host, token string, i int, deadline time.Time, errs *atomic.Int64) ([]time.Duration, error) {
	conn, err := net.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	br := bufio.NewReaderSize(conn, 16<<10)
	bw := bufio.NewWriterSize(conn, 4<<10)
	path := fmt.Sprintf("/v1/organizations/bench/secrets/bench-%d", i%8)
	var lat []time.Duration
	var body []byte
	for n := 0; time.Now().Before(deadline); n++ {
		body = fmt.Appendf(body[:0], `{"set":{"KEY_%d":"value-%d-%d"}}`, i, i, n)
		t0 := time.Now()
		fmt.Fprintf(bw, "PATCH %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, host, token, len(body))
		bw.Write(body)
		if err := bw.Flush(); err != nil {
			return lat, err
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return lat, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 && resp.StatusCode != 201 {
			errs.Add(1)
			continue
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}

// verifyMerges checks that every client's key is in its set: group commit
// must not lose a merge.
func verifyMerges(ctx context.Context, c *http.Client, base, token string, clients int) error {
	for set := range min(clients, 8) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/v1/organizations/bench/secrets/bench-%d", base, set), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		var obj struct {
			Spec struct{ Keys []string }
		}
		err = json.NewDecoder(resp.Body).Decode(&obj)
		resp.Body.Close()
		if err != nil {
			return err
		}
		for i := set; i < clients; i += 8 {
			if !slices.Contains(obj.Spec.Keys, fmt.Sprintf("KEY_%d", i)) {
				return fmt.Errorf("verification failed: bench-%d lacks KEY_%d", set, i)
			}
		}
	}
	return nil
}

func listBench(ctx context.Context, c *http.Client, base string, admin *platform.Admin, srv *platform.Server, o options, out io.Writer) error {
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

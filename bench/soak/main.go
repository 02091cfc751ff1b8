// Command soak drives the load of bench/soak.sh: M clients doing a mix of
// the platform API's operations against running botkit-platform servers for
// a given time, then an idle spell, and every interval a line of what a
// user of the server would watch: throughput, p50/p99 latency, errors, and
// per server process its RSS and open files, with the SQLite database's
// and write-ahead log's sizes or PostgreSQL's connections and database
// size.
//
// The mix, per client (client i writes its own 8 sets, soak-i-0..7):
// 50% PATCH of one key of one of its sets, 30% GET of one of its sets,
// 8% list (100 sets), 7% DELETE of a key (404 when already gone counts as
// done), 5% the versions of one of its sets.
//
//	soak -url http://127.0.0.1:8787 -token bkp_… -clients 16 -duration 2m -pid 1234 -data-dir DIR
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

type options struct {
	urls     []string
	token    string
	org      string
	clients  int
	duration time.Duration
	idle     time.Duration
	interval time.Duration
	pids     []int
	dataDir  string
	pgURL    string
}

func main() {
	var o options
	var urls, pids string
	flag.StringVar(&urls, "url", "", "comma-separated base URLs of the servers (clients take them in turn)")
	flag.StringVar(&o.token, "token", "", "API token of -org")
	flag.StringVar(&o.org, "org", "soak", "organization the clients write")
	flag.IntVar(&o.clients, "clients", 16, "concurrent clients")
	flag.DurationVar(&o.duration, "duration", 2*time.Minute, "time under load")
	flag.DurationVar(&o.idle, "idle", 10*time.Second, "time measured after the load stopped")
	flag.DurationVar(&o.interval, "interval", 10*time.Second, "time between two report lines")
	flag.StringVar(&pids, "pid", "", "comma-separated process IDs of the servers (RSS, open files)")
	flag.StringVar(&o.dataDir, "data-dir", "", "SQLite: the servers' data directory (database and log sizes)")
	flag.StringVar(&o.pgURL, "pg", "", "PostgreSQL: URL of the servers' database (connections, database size)")
	flag.Parse()
	for u := range strings.SplitSeq(urls, ",") {
		if u != "" {
			o.urls = append(o.urls, strings.TrimSuffix(u, "/"))
		}
	}
	for p := range strings.SplitSeq(pids, ",") {
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "soak: -pid: %q is not a process ID\n", p)
			os.Exit(2)
		}
		o.pids = append(o.pids, n)
	}
	if len(o.urls) == 0 || o.token == "" || o.clients < 1 {
		fmt.Fprintln(os.Stderr, "soak: -url, -token and -clients (≥ 1) are required")
		os.Exit(2)
	}
	if err := run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// window gathers the latencies and errors of one report interval.
type window struct {
	mu     sync.Mutex
	lat    []time.Duration
	errs   int
	errMsg string
}

func (w *window) add(d time.Duration, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.errs++
		w.errMsg = err.Error()
		return
	}
	w.lat = append(w.lat, d)
}

func (w *window) take() (lat []time.Duration, errs int, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	lat, errs, msg = w.lat, w.errs, w.errMsg
	w.lat, w.errs, w.errMsg = nil, 0, ""
	return lat, errs, msg
}

func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

func run(ctx context.Context, o options, out io.Writer) error {
	tr := &http.Transport{MaxIdleConnsPerHost: o.clients, MaxConnsPerHost: o.clients}
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	do := func(method, url, body string, ok ...int) error {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, url, rd)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+o.token)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 300 || slices.Contains(ok, resp.StatusCode) {
			return nil
		}
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	const setsPerClient, keys = 8, 16
	set := func(base string, c, s int) string {
		return fmt.Sprintf("%s/v1/organizations/%s/secrets/soak-%d-%d", base, o.org, c, s)
	}
	// Every client's sets exist before the clock starts.
	for c := range o.clients {
		for s := range setsPerClient {
			if err := do("PATCH", set(o.urls[0], c, s), `{"set":{"K0":"v"}}`); err != nil {
				return err
			}
		}
	}

	var pg *pgx.Conn
	if o.pgURL != "" {
		var err error
		if pg, err = pgx.Connect(ctx, o.pgURL); err != nil {
			return err
		}
		defer pg.Close(ctx)
	}
	fmt.Fprintf(out, "soak: %d clients on %d server(s) for %s, then %s idle; a line every %s\n", o.clients, len(o.urls), o.duration, o.idle, o.interval)
	header := "  time    ops/s     p50      p99  errors   RSS MB (per server)   open files"
	if o.dataDir != "" {
		header += "   db MB   log MB"
	}
	if pg != nil {
		header += "   connections   db MB"
	}
	fmt.Fprintln(out, header)

	var win window
	var total struct {
		sync.Mutex
		lat  []time.Duration
		errs int
	}
	loadCtx, stop := context.WithTimeout(ctx, o.duration)
	defer stop()
	var wg sync.WaitGroup
	for c := range o.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 1))
			base := o.urls[c%len(o.urls)]
			for i := 0; loadCtx.Err() == nil; i++ {
				s, k := rng.IntN(setsPerClient), rng.IntN(keys)
				start := time.Now()
				var err error
				switch p := rng.IntN(100); {
				case p < 50:
					err = do("PATCH", set(base, c, s), fmt.Sprintf(`{"set":{"K%d":"value %d of client %d"}}`, k, i, c))
				case p < 80:
					err = do("GET", set(base, c, s), "")
				case p < 88:
					err = do("GET", fmt.Sprintf("%s/v1/organizations/%s/secrets?limit=100", base, o.org), "")
				case p < 95:
					err = do("DELETE", fmt.Sprintf("%s/keys/K%d", set(base, c, s), k+1), "", http.StatusNotFound)
				default:
					err = do("GET", set(base, c, s)+"/versions?limit=10", "")
				}
				if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
					return
				}
				win.add(time.Since(start), err)
			}
		}()
	}

	begin := time.Now()
	report := func(loaded bool) {
		lat, errs, msg := win.take()
		total.Lock()
		total.lat = append(total.lat, lat...)
		total.errs += errs
		total.Unlock()
		slices.Sort(lat)
		var rss, fds []string
		for _, pid := range o.pids {
			r, f := procStats(pid)
			rss = append(rss, r)
			fds = append(fds, f)
		}
		line := fmt.Sprintf("%6s %8.0f %7s %8s %7d   %-21s %-10s", time.Since(begin).Round(time.Second),
			float64(len(lat))/o.interval.Seconds(), ms(pct(lat, 0.50)), ms(pct(lat, 0.99)), errs,
			strings.Join(rss, "/"), strings.Join(fds, "/"))
		if o.dataDir != "" {
			line += fmt.Sprintf("   %5.1f   %6.1f", mb(fileSize(filepath.Join(o.dataDir, "platform.db"))), mb(fileSize(filepath.Join(o.dataDir, "platform.db-wal"))))
		}
		if pg != nil {
			var conns, size int64
			_ = pg.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pid <> pg_backend_pid()), pg_database_size(current_database()) FROM pg_stat_activity WHERE datname = current_database()`).Scan(&conns, &size)
			line += fmt.Sprintf("   %11d   %5.1f", conns, mb(size))
		}
		if !loaded {
			line += "   (idle)"
		}
		fmt.Fprintln(out, line)
		if msg != "" {
			fmt.Fprintln(out, "        last error:", msg)
		}
	}
	t := time.NewTicker(o.interval)
	defer t.Stop()
	loadDone := make(chan struct{})
	go func() { wg.Wait(); close(loadDone) }()
	// After the load: as many lines as -idle holds intervals (at least one).
	idleLines := max(1, int(o.idle/o.interval))
	for loaded := true; idleLines > 0; {
		select {
		case <-loadDone:
			loadDone, loaded = nil, false
		case <-t.C:
			report(loaded)
			if !loaded {
				idleLines--
			}
		}
	}
	slices.Sort(total.lat)
	fmt.Fprintf(out, "total: %d operations in %s, %.0f ops/s, p50 %s, p99 %s, %d errors\n",
		len(total.lat), o.duration, float64(len(total.lat))/o.duration.Seconds(), ms(pct(total.lat, 0.50)), ms(pct(total.lat, 0.99)), total.errs)
	if total.errs > 0 {
		return fmt.Errorf("%d operations failed", total.errs)
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

func mb(n int64) float64 { return float64(n) / (1 << 20) }

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// procStats returns a process's resident memory in MB and its number of
// open files, from /proc ("-" when it cannot be read).
func procStats(pid int) (rss, files string) {
	rss, files = "-", "-"
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				if kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))); err == nil {
					rss = fmt.Sprintf("%.0f", float64(kb)/1024)
				}
			}
		}
	}
	if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		files = strconv.Itoa(len(ents))
	}
	return rss, files
}

package main_test

// End-to-end tests of the platform on PostgreSQL: real botkit-platform
// processes (several replicas on one database), a real PostgreSQL 15 server
// (internal/testsupport/pgtest), real HTTP on 127.0.0.1.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/redact"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/pgtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/sealed"
)

// pgPlatform is a PostgreSQL database and the master key file its replicas
// share.
type pgPlatform struct {
	url     string
	keyFile string
}

func newPGPlatform(t *testing.T, url string) pgPlatform {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "master.key")
	if err := os.WriteFile(f, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return pgPlatform{url: url, keyFile: f}
}

func (p pgPlatform) admin(t *testing.T, args ...string) string {
	t.Helper()
	return admin(t, append(args, "--store", p.url)...)
}

// newOrg creates an organization and returns a new token of it.
func (p pgPlatform) newOrg(t *testing.T, name string) string {
	t.Helper()
	p.admin(t, "orgs", "create", name)
	return p.newToken(t, name)
}

func (p pgPlatform) newToken(t *testing.T, org string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(p.admin(t, "tokens", "create", "--org", org)), "\n")
	tok := lines[len(lines)-1]
	if !strings.HasPrefix(tok, "bkp_") {
		t.Fatalf("tokens create: last line %q is not a token", tok)
	}
	return tok
}

// start runs one more replica.
func (p pgPlatform) start(t *testing.T, extra ...string) *server {
	t.Helper()
	return startServer(t, t.TempDir(), append([]string{"--store", p.url, "--master-key-file", p.keyFile}, extra...)...)
}

// try sends a request and reports transport errors instead of failing the
// test (the server may be down on purpose).
func try(base, token, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	r, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer r.Body.Close()
	data, err := io.ReadAll(r.Body)
	return r.StatusCode, data, err
}

// fakeRegistry answers GET /v2/ with 200 and counts the checks per user.
// It is a fake, not the real docker-registry the other registry tests use,
// because these tests must count each check and hold one open.
type fakeRegistry struct {
	srv     *httptest.Server
	mu      sync.Mutex
	hits    map[string]int
	stall   string        // the first check of this user blocks until release closes
	stalled chan struct{} // closed when that check arrived
	release chan struct{}
}

func newFakeRegistry(t *testing.T, stallUser string) *fakeRegistry {
	r := &fakeRegistry{hits: map[string]int{}, stall: stallUser, stalled: make(chan struct{}), release: make(chan struct{})}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		user, _, ok := req.BasicAuth()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="fake"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.mu.Lock()
		r.hits[user]++
		first := r.hits[user] == 1
		r.mu.Unlock()
		if user == r.stall && first {
			close(r.stalled)
			<-r.release
			return // the client is gone by then
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(func() {
		select {
		case <-r.release:
		default:
			close(r.release)
		}
		r.srv.Close()
	})
	return r
}

func (r *fakeRegistry) count(user string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits[user]
}

func ipsBody(host, user string) map[string]any {
	return map[string]any{"kind": "ImagePullSecret", "host": host, "credentials": user + ":pw"}
}

// TestPostgresReplicas: three replicas on one database behave as one
// platform.
func TestPostgresReplicas(t *testing.T) {
	p := newPGPlatform(t, pg.Database(t))
	tok := p.newOrg(t, "acme")
	var reps []*server
	for range 3 {
		reps = append(reps, p.start(t, "--allow-private-registries"))
	}

	t.Run("merges spread over replicas keep every key", func(t *testing.T) {
		const n = 90
		var wg sync.WaitGroup
		errs := make(chan string, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := call(t, reps[i%3].url, tok, "PATCH", objPath("acme", "busy"), setBody(fmt.Sprintf("KEY_%03d", i), fmt.Sprint("v", i)))
				if r.status != 200 && r.status != 201 {
					errs <- fmt.Sprintf("merge %d: %d %s", i, r.status, r.body)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
		for i, s := range reps {
			if keys := keysOf(t, s.call(tok, "GET", objPath("acme", "busy"), nil).json(t)); len(keys) != n {
				t.Errorf("replica %d sees %d keys after %d merges", i, len(keys), n)
			}
		}
		r := reps[1].call(tok, "GET", "/v1/organizations/acme/audit?limit=1000", nil)
		if c := strings.Count(string(r.body), `"action":"create"`); c != 1 {
			t.Errorf("%d creates in the audit log, want 1", c)
		}
	})

	// The bound (a second) is the token cache's, TestTokenCacheStoreEpoch
	// tests it with the clock in hand; here every replica must get there.
	t.Run("a revoked token stops working on every replica", func(t *testing.T) {
		tok2 := p.newToken(t, "acme")
		for range 2 { // the second request is served from each replica's cache
			for i, s := range reps {
				if st, _, err := try(s.url, tok2, "GET", "/v1/me", nil); st != 200 {
					t.Fatalf("replica %d: /v1/me %d %v", i, st, err)
				}
			}
		}
		p.admin(t, "tokens", "revoke", tok2)
		revoked := time.Now()
		for i, s := range reps {
			testenv.Eventually(t, fmt.Sprintf("replica %d to refuse the revoked token", i), func() bool {
				st, _, err := try(s.url, tok2, "GET", "/v1/me", nil)
				return err == nil && st == 401
			})
		}
		t.Logf("revocation seen by all replicas after %s", time.Since(revoked).Round(time.Millisecond))
		for i, s := range reps {
			if st, _, err := try(s.url, tok2, "GET", "/v1/me", nil); err != nil || st != 401 {
				t.Errorf("replica %d accepts the revoked token again: %d", i, st)
			}
			if st, _, err := try(s.url, tok, "GET", "/v1/me", nil); err != nil || st != 200 {
				t.Errorf("replica %d refuses the other token: %d", i, st)
			}
		}
	})

	t.Run("each pending object is provisioned exactly once (last: stops the replicas)", func(t *testing.T) {
		reg := newFakeRegistry(t, "")
		const n = 12
		for i := range n {
			expectStatus(t, reps[i%3].call(tok, "PATCH", objPath("acme", fmt.Sprint("reg-", i)), ipsBody(reg.srv.URL, fmt.Sprint("user", i))), 201, "create IPS")
		}
		for i := range n {
			obj := reps[(i+1)%3].waitState(tok, "acme", fmt.Sprint("reg-", i))
			if st, msg := state(obj); st != "ready" {
				t.Errorf("reg-%d: %s %s", i, st, msg)
			}
		}
		// Stop every replica: a check one of them started has then reached
		// the registry or ended, and the count is final.
		for _, s := range reps {
			s.stop()
		}
		for i := range n {
			if c := reg.count(fmt.Sprint("user", i)); c != 1 {
				t.Errorf("reg-%d was checked %d times, want exactly once", i, c)
			}
		}
	})
}

// TestPostgresProvisionTakeover: a replica killed with SIGKILL in the middle
// of a registry check leaves nothing stuck: another replica claims the
// object when the lease runs out and finishes it.
func TestPostgresProvisionTakeover(t *testing.T) {
	p := newPGPlatform(t, pg.Database(t))
	tok := p.newOrg(t, "acme")
	reg := newFakeRegistry(t, "stall")
	flags := []string{"--allow-private-registries", "--provision-lease", "1s"}
	a := p.start(t, flags...)
	expectStatus(t, a.call(tok, "PATCH", objPath("acme", "regcred"), ipsBody(reg.srv.URL, "stall")), 201, "create IPS")
	testenv.Within(t, "the first replica to check the registry", reg.stalled)
	b := p.start(t, flags...)
	a.kill9()
	obj := b.waitState(tok, "acme", "regcred")
	if st, msg := state(obj); st != "ready" {
		t.Errorf("after the takeover: %s %s", st, msg)
	}
	if c := reg.count("stall"); c != 2 {
		t.Errorf("the registry saw %d checks, want 2 (the killed replica's and the takeover)", c)
	}
}

// TestPostgresKill9UnderLoad: kill -9 one of three replicas while clients
// write through all of them: every acknowledged write is there afterwards,
// and the other replicas keep serving.
func TestPostgresKill9UnderLoad(t *testing.T) {
	p := newPGPlatform(t, pg.Database(t))
	tok := p.newOrg(t, "acme")
	var reps []*server
	for range 3 {
		reps = append(reps, p.start(t))
	}
	var mu sync.Mutex
	acked := map[string][]string{}
	var killed atomic.Bool
	var afterKill atomic.Int64
	var beforeKill atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 9 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				set := fmt.Sprintf("set-%d-%d", w%4, i/100) // under 1,000 keys a set
				rep := reps[(w+i)%3]
				key := fmt.Sprintf("K_%d_%d", w, i)
				st, body, err := try(rep.url, tok, "PATCH", objPath("acme", set), setBody(key, "v"))
				switch {
				case err == nil && (st == 200 || st == 201):
					mu.Lock()
					acked[set] = append(acked[set], key)
					mu.Unlock()
					if !killed.Load() {
						beforeKill.Add(1)
					} else if rep != reps[0] {
						afterKill.Add(1)
					}
				case err != nil && rep == reps[0] && killed.Load():
					// the killed replica: not acknowledged
				default:
					t.Errorf("merge through replica %d: %d %s %v", slices.Index(reps, rep), st, body, err)
					return
				}
			}
		}()
	}
	// Writes counted, not time: the kill lands among acknowledged writes,
	// and the survivors acknowledge more afterwards, however slow the
	// machine.
	testenv.Eventually(t, "50 writes acknowledged before the kill", func() bool { return beforeKill.Load() >= 50 || t.Failed() })
	killed.Store(true)
	reps[0].kill9()
	testenv.Eventually(t, "50 writes acknowledged by the survivors after the kill", func() bool { return afterKill.Load() >= 50 || t.Failed() })
	close(stop)
	wg.Wait()
	if afterKill.Load() == 0 {
		t.Fatal("no write was acknowledged by the surviving replicas after the kill")
	}
	total := 0
	for set, keys := range acked {
		r := reps[1].call(tok, "GET", objPath("acme", set), nil)
		expectStatus(t, r, 200, "GET "+set)
		got := keysOf(t, r.json(t))
		for _, k := range keys {
			if !slices.Contains(got, k) {
				t.Errorf("%s: acknowledged key %s lost", set, k)
			}
		}
		total += len(keys)
		if st, _ := state(reps[2].waitState(tok, "acme", set)); st != "ready" {
			t.Errorf("%s: %s after the kill", set, st)
		}
	}
	t.Logf("%d writes acknowledged, %d by the survivors after the kill", total, afterKill.Load())
}

// TestPostgresRestartUnderLoad: while PostgreSQL restarts, replicas answer
// 503, recover by themselves afterwards, and lose no acknowledged write.
func TestPostgresRestartUnderLoad(t *testing.T) {
	c := pgtest.Start(t) // its own server: this test stops it
	p := newPGPlatform(t, c.Database(t))
	tok := p.newOrg(t, "acme")
	reps := []*server{p.start(t), p.start(t)}
	var mu sync.Mutex
	acked := map[string][]string{}
	statuses := map[int]int{}
	var down atomic.Bool
	var unavailable, afterRestart, okBefore atomic.Int64
	restarted := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			set := fmt.Sprint("set-", w%2)
			deadline := time.Now().Add(testenv.Patience)
			for i := 0; ; i++ {
				st, body, err := try(reps[(w+i)%2].url, tok, "PATCH", objPath("acme", set), setBody(fmt.Sprintf("K_%d_%d", w, i), "v"))
				if err != nil {
					t.Errorf("replica unreachable: %v", err)
					return
				}
				mu.Lock()
				statuses[st]++
				if st == 200 || st == 201 {
					acked[set] = append(acked[set], fmt.Sprintf("K_%d_%d", w, i))
					if !down.Load() {
						okBefore.Add(1)
					}
				}
				mu.Unlock()
				switch st {
				case 200, 201:
				case 503:
					unavailable.Add(1)
					if !strings.Contains(string(body), `"unavailable"`) {
						t.Errorf("503 body: %s", body)
					}
				default:
					t.Errorf("status %d while the database restarts: %s", st, body)
					return
				}
				select {
				case <-restarted:
					if st == 200 || st == 201 {
						if afterRestart.Add(1) >= 40 {
							return
						}
					}
				default:
				}
				if time.Now().After(deadline) {
					t.Errorf("writer %d: no recovery within %s", w, testenv.Patience)
					return
				}
				if st == 503 {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	testenv.Eventually(t, "writes acknowledged before the restart", func() bool { return okBefore.Load() >= 20 || t.Failed() })
	down.Store(true)
	if err := c.StopServer("immediate"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "writes answered 503 while the database is down", func() bool { return unavailable.Load() >= 4 || t.Failed() })
	// While it is down, a read is a 503 too.
	if st, body, err := try(reps[0].url, tok, "GET", objPath("acme", "set-0"), nil); st != 503 {
		t.Errorf("GET while the database is down: %d %s %v", st, body, err)
	}
	if st, _, err := try(reps[1].url, "", "GET", "/healthz", nil); err != nil || st != 200 {
		t.Errorf("/healthz while the database is down: %d", st)
	}
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	close(restarted)
	wg.Wait()
	if unavailable.Load() == 0 {
		t.Error("no 503 while the database was down")
	}
	if afterRestart.Load() == 0 {
		t.Fatal("no write acknowledged after the restart")
	}
	for set, keys := range acked {
		got := keysOf(t, reps[1].call(tok, "GET", objPath("acme", set), nil).json(t))
		for _, k := range keys {
			if !slices.Contains(got, k) {
				t.Errorf("%s: acknowledged key %s lost in the restart", set, k)
			}
		}
	}
	t.Logf("statuses %v", statuses)
}

// TestPostgresStartErrors: a replica without a reachable database or a
// shared master key does not start, and says why in one line.
func TestPostgresStartErrors(t *testing.T) {
	key := newPGPlatform(t, "").keyFile
	port := testenv.FreePort(t)
	url := fmt.Sprintf("postgres://bot:s3cret-pw@127.0.0.1:%d/platform?sslmode=disable", port)
	start := time.Now()
	_, e, code := runCmd("serve", "--listen", "127.0.0.1:0", "--store", url, "--master-key-file", key)
	lines := strings.Split(strings.TrimRight(e, "\n"), "\n")
	if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(e, "unreachable") ||
		!strings.Contains(e, fmt.Sprintf("127.0.0.1:%d", port)) || strings.Contains(e, "s3cret-pw") {
		t.Errorf("unreachable database: exit %d after %s, stderr %q", code, time.Since(start).Round(time.Millisecond), e)
	}
	t.Setenv("BOTKIT_PLATFORM_STORE", url)
	if _, e, code := runCmd("orgs", "list"); code != 1 || strings.Count(e, "\n") != 1 || strings.Contains(e, "s3cret-pw") {
		t.Errorf("orgs list on an unreachable database (store from the environment): exit %d, %q", code, e)
	}
	if _, e, code := runCmd("serve", "--listen", "127.0.0.1:0"); code != 2 || !strings.Contains(e, "--master-key-file") {
		t.Errorf("no master key with a PostgreSQL store: exit %d, %q", code, e)
	}
	if _, e, code := runCmd("serve", "--store", "mysql://x", "--master-key-file", key); code != 2 || !strings.Contains(e, "--store") {
		t.Errorf("not a postgres URL: exit %d, %q", code, e)
	}
	// A key=value DSN, a URL that does not parse: the message never holds
	// the password.
	for _, store := range []string{"host=db user=bot password=HUNTER2-pw dbname=x", "postgres://bot:HUNTER2-pw%zz@db/x"} {
		for _, args := range [][]string{{"serve", "--listen", "127.0.0.1:0", "--store", store, "--master-key-file", key}, {"migrate", "--from", t.TempDir(), "--to", store}, {"orgs", "list", "--store", store}} {
			if _, e, code := runCmd(args...); code == 0 || strings.Contains(e, "HUNTER2") || (args[0] == "serve" && !strings.Contains(e, "REDACTED")) {
				t.Errorf("%s with --store %s: exit %d, %q", args[0], redact.Location(store), code, e)
			}
		}
	}
	t.Setenv("BOTKIT_PLATFORM_STORE", "")
	for _, args := range [][]string{
		{"--data-dir", t.TempDir(), "--commit-delay", "1ms"}, // SQLite
		{"--store", url, "--master-key-file", key, "--commit-delay", "2s"},
		{"--store", url, "--master-key-file", key, "--commit-delay", "-1ms"},
		{"--store", url, "--master-key-file", key, "--commit-delay", "1ms", "--commit-batch", "65"},
	} {
		if _, e, code := runCmd(append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...); code != 2 || !strings.Contains(e, args[len(args)-2]) {
			t.Errorf("serve %v: exit %d, %q", args, code, e)
		}
	}
}

// TestRulesOnBothStores: the rules of docs/platform.md hold on SQLite and on
// PostgreSQL alike: If-Match, names unique per organization across regions
// and kinds, isolation, limits, values encrypted at rest.
func TestRulesOnBothStores(t *testing.T) {
	const canary = "CANARY-3b7e1d-pg-at-rest"
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			var s *server
			var tokA, tokB, atRest string
			if backend == "sqlite" {
				dir := t.TempDir()
				tokA, tokB = newOrg(t, dir, "org-a"), newOrg(t, dir, "org-b")
				s, atRest = startServer(t, dir), dir
			} else {
				p := newPGPlatform(t, pg.Database(t))
				tokA, tokB = p.newOrg(t, "org-a"), p.newOrg(t, "org-b")
				s, atRest = p.start(t), pg.Cluster(t).Dir()
			}
			r := s.call(tokA, "PATCH", objPath("org-a", "app"), setBody("API_KEY", canary, "LEVEL", "debug"))
			expectStatus(t, r, 201, "create")
			version := r.header.Get("ETag")
			expectStatus(t, s.call(tokA, "PATCH", objPath("org-a", "app"), setBody("MORE", "x")), 200, "merge")
			stale := s.call(tokA, "PUT", objPath("org-a", "app"), secretSet("app", nil, map[string]string{"API_KEY": "y"}, ""), "If-Match: "+version)
			expectStatus(t, stale, 409, "PUT with a stale If-Match")
			expectStatus(t, s.call(tokA, "PATCH", objPath("org-a", "app"), map[string]any{"kind": "ImagePullSecret", "host": "ghcr.io", "credentials": "u:p"}), 409, "same name, other kind")
			expectStatus(t, s.call(tokA, "PATCH", objPath("org-a", "app"), map[string]any{"region": "eu-central", "set": map[string]string{"X": "1"}}), 409, "same name, other region")
			foreign := s.call(tokB, "GET", objPath("org-a", "app"), nil)
			missing := s.call(tokB, "GET", objPath("org-zz", "app"), nil)
			if foreign.status != 404 || strings.ReplaceAll(string(foreign.body), "org-a", "org-zz") != string(missing.body) {
				t.Errorf("another organization's object: %d %s; a missing organization's: %s", foreign.status, foreign.body, missing.body)
			}
			big := strings.Repeat("x", 64*1024+1)
			expectStatus(t, s.call(tokA, "PATCH", objPath("org-a", "app"), setBody("BIG", big)), 413, "value over 64 KiB")
			// The value decrypts: a replace with the same values changes nothing.
			plan := s.call(tokA, "PUT", objPath("org-a", "app")+"?dryRun=true", secretSet("app", nil, map[string]string{"API_KEY": canary, "LEVEL": "debug", "MORE": "x"}, ""))
			expectStatus(t, plan, 200, "dry run")
			if !strings.Contains(string(plan.body), `"action":"unchanged"`) {
				t.Errorf("dry run of the same values: %s", plan.body)
			}
			// Nowhere at rest in clear: not in the database files, the WAL,
			// nor in any other file of the store.
			err := filepath.WalkDir(atRest, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !d.Type().IsRegular() {
					return nil
				}
				b, err := os.ReadFile(path)
				if err == nil && (bytes.Contains(b, []byte(canary)) || bytes.Contains(b, []byte(base64.StdEncoding.EncodeToString([]byte(canary))))) {
					t.Errorf("the value is in clear in %s", path)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestMigrate: `migrate --from DIR --to URL` copies every organization,
// token, object, value and audit record of a SQLite data directory into
// PostgreSQL, where replicas with the directory's master key read them.
func TestMigrate(t *testing.T) {
	dir := t.TempDir()
	reg := newFakeRegistry(t, "")
	tokA := newOrg(t, dir, "acme", "--default-region", "eu-central")
	tokB := newOrg(t, dir, "beta")
	revoked := strings.TrimSpace(admin(t, "tokens", "create", "--org", "acme", "--data-dir", dir))
	admin(t, "tokens", "revoke", revoked, "--data-dir", dir)
	// acme's region has a runtime: a real engine (a private dockerd), which
	// runs nothing here: the deployment below is recorded failed (the
	// fake registry gives no digest).
	eng := dockertest.Start(t)
	old := startServer(t, dir, "--allow-private-registries", "--runtime", "eu-central=docker://"+strings.TrimPrefix(eng.Host, "unix://"))
	values := map[string]map[string]string{}
	for i := range 5 {
		name := fmt.Sprint("set-", i)
		values[name] = map[string]string{"API_KEY": fmt.Sprint("secret-", i), "LEVEL": "debug"}
		expectStatus(t, old.call(tokA, "PUT", objPath("acme", name), secretSet(name, map[string]string{"team": "voice"}, values[name], "")), 201, "create "+name)
	}
	expectStatus(t, old.call(tokA, "DELETE", objPath("acme", "set-4")+"/keys/LEVEL", nil), 200, "delete a key")
	delete(values["set-4"], "LEVEL")
	expectStatus(t, old.call(tokB, "PATCH", objPath("beta", "regcred"), ipsBody(reg.srv.URL, "robot")), 201, "create IPS")
	old.waitState(tokB, "beta", "regcred")
	// An applied object keeps its owner (managedBy, applySet: in the list).
	applied := map[string]any{"applySet": "prod", "objects": []any{secretSet("applied", nil, map[string]string{"A": "1"}, "")}}
	expectStatus(t, old.call(tokA, "POST", "/v1/organizations/acme/apply", applied), 200, "apply")
	old.waitState(tokA, "acme", "applied")
	// acme's sealing key (made at this first request) goes along: a value
	// sealed before the migration opens after it.
	keyBefore := old.call(tokA, "GET", "/v1/organizations/acme/sealing-key", nil)
	expectStatus(t, keyBefore, 200, "sealing key")
	var sk struct{ Recipient string }
	if err := json.Unmarshal(keyBefore.body, &sk); err != nil {
		t.Fatal(err)
	}
	rcp, err := sealed.ParseRecipient(sk.Recipient)
	if err != nil {
		t.Fatal(err)
	}
	sealedValue, err := sealed.Seal(rcp, sealed.Binding{Scope: sealed.ScopeStrict, Organization: "acme", Set: "set-0", Key: "API_KEY"}, values["set-0"]["API_KEY"])
	if err != nil {
		t.Fatal(err)
	}
	// An agent with a deployment (failed: the fake registry gives no
	// digest), and one without.
	agentBody := func(image string) map[string]any {
		return map[string]any{"apiVersion": "botkit.dev/v1", "kind": "Agent", "metadata": map[string]any{"labels": map[string]string{"team": "voice"}},
			"spec": map[string]any{"image": image, "secretSet": "set-0", "scaling": map[string]any{"minAgents": 1, "maxAgents": 2}}}
	}
	regHost := strings.TrimPrefix(reg.srv.URL, "http://")
	expectStatus(t, old.call(tokA, "PUT", "/v1/organizations/acme/agents/bot", agentBody(regHost+"/acme/bot:1")), 201, "create agent")
	expectStatus(t, old.call(tokA, "POST", "/v1/organizations/acme/agents/bot/deployments", map[string]any{}), 201, "deploy")
	expectStatus(t, old.call(tokA, "PUT", "/v1/organizations/acme/agents/idle", agentBody(regHost+"/acme/idle:2")), 201, "create agent")
	// A public key goes along (a deleted one stays behind).
	expectStatus(t, old.call(tokA, "POST", "/v1/organizations/acme/keys", map[string]any{"name": "web", "allowedOrigins": []string{"https://a.example"}}), 201, "create a public key")
	var gone struct{ ID string }
	goneKey := old.call(tokA, "POST", "/v1/organizations/acme/keys", map[string]any{})
	expectStatus(t, goneKey, 201, "create a public key")
	if err := json.Unmarshal(goneKey.body, &gone); err != nil {
		t.Fatal(err)
	}
	expectStatus(t, old.call(tokA, "DELETE", "/v1/organizations/acme/keys/"+gone.ID, nil), 200, "delete a public key")
	snapshot := func(s *server) map[string][]byte {
		out := map[string][]byte{}
		out["acme keys"] = s.call(tokA, "GET", "/v1/organizations/acme/keys", nil).body
		for _, q := range []struct{ tok, org string }{{tokA, "acme"}, {tokB, "beta"}} {
			out[q.org+" list"] = s.call(q.tok, "GET", fmt.Sprintf(secretsPath, q.org), nil).body
			out[q.org+" audit"] = s.call(q.tok, "GET", "/v1/organizations/"+q.org+"/audit?limit=1000", nil).body
		}
		for _, a := range []string{"bot", "idle"} {
			out[a+" deployments"] = s.call(tokA, "GET", "/v1/organizations/acme/agents/"+a+"/deployments", nil).body
			var ag resources.Agent
			if err := json.Unmarshal(s.call(tokA, "GET", "/v1/organizations/acme/agents/"+a, nil).body, &ag); err != nil {
				t.Fatal(err)
			}
			ag.Status = nil // what the engine shows (here: none)
			b, err := json.Marshal(ag)
			if err != nil {
				t.Fatal(err)
			}
			out[a] = b
		}
		return out
	}
	before := snapshot(old)
	tokensBefore := admin(t, "tokens", "list", "--org", "acme", "-o", "json", "--data-dir", dir)
	old.stop()

	url := pg.Database(t)
	out := admin(t, "migrate", "--from", dir, "--to", url)
	if !strings.Contains(out, "migrated 2 organizations, 3 tokens, 1 sealing keys, 1 public keys, 7 objects (11 values), 2 agents (1 deployments), 14 audit records") {
		t.Errorf("migrate: %s", out)
	}
	if _, e, code := runCmd("migrate", "--from", dir, "--to", url); code != 5 || !strings.Contains(e, "empty database") {
		t.Errorf("second migrate into the same database: exit %d %s", code, e)
	}
	if _, e, code := runCmd("migrate", "--from", t.TempDir(), "--to", url); code != 3 {
		t.Errorf("migrate from an empty directory: exit %d %s", code, e)
	}
	if _, e, code := runCmd("migrate", "--from", dir); code != 2 || !strings.Contains(e, "--to") {
		t.Errorf("migrate without --to: exit %d %s", code, e)
	}

	// The master key's check went along: a replica with another key is
	// refused before it serves (exit 1), and so is the SQLite directory
	// without its key file (no new key is made for it).
	otherKey := filepath.Join(t.TempDir(), "other.key")
	if err := os.WriteFile(otherKey, []byte(strings.Repeat("77", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, e, code := runCmd("serve", "--listen", "127.0.0.1:0", "--store", url, "--master-key-file", otherKey); code != 1 || !strings.Contains(e, "is not the key the platform's values were encrypted with") {
		t.Errorf("serve with another master key: exit %d, %q", code, e)
	}
	keyFile := filepath.Join(dir, "master.key")
	saved := readFile(t, keyFile)
	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}
	if _, e, code := runCmd("serve", "--listen", "127.0.0.1:0", "--data-dir", dir); code != 1 || !strings.Contains(e, keyFile+" is missing") {
		t.Errorf("serve without the data directory's key: exit %d, %q", code, e)
	}
	if _, err := os.Stat(keyFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("serve made a new master key: %v", err)
	}
	if err := os.WriteFile(keyFile, []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}

	p := pgPlatform{url: url, keyFile: keyFile}
	s := p.start(t, "--allow-private-registries")
	after := snapshot(s)
	for k, b := range before {
		if !bytes.Equal(b, after[k]) {
			t.Errorf("%s differs after the migration:\nbefore %s\nafter  %s", k, b, after[k])
		}
	}
	if got := p.admin(t, "tokens", "list", "--org", "acme", "-o", "json"); got != tokensBefore {
		t.Errorf("tokens after the migration:\n%s\nbefore:\n%s", got, tokensBefore)
	}
	if st, _, err := try(s.url, revoked, "GET", "/v1/me", nil); err != nil || st != 401 {
		t.Errorf("revoked token after the migration: %d", st)
	}
	// Every value decrypts with the old master key: replacing with the same
	// values plans nothing.
	for name, vals := range values {
		r := s.call(tokA, "PUT", objPath("acme", name)+"?dryRun=true", secretSet(name, map[string]string{"team": "voice"}, vals, ""))
		expectStatus(t, r, 200, "dry run of "+name)
		if !strings.Contains(string(r.body), `"action":"unchanged"`) {
			t.Errorf("%s after the migration: %s", name, r.body)
		}
	}
	if r := s.call(tokA, "GET", "/v1/organizations/acme/sealing-key", nil); !bytes.Equal(r.body, keyBefore.body) {
		t.Errorf("sealing key after the migration:\n%s\nbefore:\n%s", r.body, keyBefore.body)
	}
	sealedSet := map[string]any{"apiVersion": "botkit.dev/v1", "kind": "SecretSet", "metadata": map[string]any{"name": "set-0", "labels": map[string]string{"team": "voice"}},
		"spec": map[string]any{"data": map[string]any{"API_KEY": map[string]string{"sealed": sealedValue}, "LEVEL": "debug"}}}
	if r := s.call(tokA, "PUT", objPath("acme", "set-0")+"?dryRun=true", sealedSet); r.status != 200 || !strings.Contains(string(r.body), `"action":"unchanged"`) {
		t.Errorf("a value sealed before the migration, after it: %d %s", r.status, r.body)
	}
	// The applied object is still its apply set's: pruning the set would
	// delete it.
	prune := map[string]any{"applySet": "prod", "prune": true, "dryRun": true, "objects": []any{}}
	if r := s.call(tokA, "POST", "/v1/organizations/acme/apply", prune); r.status != 200 || !strings.Contains(string(r.body), `"name":"applied"`) || !strings.Contains(string(r.body), `"action":"pruned"`) {
		t.Errorf("prune of the migrated apply set: %d %s", r.status, r.body)
	}
	// New writes get versions above the migrated ones.
	old0 := s.call(tokA, "GET", objPath("acme", "set-0"), nil).header.Get("ETag")
	r := s.call(tokA, "PATCH", objPath("acme", "set-0"), setBody("NEW", "1"))
	expectStatus(t, r, 200, "merge after the migration")
	if nv, ov := strings.Trim(r.header.Get("ETag"), `"`), strings.Trim(old0, `"`); len(nv) < len(ov) || (len(nv) == len(ov) && nv <= ov) {
		t.Errorf("version after the migration %s, before %s", nv, ov)
	}
	// The copy's history starts at its contents (version 1 of set-0, the
	// generation it had): a rollback to it after that write gives back
	// exactly the migrated values.
	expectStatus(t, s.call(tokA, "POST", objPath("acme", "set-0")+"/versions/1/rollback", nil), 200, "rollback to the migrated version")
	r = s.call(tokA, "PUT", objPath("acme", "set-0")+"?dryRun=true", secretSet("set-0", map[string]string{"team": "voice"}, values["set-0"], ""))
	if r.status != 200 || !strings.Contains(string(r.body), `"action":"unchanged"`) {
		t.Errorf("set-0 after the rollback to its migrated version: %d %s", r.status, r.body)
	}
}

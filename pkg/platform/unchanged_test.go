package platform_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const unchangedCanary = "CANARY-unch4nged-51fa"

// unchangedAPI sends requests to a platform started by startHistory,
// checked against api/openapi.yaml, and never sees a value in an answer.
type unchangedAPI struct {
	t    *testing.T
	c    *apitest.Contract
	base string
	auth map[string]string
}

func (a unchangedAPI) do(method, path, body string, want int, h ...string) apitest.Reply {
	a.t.Helper()
	headers := map[string]string{"Authorization": a.auth["Authorization"]}
	for i := 0; i+1 < len(h); i += 2 {
		headers[h[i]] = h[i+1]
	}
	r, err := a.c.Do(a.t, a.base, method, path, body, headers)
	if err != nil {
		a.t.Fatal(err)
	}
	if r.Status != want {
		a.t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
	}
	if strings.Contains(string(r.Body), unchangedCanary) {
		a.t.Fatalf("%s %s answered a value: %s", method, path, r.Body)
	}
	return r
}

func (a unchangedAPI) object(method, path, body string, want int, h ...string) resources.Object {
	a.t.Helper()
	var o resources.Object
	if err := json.Unmarshal(a.do(method, path, body, want, h...).Body, &o); err != nil {
		a.t.Fatal(err)
	}
	return o
}

// versions returns the object's history as "N source +added ~changed -removed".
func (a unchangedAPI) versions(name string) []string {
	a.t.Helper()
	var list resources.ObjectVersionList
	if err := json.Unmarshal(a.do("GET", "/v1/organizations/acme/secrets/"+name+"/versions", "", 200).Body, &list); err != nil {
		a.t.Fatal(err)
	}
	var out []string
	for _, v := range list.Items {
		s := strconv.FormatInt(v.Version, 10) + " " + v.Source
		for _, l := range []struct {
			mark string
			keys []string
		}{{"+", v.Added}, {"~", v.Changed}, {"-", v.Removed}} {
			for _, k := range l.keys {
				s += " " + l.mark + k
			}
		}
		out = append(out, s)
	}
	return out
}

func wantVersions(t *testing.T, a unchangedAPI, name string, want ...string) {
	t.Helper()
	if got := a.versions(name); !slices.Equal(got, want) {
		t.Fatalf("history of %s:\n  %s\nwant:\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// Issue 27: a write that changes no value makes no version (the same
// resourceVersion and generation, nothing in the history); a write lists
// exactly the keys whose value changed; ten re-runs of the same write
// leave the older versions to roll back to; an image pull secret with the
// same credentials is unchanged and with others is ~credentials; a
// rollback to the current contents writes nothing. On both stores.
func TestWritesThatChangeNothing(t *testing.T) {
	c := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		base, auth, _, dir := startHistory(t, db)
		a := unchangedAPI{t: t, c: c, base: base, auth: auth}
		const set = "/v1/organizations/acme/secrets/app"
		v1 := `{"set":{"A":"` + unchangedCanary + `-a1","B":"b1"}}`
		v2 := `{"set":{"A":"` + unchangedCanary + `-a1","B":"b2","C":"c"}}` // A the same, B changed (same size), C new
		first := a.object("PATCH", set, v1, 201)
		again := a.object("PATCH", set, v1, 200)
		if again.Meta().ResourceVersion != first.Meta().ResourceVersion || again.Meta().Generation != 1 {
			t.Errorf("the same merge again: resourceVersion %s generation %d, want %s and 1",
				again.Meta().ResourceVersion, again.Meta().Generation, first.Meta().ResourceVersion)
		}
		second := a.object("PATCH", set, v2, 200)
		if second.Meta().Generation != 2 {
			t.Fatalf("a merge that changes B and adds C: generation %d, want 2", second.Meta().Generation)
		}
		// A CI job re-running the same write ten times.
		for range 10 {
			o := a.object("PATCH", set, v2, 200)
			if o.Meta().ResourceVersion != second.Meta().ResourceVersion {
				t.Fatalf("a re-run wrote: resourceVersion %s, want %s", o.Meta().ResourceVersion, second.Meta().ResourceVersion)
			}
		}
		wantVersions(t, a, "app", "2 set +C ~B", "1 set +A +B")
		// A PUT with the same values, and one with the same labels only, too.
		a.do("PUT", set, `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"app"},"spec":{"data":{"A":"`+unchangedCanary+`-a1","B":"b2","C":"c"}}}`, 200)
		a.do("PATCH", set, `{"labels":{}}`, 200)
		wantVersions(t, a, "app", "2 set +C ~B", "1 set +A +B")

		// Version 1 is still there: the rollback works and lists what it
		// changes, not every key.
		rolled := a.object("POST", set+"/versions/1/rollback", "", 200, "If-Match", `"`+second.Meta().ResourceVersion+`"`)
		if rolled.Meta().Generation != 3 || !slices.Equal(rolled.SecretSet.Spec.Keys, []string{"A", "B"}) {
			t.Fatalf("rollback to 1: generation %d keys %v", rolled.Meta().Generation, rolled.SecretSet.Spec.Keys)
		}
		// Rolling back to the contents the set has (the current version, or
		// version 1 again) writes nothing.
		for _, to := range []string{"3", "1"} {
			o := a.object("POST", set+"/versions/"+to+"/rollback", "", 200)
			if o.Meta().ResourceVersion != rolled.Meta().ResourceVersion || o.Meta().Generation != 3 {
				t.Errorf("rollback to %s (the current contents): resourceVersion %s generation %d, want %s and 3",
					to, o.Meta().ResourceVersion, o.Meta().Generation, rolled.Meta().ResourceVersion)
			}
		}
		wantVersions(t, a, "app", "3 rollback ~B -C", "2 set +C ~B", "1 set +A +B")
		// The values really are version 1's: a replace with them is unchanged.
		var pl resources.Plan
		if err := json.Unmarshal(a.do("PUT", set+"?dryRun=true", `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"app"},"spec":{"data":{"A":"`+unchangedCanary+`-a1","B":"b1"}}}`, 200).Body, &pl); err != nil {
			t.Fatal(err)
		}
		if pl.Action != resources.ActionUnchanged {
			t.Errorf("after the rollback, a replace with version 1's values plans %s", pl.Action)
		}
		// A replace that changes one key of three lists that one.
		a.do("PUT", set, `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"app"},"spec":{"data":{"A":"`+unchangedCanary+`-a1","B":"b3"}}}`, 200)
		wantVersions(t, a, "app", "4 replace ~B", "3 rollback ~B -C", "2 set +C ~B", "1 set +A +B")

		// An image pull secret: the same credentials change nothing, other
		// credentials are ~credentials, another host alone is ~host.
		const reg = "/v1/organizations/acme/secrets/reg"
		ips := func(host, creds string) string {
			return `{"kind":"ImagePullSecret","host":"` + host + `","credentials":"` + creds + `"}`
		}
		r1 := a.object("PATCH", reg, ips("127.0.0.1:1", "robot:"+unchangedCanary), 201)
		if o := a.object("PATCH", reg, ips("127.0.0.1:1", "robot:"+unchangedCanary), 200); o.Meta().ResourceVersion != r1.Meta().ResourceVersion {
			t.Errorf("the same credentials again wrote: resourceVersion %s, want %s", o.Meta().ResourceVersion, r1.Meta().ResourceVersion)
		}
		a.do("PATCH", reg, ips("127.0.0.1:1", "robot:"+unchangedCanary+"-2"), 200)
		a.do("PATCH", reg, ips("127.0.0.1:2", "robot:"+unchangedCanary+"-2"), 200)
		a.do("PUT", reg, `{"apiVersion":"botkit.dev/v1","kind":"ImagePullSecret","metadata":{"name":"reg"},"spec":{"host":"127.0.0.1:2","credentials":"robot:`+unchangedCanary+`-2"}}`, 200)
		wantVersions(t, a, "reg", "3 image-pull-secret ~host", "2 image-pull-secret ~credentials", "1 image-pull-secret +credentials")
		cur := a.object("GET", reg, "", 200)
		if o := a.object("POST", reg+"/versions/3/rollback", "", 200); o.Meta().ResourceVersion != cur.Meta().ResourceVersion {
			t.Errorf("rollback of reg to its current version wrote: resourceVersion %s, want %s", o.Meta().ResourceVersion, cur.Meta().ResourceVersion)
		}
		a.do("POST", reg+"/versions/1/rollback", "", 200)
		wantVersions(t, a, "reg", "4 rollback ~credentials ~host", "3 image-pull-secret ~host", "2 image-pull-secret ~credentials", "1 image-pull-secret +credentials")
		if dir != "" {
			assertNoPlaintext(t, dir, unchangedCanary)
		}
	})
}

// A value stored before digests existed (a key list without them) is
// compared by decrypting it: the same value is still unchanged, another
// one of the same size is a change. SQLite: the key list is rewritten
// underneath the running platform, whose cache notices the commit.
func TestUnchangedWithoutDigests(t *testing.T) {
	base, auth, _, dir := startHistory(t, testDB{name: "sqlite"})
	a := unchangedAPI{t: t, c: apitest.Load(t), base: base, auth: auth}
	const set = "/v1/organizations/acme/secrets/app"
	first := a.object("PATCH", set, `{"set":{"A":"a1","B":"b1"}}`, 201)
	raw, err := sql.Open("sqlite", filepath.Join(dir, sqlite.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var keys string
	if err := raw.QueryRow(`SELECT keys FROM objects WHERE name = 'app'`).Scan(&keys); err != nil {
		t.Fatal(err)
	}
	if strings.Count(keys, ":") != 4 {
		t.Fatalf("key list %q: want a size and a digest per key", keys)
	}
	if _, err := raw.Exec(`UPDATE objects SET keys = 'A:2,B:2' WHERE name = 'app'`); err != nil {
		t.Fatal(err)
	}
	if o := a.object("PATCH", set, `{"set":{"A":"a1","B":"b1"}}`, 200); o.Meta().ResourceVersion != first.Meta().ResourceVersion {
		t.Errorf("the same values, stored without digests, wrote: resourceVersion %s, want %s", o.Meta().ResourceVersion, first.Meta().ResourceVersion)
	}
	a.do("PATCH", set, `{"set":{"A":"a1","B":"b2"}}`, 200)
	wantVersions(t, a, "app", "2 set ~B", "1 set +A +B")
}

// Issue 27 item 13: a conflict names the entity tag the request sent as
// it sent it, not escaped twice (changed since "\"1\"").
func TestConflictNamesTheETag(t *testing.T) {
	c := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		base, auth, _, _ := startHistory(t, db)
		a := unchangedAPI{t: t, c: c, base: base, auth: auth}
		const set = "/v1/organizations/acme/secrets/app"
		a.do("PATCH", set, `{"set":{"A":"a"}}`, 201)
		o := a.object("PATCH", set, `{"set":{"A":"b"}}`, 200)
		now := o.Meta().ResourceVersion
		for _, tc := range []struct {
			method, path, body, ifMatch, want string
		}{
			{"POST", set + "/versions/1/rollback", "", `"1"`, `If-Match: secretset/app changed since "1" (now resourceVersion ` + now + `)`},
			{"PATCH", set, `{"set":{"A":"c"}}`, `"1", W/"` + now + `"`, `If-Match: secretset/app changed since "1", W/"` + now + `" (now resourceVersion ` + now + `)`},
			{"PATCH", set, `{"set":{"A":"c"}}`, `1`, `If-Match: secretset/app changed since "1" (now resourceVersion ` + now + `)`},
			{"PUT", set, `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"app","resourceVersion":"1"},"spec":{"data":{"A":"c"}}}`, "",
				`metadata.resourceVersion: secretset/app changed since "1" (now resourceVersion ` + now + `)`},
		} {
			h := []string{}
			if tc.ifMatch != "" {
				h = append(h, "If-Match", tc.ifMatch)
			}
			r := a.do(tc.method, tc.path, tc.body, 409, h...)
			var e struct{ Error struct{ Message string } }
			if err := json.Unmarshal(r.Body, &e); err != nil {
				t.Fatal(err)
			}
			if msg := e.Error.Message; !strings.HasPrefix(msg, tc.want) || strings.Contains(msg, `\"`) {
				t.Errorf("%s %s If-Match %s: message %q, want it to start with %q", tc.method, tc.path, tc.ifMatch, msg, tc.want)
			}
		}
	})
}

// valuesCounter is a store whose write transactions count their reads of
// an object's values (Tx.Values).
type valuesCounter struct {
	store.Store
	reads atomic.Int64
}

func (s *valuesCounter) Update(ctx context.Context, fn func(ctx context.Context, tx store.Tx) error) error {
	return s.Store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		return fn(ctx, countingTx{Tx: tx, reads: &s.reads})
	})
}

type countingTx struct {
	store.Tx
	reads *atomic.Int64
}

func (t countingTx) Values(ctx context.Context, objectID int64) ([]store.Value, error) {
	t.reads.Add(1)
	return t.Tx.Values(ctx, objectID)
}

// A merge compares the values it sets by their digests: it reads no
// stored value, so on PostgreSQL it keeps the group commit's optimistic
// path (which any read but the declared objects leaves). On both stores.
func TestMergeComparesWithoutReadingValues(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		opts := platform.Options{DisableProvisioner: true}
		if db.postgres {
			opts.Store = db.open(t)
			opts.MasterKeyFile = filepath.Join(t.TempDir(), "master.key")
			writeKey(t, opts.MasterKeyFile, "5d")
		} else {
			opts.DataDir = t.TempDir()
			st, err := sqlite.OpenDir(context.Background(), opts.DataDir, sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			opts.Store = st
		}
		counter := &valuesCounter{Store: opts.Store}
		opts.Store = counter
		base, srv := platformtest.Start(t, opts)
		platformtest.CreateOrg(t, srv, "acme", "")
		auth := map[string]string{"Authorization": "Bearer " + platformtest.CreateToken(t, srv, "acme", "ci")}
		a := unchangedAPI{t: t, c: apitest.Load(t), base: base, auth: auth}
		const set = "/v1/organizations/acme/secrets/app"
		a.do("PATCH", set, `{"set":{"A":"a1","B":"b1"}}`, 201)
		counter.reads.Store(0)
		a.do("PATCH", set, `{"set":{"A":"a1","B":"b1"}}`, 200) // the same
		a.do("PATCH", set, `{"set":{"A":"a2","C":"c"}}`, 200)  // A another value of its size
		a.do("PATCH", set, `{"set":{"A":"a2","B":"b1"}}`, 200) // the same again
		if n := counter.reads.Load(); n != 0 {
			t.Errorf("three merges read stored values %d times, want 0", n)
		}
		wantVersions(t, a, "app", "2 set +C ~A", "1 set +A +B")
	})
}

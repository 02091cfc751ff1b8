package platform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const historyCanary = "CANARY-h1st0ry-9b2e"

// startHistory runs the real platform over HTTP on 127.0.0.1 on db's store
// with organization acme, and returns its URL, a token's Authorization
// header, the server and the data directory (SQLite) or "".
func startHistory(t *testing.T, db testDB) (string, map[string]string, *platform.Server, string) {
	t.Helper()
	opts := platform.Options{DisableProvisioner: true}
	dir := ""
	if db.postgres {
		opts.Store = db.open(t)
		keyFile := filepath.Join(t.TempDir(), "master.key")
		writeKey(t, keyFile, "6b")
		opts.MasterKeyFile = keyFile
	} else {
		dir = t.TempDir()
		opts.DataDir = dir
	}
	base, srv := platformtest.Start(t, opts)
	platformtest.CreateOrg(t, srv, "acme", "")
	tok := platformtest.CreateToken(t, srv, "acme", "ci")
	return base, map[string]string{"Authorization": "Bearer " + tok}, srv, dir
}

// Every write of a set's contents is a version: who, which operation,
// which keys (never a value); a rollback writes an old version's contents
// as the next version, conditional on the current resourceVersion; history
// and rollback requests and answers are what api/openapi.yaml says.
func TestHistoryAndRollback(t *testing.T) {
	c := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		base, auth, _, dir := startHistory(t, db)
		const set = "/v1/organizations/acme/secrets/bot"
		do := func(method, path, body string, h map[string]string, want int) apitest.Reply {
			t.Helper()
			if h == nil {
				h = auth
			}
			r, err := c.Do(t, base, method, path, body, h)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != want {
				t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
			}
			if strings.Contains(string(r.Body), historyCanary) {
				t.Fatalf("%s %s answered a value: %s", method, path, r.Body)
			}
			return r
		}
		do("PATCH", set, `{"set":{"A":"`+historyCanary+`1","B":"b1"}}`, nil, 201)                                                         // 1: set A B
		do("PATCH", set, `{"set":{"A":"`+historyCanary+`2","C":"c"}}`, nil, 200)                                                          // 2: set A (changed) C (added)
		do("DELETE", set+"/keys/B", "", nil, 200)                                                                                         // 3: unset B
		do("PATCH", set, `{"remove":["C"]}`, nil, 200)                                                                                    // 4: unset C
		do("PUT", set, `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot"},"spec":{"data":{"D":"d"}}}`, nil, 200) // 5: replace
		var obj resources.Object
		if err := json.Unmarshal(do("GET", set, "", nil, 200).Body, &obj); err != nil {
			t.Fatal(err)
		}
		if g := obj.Meta().Generation; g != 5 {
			t.Fatalf("generation %d after five writes, want 5", g)
		}
		var list resources.ObjectVersionList
		if err := json.Unmarshal(do("GET", set+"/versions", "", nil, 200).Body, &list); err != nil {
			t.Fatal(err)
		}
		type row struct {
			v                       int64
			source, added, ch, gone string
		}
		var got []row
		for _, v := range list.Items {
			got = append(got, row{v.Version, v.Source, strings.Join(v.Added, ","), strings.Join(v.Changed, ","), strings.Join(v.Removed, ",")})
			if v.Actor != "ci (" && !strings.HasPrefix(v.Actor, "ci (tok_") {
				t.Errorf("version %d: actor %q, want the token's user", v.Version, v.Actor)
			}
		}
		want := []row{
			{5, "replace", "D", "", "A"},
			{4, "unset", "", "", "C"},
			{3, "unset", "", "", "B"},
			{2, "set", "C", "A", ""},
			{1, "set", "A,B", "", ""},
		}
		if !slices.Equal(got, want) {
			t.Fatalf("history %+v, want %+v", got, want)
		}
		// Paging: two at a time, newest first, every version once.
		var paged []int64
		for cont := ""; ; {
			var page resources.ObjectVersionList
			if err := json.Unmarshal(do("GET", set+"/versions?limit=2"+cont, "", nil, 200).Body, &page); err != nil {
				t.Fatal(err)
			}
			for _, v := range page.Items {
				paged = append(paged, v.Version)
			}
			if page.Metadata.Continue == "" {
				break
			}
			cont = "&continue=" + page.Metadata.Continue
		}
		if !slices.Equal(paged, []int64{5, 4, 3, 2, 1}) {
			t.Errorf("paged history %v", paged)
		}
		var v2 resources.ObjectVersion
		if err := json.Unmarshal(do("GET", set+"/versions/2", "", nil, 200).Body, &v2); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(v2.Keys, []string{"A", "B", "C"}) {
			t.Errorf("version 2 keys %v, want A B C", v2.Keys)
		}
		// A rollback that did not see the current version is refused.
		do("POST", set+"/versions/2/rollback", "", map[string]string{"Authorization": auth["Authorization"], "If-Match": `"1"`}, 409)
		r := do("POST", set+"/versions/2/rollback", "", map[string]string{"Authorization": auth["Authorization"], "If-Match": `"` + obj.Meta().ResourceVersion + `"`}, 200)
		var rolled resources.Object
		if err := json.Unmarshal(r.Body, &rolled); err != nil {
			t.Fatal(err)
		}
		if rolled.Meta().Generation != 6 || !slices.Equal(rolled.SecretSet.Spec.Keys, []string{"A", "B", "C"}) {
			t.Errorf("after rollback: generation %d keys %v, want 6 and A B C", rolled.Meta().Generation, rolled.SecretSet.Spec.Keys)
		}
		// The rolled-back set holds version 2's exact values: a replace with
		// them is "unchanged" (the plan compares values without showing them).
		var pl resources.Plan
		put := `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot"},"spec":{"data":{"A":"` + historyCanary + `2","B":"b1","C":"c"}}}`
		if err := json.Unmarshal(do("PUT", set+"?dryRun=true", put, nil, 200).Body, &pl); err != nil {
			t.Fatal(err)
		}
		if pl.Action != resources.ActionUnchanged {
			t.Errorf("a replace with version 2's values after the rollback plans %s, want unchanged", pl.Action)
		}
		do("GET", set+"/versions/99", "", nil, 404)
		do("POST", set+"/versions/99/rollback", "", nil, 404)
		// Refused by the contract and by the server alike.
		if r, reqErr := c.Do(t, base, "GET", set+"/versions/x", "", auth); reqErr == nil || r.Status != 400 {
			t.Errorf("GET .../versions/x: %d (contract: %v), want 400 and a contract refusal", r.Status, reqErr)
		}
		// Delete removes the history with the object.
		do("DELETE", set, "", nil, 200)
		do("GET", set+"/versions", "", nil, 404)
		if dir != "" {
			assertNoPlaintext(t, dir, historyCanary)
		}
	})
}

// The history keeps the organization's limit of versions, numbered without
// gap or duplicate under concurrent writes, on both stores.
func TestHistoryUnderConcurrentMerges(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		base, auth, srv, _ := startHistory(t, db)
		if err := srv.Admin().SetHistoryLimit(context.Background(), "acme", 100); err != nil {
			t.Fatal(err)
		}
		if err := srv.Admin().SetHistoryLimit(context.Background(), "acme", 101); err == nil {
			t.Error("history limit 101 accepted")
		}
		c := newHTTP(t, base, auth)
		c.patch(t, "bot", `{"set":{"K0":"v"}}`)
		var wg sync.WaitGroup
		for i := 1; i <= 100; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.patch(t, "bot", fmt.Sprintf(`{"set":{"K%d":"v"}}`, i))
			}()
		}
		wg.Wait()
		var list resources.ObjectVersionList
		c.get(t, "/v1/organizations/acme/secrets/bot/versions", &list)
		var got []int64
		for _, v := range list.Items {
			got = append(got, v.Version)
		}
		var want []int64
		for v := int64(101); v >= 2; v-- { // 101 writes, the newest 100 kept
			want = append(want, v)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("versions %v, want 101 down to 2", got)
		}
		// A lower limit purges at the next write.
		if err := srv.Admin().SetHistoryLimit(context.Background(), "acme", 3); err != nil {
			t.Fatal(err)
		}
		c.patch(t, "bot", `{"set":{"K0":"w"}}`)
		c.get(t, "/v1/organizations/acme/secrets/bot/versions", &list)
		got = got[:0]
		for _, v := range list.Items {
			got = append(got, v.Version)
		}
		if !slices.Equal(got, []int64{102, 101, 100}) {
			t.Errorf("versions with limit 3: %v", got)
		}
		// A purged version cannot be rolled back to (404, exit 3 in the CLI).
		if r := c.status(t, "POST", "/v1/organizations/acme/secrets/bot/versions/50/rollback"); r != 404 {
			t.Errorf("rollback to a purged version: %d, want 404", r)
		}
		// A rollback to the oldest kept version gives back its exact values,
		// most of them written long before it (K0 at version 1, which is
		// purged): K0 is "v" again, and a replace with "v" for each of its
		// keys changes nothing.
		var v100 resources.ObjectVersion
		c.get(t, "/v1/organizations/acme/secrets/bot/versions/100", &v100)
		c.do(t, "POST", "/v1/organizations/acme/secrets/bot/versions/100/rollback", "")
		data := map[string]string{}
		for _, k := range v100.Keys {
			data[k] = "v"
		}
		if len(data) != 100 || data["K0"] != "v" {
			t.Fatalf("version 100 has keys %v, want K0 and 99 others", v100.Keys)
		}
		body, err := json.Marshal(map[string]any{"apiVersion": "botkit.dev/v1", "kind": "SecretSet", "metadata": map[string]string{"name": "bot"}, "spec": map[string]any{"data": data}})
		if err != nil {
			t.Fatal(err)
		}
		var pl resources.Plan
		if err := json.Unmarshal(c.do(t, "PUT", "/v1/organizations/acme/secrets/bot?dryRun=true", string(body)), &pl); err != nil {
			t.Fatal(err)
		}
		if pl.Action != resources.ActionUnchanged {
			t.Errorf("a replace with version 100's values after the rollback plans %s, want unchanged", pl.Action)
		}
	})
}

// assertNoPlaintext fails when a file under dir holds s.
func assertNoPlaintext(t *testing.T, dir, s string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), s) {
			t.Errorf("%s holds a value in plain text", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// httpClient sends API requests with a token to the platform at base.
type httpClient struct {
	base string
	auth map[string]string
}

func newHTTP(t *testing.T, base string, auth map[string]string) *httpClient {
	return &httpClient{base: base, auth: auth}
}

func (c *httpClient) do(t *testing.T, method, path, body string) []byte {
	t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return nil
	}
	for k, v := range c.auth {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode > 299 {
		t.Errorf("%s %s: %d %s %v", method, path, resp.StatusCode, b, err)
	}
	return b
}

// status sends a request expected to fail and returns its status.
func (c *httpClient) status(t *testing.T, method, path string) int {
	t.Helper()
	req, err := http.NewRequest(method, c.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.auth {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (c *httpClient) patch(t *testing.T, name, body string) {
	t.Helper()
	c.do(t, "PATCH", "/v1/organizations/acme/secrets/"+name, body)
}

func (c *httpClient) get(t *testing.T, path string, out any) {
	t.Helper()
	if err := json.Unmarshal(c.do(t, "GET", path, ""), out); err != nil {
		t.Fatal(err)
	}
}

// Three replicas on one PostgreSQL database number one set's versions
// without gap or duplicate while writes reach all of them; two rollbacks
// that saw the same version race, and exactly one of them wins.
func TestHistoryAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	keyFile := filepath.Join(t.TempDir(), "master.key")
	writeKey(t, keyFile, "7c")
	var clients []*httpClient
	var first *platform.Server
	for i := range 3 {
		st, err := stores.Open(ctx, stores.Location{URL: url}, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		base, srv := platformtest.Start(t, platform.Options{Store: st, MasterKeyFile: keyFile, DisableProvisioner: true})
		if i == 0 {
			first = srv
			platformtest.CreateOrg(t, srv, "acme", "")
			if err := srv.Admin().SetHistoryLimit(ctx, "acme", 100); err != nil {
				t.Fatal(err)
			}
		}
		clients = append(clients, newHTTP(t, base, nil))
	}
	tok := platformtest.CreateToken(t, first, "acme", "ci")
	for _, c := range clients {
		c.auth = map[string]string{"Authorization": "Bearer " + tok}
	}
	clients[0].patch(t, "bot", `{"set":{"K0":"v"}}`)
	var wg sync.WaitGroup
	for i := 1; i <= 60; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[i%3].patch(t, "bot", fmt.Sprintf(`{"set":{"K%d":"v"}}`, i))
		}()
	}
	wg.Wait()
	var list resources.ObjectVersionList
	clients[1].get(t, "/v1/organizations/acme/secrets/bot/versions", &list)
	for i, v := range list.Items {
		if want := int64(61 - i); v.Version != want {
			t.Fatalf("versions across replicas: item %d is %d, want %d (%d kept)", i, v.Version, want, len(list.Items))
		}
	}
	if len(list.Items) != 61 {
		t.Fatalf("%d versions kept, want 61", len(list.Items))
	}
	var obj resources.Object
	clients[2].get(t, "/v1/organizations/acme/secrets/bot", &obj)
	rv := obj.Meta().ResourceVersion
	statuses := make(chan int, 3)
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest("POST", c.base+"/v1/organizations/acme/secrets/bot/versions/1/rollback", nil)
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("If-Match", `"`+rv+`"`)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	wg.Wait()
	close(statuses)
	var won, lost int
	for s := range statuses {
		switch s {
		case 200:
			won++
		case 409:
			lost++
		default:
			t.Errorf("rollback answered %d", s)
		}
	}
	if won != 1 || lost != 2 {
		t.Errorf("three racing rollbacks: %d won, %d refused; want 1 and 2", won, lost)
	}
	clients[0].get(t, "/v1/organizations/acme/secrets/bot", &obj)
	if obj.Meta().Generation != 62 || !slices.Equal(obj.SecretSet.Spec.Keys, []string{"K0"}) {
		t.Errorf("after the rollback: version %d keys %v, want 62 and K0", obj.Meta().Generation, obj.SecretSet.Spec.Keys)
	}
}

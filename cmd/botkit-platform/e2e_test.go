package main_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/httpapi"
)

const secretsPath = "/v1/organizations/%s/secrets"

func objPath(org, name string) string { return fmt.Sprintf(secretsPath, org) + "/" + name }

func setBody(kv ...string) map[string]any {
	set := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		set[kv[i]] = kv[i+1]
	}
	return map[string]any{"set": set}
}

func secretSet(name string, labels map[string]string, data map[string]string, region string) map[string]any {
	meta := map[string]any{"name": name}
	if labels != nil {
		meta["labels"] = labels
	}
	if region != "" {
		meta["region"] = region
	}
	return map[string]any{"apiVersion": "botkit.dev/v1", "kind": "SecretSet", "metadata": meta, "spec": map[string]any{"data": data}}
}

// specRoutes reads the method+path pairs of api/openapi.yaml.
func specRoutes(t *testing.T) []string {
	t.Helper()
	data := readFile(t, filepath.Join(testenv.RepoRoot(t), "api", "openapi.yaml"))
	var spec struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := yaml.Unmarshal([]byte(data), &spec); err != nil {
		t.Fatalf("api/openapi.yaml: %v", err)
	}
	if !strings.HasPrefix(spec.OpenAPI, "3.") {
		t.Fatalf("api/openapi.yaml: openapi version %q", spec.OpenAPI)
	}
	var out []string
	for path, ops := range spec.Paths {
		for m := range ops {
			switch m {
			case "get", "put", "post", "patch", "delete", "head", "options":
				out = append(out, strings.ToUpper(m)+" "+path)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestContract checks api/openapi.yaml against the routes the binary serves,
// both ways.
func TestContract(t *testing.T) {
	spec := specRoutes(t)
	var served []string
	for _, r := range httpapi.Routes() {
		served = append(served, r.Method+" "+r.Path)
	}
	sort.Strings(served)
	for _, r := range served {
		if !slices.Contains(spec, r) {
			t.Errorf("served route %s is missing from api/openapi.yaml", r)
		}
	}
	for _, r := range spec {
		if !slices.Contains(served, r) {
			t.Errorf("api/openapi.yaml route %s is not served", r)
		}
	}

	// Every spec route answers on the real binary (not the router's
	// "no such route" nor 405), and an unknown route does not.
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme")
	s := startServer(t, dir)
	fill := strings.NewReplacer("{org}", "acme", "{name}", "x", "{key}", "K")
	for _, r := range spec {
		method, path, _ := strings.Cut(r, " ")
		got := s.call(tok, method, fill.Replace(path), "{}")
		if got.status == 405 || strings.Contains(string(got.body), "no such route") {
			t.Errorf("%s: the binary does not serve it (status %d: %s)", r, got.status, got.body)
		}
	}
	got := s.call(tok, "GET", "/v1/nothing-here", nil)
	if got.status != 404 || !strings.Contains(got.errMessage(t), "no such route") {
		t.Errorf("unknown route: status %d body %s", got.status, got.body)
	}
	if got := s.call(tok, "POST", "/v1/me", nil); got.status != 405 || got.errCode(t) != "invalid" {
		t.Errorf("POST /v1/me: status %d body %s", got.status, got.body)
	}
}

// TestRoutes walks every route through a user's life cycle.
func TestRoutes(t *testing.T) {
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme", "--default-region", "eu-central")
	s := startServer(t, dir)

	// Health and metrics need no token.
	r := s.call("", "GET", "/healthz", nil)
	expectStatus(t, r, 200, "healthz")
	if r.json(t)["status"] != "ok" {
		t.Errorf("healthz: %s", r.body)
	}

	// Authentication.
	r = s.call("", "GET", "/v1/me", nil)
	expectStatus(t, r, 401, "me without token")
	if r.errCode(t) != "unauthenticated" {
		t.Errorf("me without token: %s", r.body)
	}
	expectStatus(t, s.call("bkp_notatoken", "GET", "/v1/me", nil), 401, "me with a bad token")
	r = s.call(tok, "GET", "/v1/me", nil)
	expectStatus(t, r, 200, "me")
	var me struct {
		User          string `json:"user"`
		Organizations []struct{ Name, DefaultRegion string }
	}
	if err := json.Unmarshal(r.body, &me); err != nil {
		t.Fatal(err)
	}
	if me.User != "admin" || len(me.Organizations) != 1 || me.Organizations[0].Name != "acme" || me.Organizations[0].DefaultRegion != "eu-central" {
		t.Errorf("me: %s", r.body)
	}
	r = s.call(tok, "GET", "/v1/regions", nil)
	expectStatus(t, r, 200, "regions")
	for _, reg := range []string{"us-west", "us-east", "eu-central", "ap-south"} {
		if !strings.Contains(string(r.body), `"`+reg+`"`) {
			t.Errorf("regions lacks %s: %s", reg, r.body)
		}
	}

	// PATCH creates in the organization's default region, pending then ready.
	r = s.call(tok, "PATCH", objPath("acme", "support-bot"), map[string]any{
		"set": map[string]string{"OPENAI_API_KEY": "sk-1", "LOG_LEVEL": "debug"}, "labels": map[string]string{"team": "voice"}})
	expectStatus(t, r, 201, "PATCH create")
	obj := r.json(t)
	if st, _ := state(obj); st != "pending" {
		t.Errorf("a write must leave the object pending, got %q", st)
	}
	if meta := obj["metadata"].(map[string]any); meta["region"] != "eu-central" || meta["organization"] != "acme" {
		t.Errorf("metadata: %v", meta)
	}
	if strings.Contains(string(r.body), "sk-1") {
		t.Fatalf("response echoes a value: %s", r.body)
	}
	obj = s.waitState(tok, "acme", "support-bot")
	if st, _ := state(obj); st != "ready" {
		t.Errorf("state %q, want ready", st)
	}
	if got := keysOf(t, obj); !slices.Equal(got, []string{"LOG_LEVEL", "OPENAI_API_KEY"}) {
		t.Errorf("keys %v", got)
	}
	rv := obj["metadata"].(map[string]any)["resourceVersion"].(string)

	// PATCH merges: set and remove in one request.
	r = s.call(tok, "PATCH", objPath("acme", "support-bot"), map[string]any{"set": map[string]string{"NEW": "n"}, "remove": []string{"LOG_LEVEL"}})
	expectStatus(t, r, 200, "PATCH merge")
	if got := keysOf(t, r.json(t)); !slices.Equal(got, []string{"NEW", "OPENAI_API_KEY"}) {
		t.Errorf("after merge: keys %v", got)
	}
	rv2 := r.json(t)["metadata"].(map[string]any)["resourceVersion"].(string)
	if rv2 == rv {
		t.Errorf("resourceVersion did not change on write")
	}

	// Region is fixed: a PATCH naming another region is a 409 naming the current one.
	r = s.call(tok, "PATCH", objPath("acme", "support-bot"), map[string]any{"region": "us-east", "set": map[string]string{"A": "b"}})
	expectStatus(t, r, 409, "PATCH region move")
	if !strings.Contains(r.errMessage(t), "eu-central") {
		t.Errorf("region conflict does not name the current region: %s", r.body)
	}

	// PUT dry run: per-key plan without values.
	desired := secretSet("support-bot", map[string]string{"team": "voice"}, map[string]string{"OPENAI_API_KEY": "sk-2", "NEW": "n", "ADDED": "a"}, "")
	r = s.call(tok, "PUT", objPath("acme", "support-bot")+"?dryRun=true", desired)
	expectStatus(t, r, 200, "PUT dryRun")
	var pl struct {
		Kind, Action string
		Keys         []struct{ Key, Change string }
	}
	if err := json.Unmarshal(r.body, &pl); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ADDED": "added", "NEW": "unchanged", "OPENAI_API_KEY": "changed"}
	if pl.Kind != "Plan" || pl.Action != "update" || len(pl.Keys) != 3 {
		t.Errorf("plan: %s", r.body)
	}
	for _, k := range pl.Keys {
		if want[k.Key] != k.Change {
			t.Errorf("plan key %s: %s, want %s", k.Key, k.Change, want[k.Key])
		}
	}
	if strings.Contains(string(r.body), "sk-") {
		t.Errorf("plan echoes values: %s", r.body)
	}
	if got := keysOf(t, s.call(tok, "GET", objPath("acme", "support-bot"), nil).json(t)); !slices.Equal(got, []string{"NEW", "OPENAI_API_KEY"}) {
		t.Errorf("dry run wrote: keys %v", got)
	}

	// PUT with a stale If-Match is a 409; with the current one it replaces.
	r = s.call(tok, "PUT", objPath("acme", "support-bot"), desired, `If-Match: "`+rv+`"`)
	expectStatus(t, r, 409, "PUT stale If-Match")
	r = s.call(tok, "PUT", objPath("acme", "support-bot"), desired, `If-Match: "`+rv2+`"`)
	expectStatus(t, r, 200, "PUT current If-Match")
	if got := keysOf(t, r.json(t)); !slices.Equal(got, []string{"ADDED", "NEW", "OPENAI_API_KEY"}) {
		t.Errorf("after replace: keys %v", got)
	}
	etag := r.header.Get("ETag")
	// Replacing with identical content writes nothing.
	r = s.call(tok, "PUT", objPath("acme", "support-bot"), desired)
	expectStatus(t, r, 200, "PUT unchanged")
	if r.header.Get("ETag") != etag {
		t.Errorf("an unchanged replace changed the version: %s -> %s", etag, r.header.Get("ETag"))
	}
	r = s.call(tok, "PUT", objPath("acme", "support-bot")+"?dryRun=true", desired)
	if !strings.Contains(string(r.body), `"action":"unchanged"`) {
		t.Errorf("dry run of identical content: %s", r.body)
	}
	// PUT creates; a PUT moving regions is a 409.
	r = s.call(tok, "PUT", objPath("acme", "web-bot"), secretSet("web-bot", nil, map[string]string{"X": "1"}, "ap-south"))
	expectStatus(t, r, 201, "PUT create")
	r = s.call(tok, "PUT", objPath("acme", "web-bot"), secretSet("web-bot", nil, map[string]string{"X": "1"}, "us-west"))
	expectStatus(t, r, 409, "PUT region move")
	if !strings.Contains(r.errMessage(t), "ap-south") {
		t.Errorf("region conflict: %s", r.body)
	}

	// Image pull secrets share the namespace of names with secret sets.
	r = s.call(tok, "PATCH", objPath("acme", "support-bot"), map[string]any{"kind": "ImagePullSecret", "host": "ghcr.io", "credentials": "u:p"})
	expectStatus(t, r, 409, "IPS over a set name")
	r = s.call(tok, "PATCH", objPath("acme", "ghcr"), map[string]any{"kind": "ImagePullSecret", "host": "https://ghcr.io", "credentials": "me:pw-secret"})
	expectStatus(t, r, 201, "IPS create")
	ips := r.json(t)
	spec := ips["spec"].(map[string]any)
	if spec["host"] != "https://ghcr.io" || spec["username"] != "me" || strings.Contains(string(r.body), "pw-secret") {
		t.Errorf("image pull secret: %s", r.body)
	}
	r = s.call(tok, "PUT", objPath("acme", "ghcr"), secretSet("ghcr", nil, map[string]string{"A": "1"}, ""))
	expectStatus(t, r, 409, "set over an IPS name")

	// Lists: all, filtered, paginated.
	listNames := func(q string) ([]string, string) {
		t.Helper()
		r := s.call(tok, "GET", fmt.Sprintf(secretsPath, "acme")+q, nil)
		expectStatus(t, r, 200, "list "+q)
		var l struct {
			APIVersion, Kind string
			Items            []struct {
				Kind     string
				Metadata struct{ Name string }
			}
			Metadata struct{ Continue string }
		}
		if err := json.Unmarshal(r.body, &l); err != nil || l.Kind != "List" || l.APIVersion != "botkit.dev/v1" {
			t.Fatalf("list %s: %v %s", q, err, r.body)
		}
		var names []string
		for _, it := range l.Items {
			names = append(names, it.Metadata.Name)
		}
		return names, l.Metadata.Continue
	}
	if got, _ := listNames(""); !slices.Equal(got, []string{"ghcr", "support-bot", "web-bot"}) {
		t.Errorf("list: %v", got)
	}
	if got, _ := listNames("?kind=ImagePullSecret"); !slices.Equal(got, []string{"ghcr"}) {
		t.Errorf("list kind: %v", got)
	}
	if got, _ := listNames("?region=ap-south"); !slices.Equal(got, []string{"web-bot"}) {
		t.Errorf("list region: %v", got)
	}
	if got, _ := listNames("?labelSelector=" + url.QueryEscape("team=voice")); !slices.Equal(got, []string{"support-bot"}) {
		t.Errorf("list labels: %v", got)
	}
	if got, _ := listNames("?labelSelector=" + url.QueryEscape("!team")); !slices.Equal(got, []string{"ghcr", "web-bot"}) {
		t.Errorf("list !label: %v", got)
	}
	page1, cont := listNames("?limit=2")
	if !slices.Equal(page1, []string{"ghcr", "support-bot"}) || cont == "" {
		t.Errorf("page 1: %v continue %q", page1, cont)
	}
	page2, cont2 := listNames("?limit=2&continue=" + url.QueryEscape(cont))
	if !slices.Equal(page2, []string{"web-bot"}) || cont2 != "" {
		t.Errorf("page 2: %v continue %q", page2, cont2)
	}
	expectStatus(t, s.call(tok, "GET", fmt.Sprintf(secretsPath, "acme")+"?region=mars", nil), 400, "list bad region")
	expectStatus(t, s.call(tok, "GET", fmt.Sprintf(secretsPath, "acme")+"?limit=0", nil), 400, "list bad limit")

	// Delete a key, then the set.
	r = s.call(tok, "DELETE", objPath("acme", "support-bot")+"/keys/ADDED", nil)
	expectStatus(t, r, 200, "DELETE key")
	if got := keysOf(t, r.json(t)); slices.Contains(got, "ADDED") {
		t.Errorf("key not deleted: %v", got)
	}
	r = s.call(tok, "DELETE", objPath("acme", "support-bot")+"/keys/ADDED", nil)
	expectStatus(t, r, 404, "DELETE missing key")
	expectStatus(t, s.call(tok, "DELETE", objPath("acme", "support-bot")+"/keys/1BAD", nil), 400, "DELETE invalid key")
	expectStatus(t, s.call(tok, "DELETE", objPath("acme", "support-bot"), nil), 200, "DELETE set")
	expectStatus(t, s.call(tok, "GET", objPath("acme", "support-bot"), nil), 404, "GET deleted")
	expectStatus(t, s.call(tok, "DELETE", objPath("acme", "support-bot"), nil), 404, "DELETE deleted")

	// Validation.
	r = s.call(tok, "PATCH", objPath("acme", "-bad-"), setBody("A", "1"))
	expectStatus(t, r, 400, "bad name")
	r = s.call(tok, "PATCH", objPath("acme", "ok"), setBody("1BAD", "1"))
	expectStatus(t, r, 400, "bad key")
	if !strings.Contains(r.errMessage(t), "1BAD") {
		t.Errorf("bad key error does not name the key: %s", r.body)
	}
	expectStatus(t, s.call(tok, "PATCH", objPath("acme", "ok"), map[string]any{"sett": map[string]string{}}), 400, "unknown field")
	expectStatus(t, s.call(tok, "PATCH", objPath("acme", "ok"), map[string]any{"region": "mars"}), 400, "bad region")
	expectStatus(t, s.call(tok, "PUT", objPath("acme", "ok"), secretSet("other", nil, nil, "")), 400, "name mismatch")

	// Audit: who changed which keys, never values.
	r = s.call(tok, "GET", "/v1/organizations/acme/audit?limit=1000", nil)
	expectStatus(t, r, 200, "audit")
	if !strings.Contains(string(r.body), `"actor":"admin (tok_`) || !strings.Contains(string(r.body), `"OPENAI_API_KEY"`) {
		t.Errorf("audit: %s", r.body)
	}
	if strings.Contains(string(r.body), "sk-1") || strings.Contains(string(r.body), "pw-secret") {
		t.Errorf("audit holds values: %s", r.body)
	}

	// Admin commands work while the server runs: revoke is immediate.
	out := admin(t, "tokens", "list", "--org", "acme", "--data-dir", dir, "-o", "json")
	var tl struct{ Items []struct{ ID string } }
	if err := json.Unmarshal([]byte(out), &tl); err != nil {
		t.Fatal(err)
	}
	if len(tl.Items) != 1 {
		t.Fatalf("tokens list: %s", out)
	}
	admin(t, "tokens", "revoke", tl.Items[0].ID, "--data-dir", dir)
	expectStatus(t, s.call(tok, "GET", "/v1/me", nil), 401, "revoked token")
	tok2 := strings.TrimSpace(admin(t, "tokens", "create", "--org", "acme", "--data-dir", dir))
	expectStatus(t, s.call(tok2, "GET", "/v1/me", nil), 200, "new token")
	admin(t, "tokens", "revoke", tok2, "--data-dir", dir)
	expectStatus(t, s.call(tok2, "GET", "/v1/me", nil), 401, "token revoked by value")

	// Metrics.
	r = s.call("", "GET", "/metrics", nil)
	expectStatus(t, r, 200, "metrics")
	for _, m := range []string{"botkit_platform_http_requests_total", "botkit_platform_store_commit_batch_size", "botkit_platform_provisioned_total"} {
		if !strings.Contains(string(r.body), m) {
			t.Errorf("metrics lack %s", m)
		}
	}
}

// TestAdminCommands checks the exit codes and output of orgs and tokens.
func TestAdminCommands(t *testing.T) {
	dir := t.TempDir()
	admin(t, "orgs", "create", "acme", "--data-dir", dir)
	if _, e, code := runCmd("orgs", "create", "acme", "--data-dir", dir); code != 5 || !strings.Contains(e, "already exists") {
		t.Errorf("duplicate org: exit %d, %s", code, e)
	}
	if _, e, code := runCmd("orgs", "create", "bad_name", "--data-dir", dir); code != 2 {
		t.Errorf("bad org name: exit %d, %s", code, e)
	}
	if _, e, code := runCmd("orgs", "create", "x", "--default-region", "mars", "--data-dir", dir); code != 2 || !strings.Contains(e, "mars") {
		t.Errorf("bad region: exit %d, %s", code, e)
	}
	if _, e, code := runCmd("nonsense"); code != 2 {
		t.Errorf("unknown command: exit %d, %s", code, e)
	}
	if _, e, code := runCmd("orgs", "list"); code != 2 || !strings.Contains(e, "--data-dir") {
		t.Errorf("missing --data-dir: exit %d, %s", code, e)
	}
	if _, e, code := runCmd("tokens", "create", "--org", "nope", "--data-dir", dir); code != 3 {
		t.Errorf("token for a missing org: exit %d, %s", code, e)
	}
	if _, e, code := runCmd("tokens", "revoke", "tok_000000000000", "--data-dir", dir); code != 3 {
		t.Errorf("revoke missing token: exit %d, %s", code, e)
	}
	out := admin(t, "orgs", "list", "--data-dir", dir)
	if !strings.Contains(out, "acme") || !strings.Contains(out, "us-west") {
		t.Errorf("orgs list: %s", out)
	}
	info, err := os.Stat(filepath.Join(dir, "platform.db"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("platform.db mode: %v %v", info.Mode(), err)
	}
}

// TestIsolation: a token of one organization sees nothing of another, on
// every route: another organization answers exactly as one that does not
// exist does, "organization ... not found" (the name aside).
func TestIsolation(t *testing.T) {
	dir := t.TempDir()
	tokA := newOrg(t, dir, "org-a")
	tokB := newOrg(t, dir, "org-b")
	s := startServer(t, dir)
	expectStatus(t, s.call(tokB, "PATCH", objPath("org-b", "shared"), setBody("B_KEY", "b-value")), 201, "B creates")
	expectStatus(t, s.call(tokB, "PATCH", objPath("org-b", "regcred"), map[string]any{"kind": "ImagePullSecret", "host": "ghcr.io", "credentials": "u:p"}), 201, "B creates IPS")

	type probe struct{ method, suffix string }
	bodyFor := func(method string) any {
		switch method {
		case "PATCH":
			return setBody("A_KEY", "a")
		case "PUT":
			return secretSet("shared", nil, map[string]string{"A_KEY": "a"}, "")
		}
		return nil
	}
	probes := []probe{{"GET", ""}, {"PATCH", ""}, {"PUT", ""}, {"PUT", "?dryRun=true"}, {"DELETE", ""}, {"DELETE", "/keys/B_KEY"}}
	for _, name := range []string{"shared", "regcred"} {
		for _, p := range probes {
			// A on B's existing object versus A on the same name in an org
			// where it is missing ("missing" does not exist; org-a lacks it).
			foreign := s.call(tokA, p.method, objPath("org-b", name)+p.suffix, bodyFor(p.method))
			missing := s.call(tokA, p.method, objPath("org-zz", name)+p.suffix, bodyFor(p.method))
			if foreign.status != 404 || strings.ReplaceAll(string(foreign.body), "org-b", "org-zz") != string(missing.body) ||
				!strings.Contains(string(foreign.body), `organization \"org-b\" not found`) {
				t.Errorf("%s %s of another org: %d %s; missing org: %d %s", p.method, name, foreign.status, foreign.body, missing.status, missing.body)
			}
		}
	}
	for _, path := range []string{fmt.Sprintf(secretsPath, "%s"), "/v1/organizations/%s/audit"} {
		foreign := s.call(tokA, "GET", fmt.Sprintf(path, "org-b"), nil)
		missing := s.call(tokA, "GET", fmt.Sprintf(path, "no-such-org"), nil)
		if foreign.status != 404 || strings.ReplaceAll(string(foreign.body), "org-b", "X") != strings.ReplaceAll(string(missing.body), "no-such-org", "X") {
			t.Errorf("GET %s of another org: %d %s vs %s", path, foreign.status, foreign.body, missing.body)
		}
	}
	// A's attempts changed nothing of B and created nothing in A.
	r := s.call(tokB, "GET", objPath("org-b", "shared"), nil)
	if got := keysOf(t, r.json(t)); !slices.Equal(got, []string{"B_KEY"}) {
		t.Errorf("B's set changed: %v", got)
	}
	expectStatus(t, s.call(tokB, "GET", objPath("org-b", "regcred"), nil), 200, "B's IPS survived")
	r = s.call(tokA, "GET", fmt.Sprintf(secretsPath, "org-a"), nil)
	if strings.Contains(string(r.body), "shared") {
		t.Errorf("A's list shows B's objects or A's attempts created some: %s", r.body)
	}
	// Same names may exist in both organizations.
	expectStatus(t, s.call(tokA, "PATCH", objPath("org-a", "shared"), setBody("A_KEY", "a")), 201, "A creates same name")
	if strings.Contains(string(s.call(tokB, "GET", objPath("org-b", "shared"), nil).body), "A_KEY") {
		t.Errorf("A's key leaked into B's set")
	}
	// B's audit shows none of A's actions.
	r = s.call(tokB, "GET", "/v1/organizations/org-b/audit", nil)
	if strings.Contains(string(r.body), "A_KEY") {
		t.Errorf("B's audit shows A's writes: %s", r.body)
	}
}

// TestConcurrentMerges: 100 concurrent merges of distinct keys into one set
// keep all 100.
func TestConcurrentMerges(t *testing.T) {
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme")
	s := startServer(t, dir)
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := call(t, s.url, tok, "PATCH", objPath("acme", "busy"), setBody(fmt.Sprintf("KEY_%03d", i), fmt.Sprintf("v%d", i)))
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
	keys := keysOf(t, s.call(tok, "GET", objPath("acme", "busy"), nil).json(t))
	if len(keys) != 100 {
		t.Fatalf("after 100 concurrent merges the set holds %d keys", len(keys))
	}
	// Exactly one merge created the set.
	r := s.call(tok, "GET", "/v1/organizations/acme/audit?limit=1000", nil)
	if n := strings.Count(string(r.body), `"action":"create"`); n != 1 {
		t.Errorf("%d creates in the audit log, want 1", n)
	}
}

// TestKill9: acknowledged writes survive kill -9 of the server.
func TestKill9(t *testing.T) {
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme")
	s := startServer(t, dir)
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[string][]string{}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				set := fmt.Sprintf("set-%d", w)
				key := fmt.Sprintf("K_%d", i)
				r := call(t, s.url, tok, "PATCH", objPath("acme", set), setBody(key, "v"))
				if r.status == 200 || r.status == 201 {
					mu.Lock()
					acked[set] = append(acked[set], key)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	s.kill9()
	s2 := startServer(t, dir)
	for set, keys := range acked {
		r := s2.call(tok, "GET", objPath("acme", set), nil)
		expectStatus(t, r, 200, "GET after kill -9")
		got := keysOf(t, r.json(t))
		for _, k := range keys {
			if !slices.Contains(got, k) {
				t.Errorf("%s: acknowledged key %s lost after kill -9", set, k)
			}
		}
	}
	if len(acked) != 8 {
		t.Errorf("only %d sets acknowledged", len(acked))
	}
	// Pending objects left by the kill are provisioned after the restart.
	obj := s2.waitState(tok, "acme", "set-0")
	if st, _ := state(obj); st != "ready" {
		t.Errorf("after restart: %s", st)
	}
}

// TestCanary plants a value and looks for it everywhere it must not be:
// responses, error bodies, logs and every file of the data directory.
func TestCanary(t *testing.T) {
	const canary = "CANARY-7f3a9c1e-dont-leak"
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme")
	s := startServer(t, dir, "--allow-private-registries")
	var bodies []string
	record := func(r resp) { bodies = append(bodies, string(r.body)) }

	record(s.call(tok, "PATCH", objPath("acme", "app"), setBody("API_KEY", canary, "MULTI", canary+"\nline2")))
	record(s.call(tok, "PUT", objPath("acme", "app"), secretSet("app", nil, map[string]string{"API_KEY": canary + "x"}, "")))
	record(s.call(tok, "PUT", objPath("acme", "app")+"?dryRun=true", secretSet("app", nil, map[string]string{"API_KEY": canary}, "")))
	record(s.call(tok, "PATCH", objPath("acme", "reg"), map[string]any{"kind": "ImagePullSecret", "host": "http://127.0.0.1:1", "credentials": "user:" + canary}))
	// Error paths that carry the value.
	big := strings.Repeat(canary, (64<<10)/len(canary)+1)
	for _, r := range []resp{
		s.call(tok, "PATCH", objPath("acme", "app"), setBody("TOO_BIG", big)),
		s.call(tok, "PATCH", objPath("acme", "app"), setBody("1BAD", canary)),
		s.call(tok, "PATCH", objPath("acme", "app"), `{"set":{"A":"`+canary+`"`),              // truncated
		s.call(tok, "PATCH", objPath("acme", "app"), `{"set":{"A":`+canary+`}}`),              // not a string
		s.call(tok, "PATCH", objPath("acme", "app"), `{"set":{"A":["`+canary+`"]}}`),          // wrong type
		s.call(tok, "PATCH", objPath("acme", "app"), `{"set":{"A":"`+canary+"\xff\xfe"+`"}}`), // invalid UTF-8
		s.call(tok, "PATCH", objPath("acme", "app"), map[string]any{"set": map[string]string{"A": canary}, "remove": []string{"A"}}),
		s.call(tok, "PUT", objPath("acme", "app"), `{"kind":"SecretSet","metadata":{"name":"app"},"spec":{"data":{"A":{"fromEnv":"`+canary+`x"}}}}`),
		s.call(tok, "PUT", objPath("acme", "app"), `{"kind":"SecretSet","metadata":{"name":"app"},"spec":{"data":{"A":12}},"x":"`+canary+`"}`),
		s.call(tok, "PATCH", objPath("acme", "reg2"), map[string]any{"kind": "ImagePullSecret", "host": "https://user:" + canary + "@ghcr.io", "credentials": "a:b"}),
		s.call(tok, "PATCH", objPath("acme", "reg3"), map[string]any{"kind": "ImagePullSecret", "host": "ghcr.io", "credentials": canary}),
		s.call(tok, "PATCH", objPath("acme", "reg3"), map[string]any{"kind": "ImagePullSecret", "host": "ghcr.io", "credentials": canary, "encode": false}),
		s.call(tok, "PATCH", objPath("acme", "other"), map[string]any{"set": map[string]string{"A": canary}, "region": "mars"}),
	} {
		if r.status < 400 {
			t.Errorf("expected an error, got %d %s", r.status, r.body)
		}
		record(r)
	}
	s.waitState(tok, "acme", "reg") // the registry check ran (and failed)
	record(s.call(tok, "GET", objPath("acme", "app"), nil))
	record(s.call(tok, "GET", objPath("acme", "reg"), nil))
	record(s.call(tok, "GET", fmt.Sprintf(secretsPath, "acme"), nil))
	record(s.call(tok, "GET", "/v1/organizations/acme/audit", nil))
	record(s.call("", "GET", "/metrics", nil))
	for _, b := range bodies {
		if strings.Contains(b, canary) || strings.Contains(b, canary[:16]) {
			t.Errorf("a response contains the canary: %.300s", b)
		}
	}
	s.stop()
	if strings.Contains(s.log(), canary[:16]) {
		t.Errorf("the server log contains the canary")
	}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), canary[:16]) {
			t.Errorf("%s contains the canary in clear text", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLimits: body, value, key count and set size limits.
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme")
	s := startServer(t, dir)
	check := func(r resp, wantStatus int, wantCode, what string) {
		t.Helper()
		if r.status != wantStatus || r.errCode(t) != wantCode {
			t.Errorf("%s: %d %s", what, r.status, r.body)
		}
	}
	// Body over 1 MiB.
	body := `{"set":{"A":"` + strings.Repeat("a", 1<<20) + `"}}`
	check(s.call(tok, "PATCH", objPath("acme", "big"), body), 413, "too_large", "1 MiB body")
	// One value over 64 KiB; exactly 64 KiB is fine.
	check(s.call(tok, "PATCH", objPath("acme", "big"), setBody("A", strings.Repeat("a", 64<<10+1))), 413, "too_large", "value over 64 KiB")
	expectStatus(t, s.call(tok, "PATCH", objPath("acme", "big"), setBody("A", strings.Repeat("a", 64<<10))), 201, "value of 64 KiB")
	// More than 512 KiB in a set, over several merges.
	for i := range 7 {
		expectStatus(t, s.call(tok, "PATCH", objPath("acme", "big"), setBody(fmt.Sprintf("V%d", i), strings.Repeat("b", 60<<10))), 200, "filling the set")
	}
	r := s.call(tok, "PATCH", objPath("acme", "big"), setBody("LAST", strings.Repeat("c", 64<<10)))
	check(r, 413, "too_large", "set over 512 KiB")
	if !strings.Contains(r.errMessage(t), "512 KiB") {
		t.Errorf("set size message: %s", r.body)
	}
	// More than 1,000 keys.
	many := map[string]string{}
	for i := range 1001 {
		many[fmt.Sprintf("K%04d", i)] = "v"
	}
	check(s.call(tok, "PATCH", objPath("acme", "many"), map[string]any{"set": many}), 413, "too_large", "1001 keys")
	delete(many, "K1000")
	expectStatus(t, s.call(tok, "PUT", objPath("acme", "many"), secretSet("many", nil, many, "")), 201, "1000 keys")
	check(s.call(tok, "PATCH", objPath("acme", "many"), setBody("ONE_MORE", "v")), 413, "too_large", "1001st key by merge")
	// Key length.
	check(s.call(tok, "PATCH", objPath("acme", "k"), setBody(strings.Repeat("K", 129), "v")), 400, "invalid", "129-char key")
	expectStatus(t, s.call(tok, "PATCH", objPath("acme", "k"), setBody(strings.Repeat("K", 128), "v")), 201, "128-char key")
}

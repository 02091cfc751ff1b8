package platform_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// canary is planted as a value in the tests below; it must never come back
// in a response, a log line or a plaintext file of the data directory.
const canary = "CANARY-s3cr3t-9f1d7c"

// lockedBuffer collects log output written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// apiEnv is a real platform (on SQLite in a temp dir, or on a fresh
// PostgreSQL database) served over real HTTP on 127.0.0.1, organization
// "local" without a token.
type apiEnv struct {
	t      *testing.T
	dir    string
	dbDir  string // the PostgreSQL cluster's files, "" on SQLite
	url    string
	logs   *lockedBuffer
	bodies bytes.Buffer // every response body, for the canary check
}

func newAPIEnv(t *testing.T, db testDB, provision bool) *apiEnv {
	t.Helper()
	e := &apiEnv{t: t, dir: t.TempDir(), logs: &lockedBuffer{}}
	opts := platform.Options{
		DataDir: e.dir, NoAuthOrg: "local", DisableProvisioner: !provision, PollInterval: 20 * time.Millisecond,
		Logger: slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if db.postgres {
		opts.Store, opts.DataDir, opts.MasterKeyFile = db.open(t), "", filepath.Join(e.dir, "master.key")
		if err := os.WriteFile(opts.MasterKeyFile, []byte(strings.Repeat("5a", 32)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		e.dbDir = pg.Cluster(t).Dir()
	}
	e.url, _ = platformtest.Start(t, opts)
	return e
}

type apiReply struct {
	status int
	body   []byte
}

func (e *apiEnv) call(method, path string, body any) apiReply {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	e.bodies.Write(data)
	return apiReply{resp.StatusCode, data}
}

func (e *apiEnv) apply(req resources.ApplyRequest) (resources.ApplyResult, apiReply) {
	e.t.Helper()
	r := e.call("POST", "/v1/organizations/local/apply", req)
	var res resources.ApplyResult
	if r.status == 200 {
		if err := json.Unmarshal(r.body, &res); err != nil {
			e.t.Fatalf("apply answer: %v: %s", err, r.body)
		}
	}
	return res, r
}

func (e *apiEnv) mustApply(req resources.ApplyRequest) resources.ApplyResult {
	e.t.Helper()
	res, r := e.apply(req)
	if r.status != 200 {
		e.t.Fatalf("apply: %d %s", r.status, r.body)
	}
	return res
}

// get returns the object, or nil when it does not exist.
func (e *apiEnv) get(name string) *resources.Object {
	e.t.Helper()
	r := e.call("GET", "/v1/organizations/local/secrets/"+name, nil)
	if r.status == 404 {
		return nil
	}
	if r.status != 200 {
		e.t.Fatalf("get %s: %d %s", name, r.status, r.body)
	}
	var o resources.Object
	if err := json.Unmarshal(r.body, &o); err != nil {
		e.t.Fatal(err)
	}
	return &o
}

func (e *apiEnv) version(name string) string {
	e.t.Helper()
	o := e.get(name)
	if o == nil {
		e.t.Fatalf("%s does not exist", name)
	}
	return o.Meta().ResourceVersion
}

func (e *apiEnv) errorOf(r apiReply) resources.ErrorDetail {
	e.t.Helper()
	var er resources.ErrorResponse
	if err := json.Unmarshal(r.body, &er); err != nil || er.Error.Code == "" {
		e.t.Fatalf("not an error body (%d): %s", r.status, r.body)
	}
	return er.Error
}

// set is a SecretSet manifest with literal values.
func set(name string, labels map[string]string, kv ...string) resources.Object {
	data := map[string]resources.ValueSource{}
	for i := 0; i+1 < len(kv); i += 2 {
		data[kv[i]] = resources.Literal(kv[i+1])
	}
	return resources.Object{SecretSet: &resources.SecretSet{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
		Metadata: resources.ObjectMeta{Name: name, Labels: labels},
		Spec:     resources.SecretSetSpec{Data: data},
	}}
}

func ips(name, host, creds string) resources.Object {
	c := resources.Literal(creds)
	return resources.Object{ImagePullSecret: &resources.ImagePullSecret{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindImagePullSecret},
		Metadata: resources.ObjectMeta{Name: name},
		Spec:     resources.ImagePullSecretSpec{Host: host, Credentials: &c},
	}}
}

func actions(res resources.ApplyResult) string {
	var out []string
	for _, it := range res.Items {
		out = append(out, it.Ref()+" "+it.Action)
	}
	return strings.Join(out, ", ")
}

func keyChanges(it resources.ApplyResultItem) string {
	var out []string
	for _, k := range it.Keys {
		out = append(out, k.Key+":"+k.Change)
	}
	return strings.Join(out, " ")
}

func fieldChange(it resources.ApplyResultItem, field string) string {
	for _, f := range it.Fields {
		if f.Field == field {
			return f.Change
		}
	}
	return "<absent>"
}

// The last of many objects fails on the server side: none is applied, and
// objects that existed keep their version. Every failing object is listed.
func TestApplyAllOrNothing(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		e := newAPIEnv(t, db, false)
		if r := e.call("PATCH", "/v1/organizations/local/secrets/elsewhere", map[string]any{"region": "eu-central", "set": map[string]string{"A": "1"}}); r.status != 201 {
			t.Fatalf("patch: %d %s", r.status, r.body)
		}
		var objs []resources.Object
		for i := range 40 {
			objs = append(objs, set(fmt.Sprintf("s%02d", i), nil, "A", canary, "B", "b"))
		}
		res := e.mustApply(resources.ApplyRequest{Objects: objs})
		if len(res.Items) != 40 || res.Items[0].Action != resources.ActionCreated {
			t.Fatalf("first apply: %s", actions(res))
		}
		before := map[string]string{}
		for i := range 40 {
			before[fmt.Sprintf("s%02d", i)] = e.version(fmt.Sprintf("s%02d", i))
		}
		elsewhere := e.version("elsewhere")

		cases := []struct {
			name   string
			last   resources.Object
			status int
			code   string
			msg    string
		}{
			{"value over the limit", set("z-big", nil, "A", strings.Repeat("x", resources.MaxValueBytes+1)), 413, "too_large", "64 KiB"},
			{"region change", func() resources.Object {
				o := set("elsewhere", nil, "A", "1")
				o.SecretSet.Metadata.Region = "us-west"
				return o
			}(), 409, "conflict", "region eu-central"},
			{"name of the other kind", ips("elsewhere", "ghcr.io", "u:"+canary), 409, "conflict", "taken by secretset/elsewhere"},
			{"bad key", set("z-key", nil, "1BAD", "v"), 400, "invalid", "1BAD"},
			{"resourceVersion of a missing object", func() resources.Object {
				o := set("z-stale", nil, "A", "new")
				o.SecretSet.Metadata.ResourceVersion = "1"
				return o
			}(), 409, "conflict", "does not exist"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				// Every object changes (a new value, a new key), and the last fails.
				var next []resources.Object
				for i := range 40 {
					next = append(next, set(fmt.Sprintf("s%02d", i), nil, "A", canary+"-2", "C", "c"))
				}
				next = append(next, set("brand-new", nil, "A", "1"), c.last)
				_, r := e.apply(resources.ApplyRequest{Objects: next})
				if r.status != c.status {
					t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
				}
				ed := e.errorOf(r)
				if ed.Code != c.code || !strings.Contains(ed.Message, c.msg) || !strings.Contains(ed.Message, "nothing was applied") {
					t.Errorf("error %+v", ed)
				}
				if len(ed.Details) != 1 || ed.Details[0].Index != 41 || ed.Details[0].Name != c.last.Meta().Name {
					t.Errorf("details %+v, want objects[41] %s", ed.Details, c.last.Meta().Name)
				}
				for name, v := range before {
					o := e.get(name)
					if got := o.Meta().ResourceVersion; got != v || strings.Join(o.SecretSet.Spec.Keys, ",") != "A,B" {
						t.Errorf("%s changed: version %s (was %s), keys %v", name, got, v, o.SecretSet.Spec.Keys)
					}
				}
				if e.get("brand-new") != nil {
					t.Error("brand-new was created")
				}
				if e.version("elsewhere") != elsewhere {
					t.Error("elsewhere changed")
				}
			})
		}

		// Several bad objects: each is listed.
		_, r := e.apply(resources.ApplyRequest{Objects: []resources.Object{set("ok", nil, "A", "1"), set("bad-1", nil, "1X", "v"), set("Bad_name", nil), set("ok", nil)}})
		ed := e.errorOf(r)
		if r.status != 400 || len(ed.Details) != 3 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		for i, want := range []int{1, 2, 3} {
			if ed.Details[i].Index != want {
				t.Errorf("details[%d] = objects[%d], want %d", i, ed.Details[i].Index, want)
			}
		}
		if !strings.Contains(ed.Details[2].Message, "objects[0] and objects[3] both name ok") {
			t.Errorf("duplicate: %+v", ed.Details[2])
		}
		e.checkNoCanary()
	})
}

// Apply makes each object equal to its manifest; an unchanged re-apply
// writes nothing: same resourceVersion, no new pending state, no audit record.
func TestApplyReplaceAndUnchanged(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		e := newAPIEnv(t, db, true)
		first := []resources.Object{set("app", map[string]string{"team": "voice"}, "A", canary, "B", "b"), ips("regcreds", "registry.invalid:5000", "user:"+canary)}
		res := e.mustApply(resources.ApplyRequest{Objects: first})
		if got := actions(res); got != "secretset/app created, imagepullsecret/regcreds created" {
			t.Fatalf("first: %s", got)
		}
		if it := res.Items[0]; keyChanges(it) != "A:added B:added" || it.Object == nil || it.Object.Meta().ManagedBy != "apply" || it.ResourceVersion == "" {
			t.Errorf("first item: %+v", it)
		}
		// Wait until the set is provisioned.
		testenv.Eventually(t, "app to become ready", func() bool { return e.get("app").Status().State == resources.StateReady })
		v := e.version("app")
		ipsV := e.version("regcreds")
		audit := e.call("GET", "/v1/organizations/local/audit", nil).body

		res = e.mustApply(resources.ApplyRequest{Objects: first})
		if got := actions(res); got != "secretset/app unchanged, imagepullsecret/regcreds unchanged" {
			t.Fatalf("re-apply: %s", got)
		}
		if keyChanges(res.Items[0]) != "A:unchanged B:unchanged" {
			t.Errorf("keys: %s", keyChanges(res.Items[0]))
		}
		o := e.get("app")
		if o.Meta().ResourceVersion != v || o.Status().State != resources.StateReady || e.version("regcreds") != ipsV {
			t.Errorf("unchanged re-apply wrote: version %s (was %s), state %s", o.Meta().ResourceVersion, v, o.Status().State)
		}
		if got := e.call("GET", "/v1/organizations/local/audit", nil).body; !bytes.Equal(got, audit) {
			t.Errorf("unchanged re-apply added audit records")
		}

		// Keys not in the manifest go; labels are replaced.
		res = e.mustApply(resources.ApplyRequest{Objects: []resources.Object{set("app", nil, "A", canary+"x", "C", "c")}})
		it := res.Items[0]
		if it.Action != resources.ActionConfigured || keyChanges(it) != "A:changed B:removed C:added" || fieldChange(it, "metadata.labels") != "removed" {
			t.Errorf("replace: %s %s %+v", it.Action, keyChanges(it), it.Fields)
		}
		o = e.get("app")
		if strings.Join(o.SecretSet.Spec.Keys, ",") != "A,C" || len(o.Meta().Labels) != 0 || o.Meta().ResourceVersion == v || it.ResourceVersion != o.Meta().ResourceVersion {
			t.Errorf("after replace: %+v", o.SecretSet)
		}
		if o.Status().State != resources.StatePending && o.Status().State != resources.StateReady {
			t.Errorf("state %s", o.Status().State)
		}

		// Audit: apply records with key names only.
		var recs struct {
			Items []resources.AuditEntry `json:"items"`
		}
		if err := json.Unmarshal(e.call("GET", "/v1/organizations/local/audit", nil).body, &recs); err != nil {
			t.Fatal(err)
		}
		if len(recs.Items) == 0 || recs.Items[0].Action != "apply" || strings.Join(recs.Items[0].Keys, ",") != "A,B,C" {
			t.Errorf("audit: %+v", recs.Items)
		}
		e.checkNoCanary()
	})
}

// An object last written imperatively is adopted by apply (configured, no
// new generation when nothing else changes); apply then owns it until an
// imperative write takes it back.
func TestApplyOwnership(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		e := newAPIEnv(t, db, false)
		if r := e.call("PATCH", "/v1/organizations/local/secrets/hand", map[string]any{"set": map[string]string{"A": "1"}}); r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		o := e.get("hand")
		if o.Meta().ManagedBy != "" {
			t.Fatalf("imperative object is managed: %+v", o.Meta())
		}
		res := e.mustApply(resources.ApplyRequest{Objects: []resources.Object{set("hand", nil, "A", "1")}, ApplySet: "prod"})
		it := res.Items[0]
		if it.Action != resources.ActionConfigured || keyChanges(it) != "A:unchanged" || fieldChange(it, "metadata.managedBy") != "added" || fieldChange(it, "metadata.applySet") != "added" {
			t.Errorf("adopt: %s %s %+v", it.Action, keyChanges(it), it.Fields)
		}
		o = e.get("hand")
		if o.Meta().ManagedBy != "apply" || o.Meta().ApplySet != "prod" {
			t.Errorf("after adoption: %+v", o.Meta())
		}
		// Another apply set may not take it.
		_, r := e.apply(resources.ApplyRequest{Objects: []resources.Object{set("hand", nil, "A", "1")}, ApplySet: "staging"})
		if ed := e.errorOf(r); r.status != 409 || !strings.Contains(ed.Message, `belongs to apply set "prod"`) {
			t.Errorf("other set: %d %s", r.status, r.body)
		}
		_, r = e.apply(resources.ApplyRequest{Objects: []resources.Object{set("hand", nil, "A", "1")}})
		if r.status != 409 {
			t.Errorf("no set: %d %s", r.status, r.body)
		}
		// An imperative write releases it.
		if r := e.call("PATCH", "/v1/organizations/local/secrets/hand", map[string]any{"set": map[string]string{"B": "2"}}); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if o := e.get("hand"); o.Meta().ManagedBy != "" || o.Meta().ApplySet != "" {
			t.Errorf("after PATCH: %+v", o.Meta())
		}
		// Output-only fields are refused on input.
		m := set("x", nil)
		m.SecretSet.Metadata.ManagedBy = "apply"
		if _, r := e.apply(resources.ApplyRequest{Objects: []resources.Object{m}}); r.status != 400 {
			t.Errorf("managedBy on input: %d %s", r.status, r.body)
		}
	})
}

// Prune deletes exactly the objects apply wrote under the same apply set,
// matching the selector, not named: never an imperatively written object,
// never one of another apply set. The dry run reports the same without
// deleting.
func TestApplyPrune(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		e := newAPIEnv(t, db, false)
		voice := map[string]string{"team": "voice"}
		e.mustApply(resources.ApplyRequest{Objects: []resources.Object{
			set("keep", voice, "A", "1"), set("gone", voice, "A", canary, "B", "2"), set("text", map[string]string{"team": "text"}, "A", "1"),
			set("was-applied", voice, "A", "1"),
		}})
		e.mustApply(resources.ApplyRequest{Objects: []resources.Object{set("other-set", voice, "A", "1")}, ApplySet: "other"})
		if r := e.call("PATCH", "/v1/organizations/local/secrets/by-hand", map[string]any{"labels": voice, "set": map[string]string{"A": "1"}}); r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		// Written imperatively after apply: no longer prunable.
		if r := e.call("PATCH", "/v1/organizations/local/secrets/was-applied", map[string]any{"set": map[string]string{"B": "1"}}); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}

		req := resources.ApplyRequest{Objects: []resources.Object{set("keep", voice, "A", "1")}, Prune: true, Selector: "team=voice", DryRun: true}
		res := e.mustApply(req)
		if got := actions(res); got != "secretset/keep unchanged, secretset/gone pruned" || !res.DryRun {
			t.Fatalf("dry run: %s", got)
		}
		if keyChanges(res.Items[1]) != "A:removed B:removed" {
			t.Errorf("pruned keys: %s", keyChanges(res.Items[1]))
		}
		if e.get("gone") == nil {
			t.Fatal("the dry run deleted gone")
		}
		req.DryRun = false
		res = e.mustApply(req)
		if got := actions(res); got != "secretset/keep unchanged, secretset/gone pruned" {
			t.Fatalf("apply: %s", got)
		}
		if e.get("gone") != nil {
			t.Error("gone was not pruned")
		}
		for _, name := range []string{"keep", "text", "other-set", "by-hand", "was-applied"} {
			if e.get(name) == nil {
				t.Errorf("%s was pruned", name)
			}
		}
		// The other apply set prunes its own only.
		res = e.mustApply(resources.ApplyRequest{ApplySet: "other", Prune: true, Objects: []resources.Object{}})
		if got := actions(res); got != "secretset/other-set pruned" {
			t.Errorf("other set prune: %s", got)
		}
		// Prune needs a selector or an apply set; a selector needs prune.
		if _, r := e.apply(resources.ApplyRequest{Prune: true}); r.status != 400 {
			t.Errorf("prune without selector: %d %s", r.status, r.body)
		}
		if _, r := e.apply(resources.ApplyRequest{Selector: "a=b"}); r.status != 400 {
			t.Errorf("selector without prune: %d %s", r.status, r.body)
		}
		if _, r := e.apply(resources.ApplyRequest{ApplySet: "bad set!"}); r.status != 400 {
			t.Errorf("bad apply set: %d %s", r.status, r.body)
		}
		e.checkNoCanary()
	})
}

// The dry run compares against the stored values: per key and field, no
// value, nothing written.
func TestApplyDryRunPlan(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		e := newAPIEnv(t, db, false)
		e.mustApply(resources.ApplyRequest{Objects: []resources.Object{set("app", map[string]string{"a": "1"}, "A", canary, "B", "b", "D", "d"), ips("reg", "ghcr.io", "u:"+canary)}})
		v := e.version("app")
		res := e.mustApply(resources.ApplyRequest{DryRun: true, Objects: []resources.Object{
			set("app", map[string]string{"a": "2"}, "A", canary+"!", "C", "c", "D", "d"),
			ips("reg", "ghcr.io", "u:other"),
			set("new", nil, "K", canary),
		}})
		if got := actions(res); got != "secretset/app configured, imagepullsecret/reg configured, secretset/new created" {
			t.Fatalf("plan: %s", got)
		}
		app := res.Items[0]
		if keyChanges(app) != "A:changed B:removed C:added D:unchanged" || fieldChange(app, "metadata.labels") != "changed" || fieldChange(app, "metadata.managedBy") != "unchanged" {
			t.Errorf("app: %s %+v", keyChanges(app), app.Fields)
		}
		reg := res.Items[1]
		if fieldChange(reg, "spec.credentials") != "changed" || fieldChange(reg, "spec.host") != "unchanged" {
			t.Errorf("reg: %+v", reg.Fields)
		}
		if n := res.Items[2]; n.ResourceVersion != "" || n.Object == nil || n.Object.Meta().ResourceVersion != "" || keyChanges(n) != "K:added" {
			t.Errorf("new: %+v", n)
		}
		if e.version("app") != v || e.get("new") != nil {
			t.Error("the dry run wrote")
		}
		// metadata.resourceVersion is a precondition.
		cond := set("app", map[string]string{"a": "1"}, "A", canary, "B", "b", "D", "d")
		cond.SecretSet.Metadata.ResourceVersion = v
		if res := e.mustApply(resources.ApplyRequest{Objects: []resources.Object{cond}}); res.Items[0].Action != resources.ActionUnchanged {
			t.Errorf("current version: %s", actions(res))
		}
		cond.SecretSet.Metadata.ResourceVersion = "12345"
		if _, r := e.apply(resources.ApplyRequest{Objects: []resources.Object{cond}}); r.status != 409 || !strings.Contains(e.errorOf(r).Message, "changed since") {
			t.Errorf("stale version: %d %s", r.status, r.body)
		}
		e.checkNoCanary()
	})
}

// delete of several objects: one transaction; a missing object is a 404
// and nothing is deleted, unless ignoreNotFound.
func TestDeleteMany(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		e := newAPIEnv(t, db, false)
		e.mustApply(resources.ApplyRequest{Objects: []resources.Object{set("a", nil, "A", "1"), set("b", nil), ips("r", "ghcr.io", "u:p")}})
		del := func(req resources.DeleteRequest) (resources.DeleteResult, apiReply) {
			r := e.call("POST", "/v1/organizations/local/delete", req)
			var res resources.DeleteResult
			if r.status == 200 {
				if err := json.Unmarshal(r.body, &res); err != nil {
					t.Fatal(err)
				}
			}
			return res, r
		}
		ref := func(kind, name string) resources.ObjectRef { return resources.ObjectRef{Kind: kind, Name: name} }
		_, r := del(resources.DeleteRequest{Objects: []resources.ObjectRef{ref("SecretSet", "a"), ref("SecretSet", "missing")}})
		if ed := e.errorOf(r); r.status != 404 || len(ed.Details) != 1 || ed.Details[0].Name != "missing" || !strings.Contains(ed.Message, "nothing was deleted") {
			t.Fatalf("missing: %d %s", r.status, r.body)
		}
		if e.get("a") == nil {
			t.Fatal("a was deleted")
		}
		_, r = del(resources.DeleteRequest{Objects: []resources.ObjectRef{ref("SecretSet", "a"), ref("SecretSet", "r")}})
		if r.status != 409 || e.get("a") == nil {
			t.Fatalf("kind mismatch: %d %s", r.status, r.body)
		}
		res, r := del(resources.DeleteRequest{DryRun: true, Objects: []resources.ObjectRef{ref("SecretSet", "a")}})
		if r.status != 200 || !res.DryRun || res.Items[0].Action != resources.ActionDeleted || e.get("a") == nil {
			t.Fatalf("dry run: %d %s", r.status, r.body)
		}
		res, r = del(resources.DeleteRequest{IgnoreNotFound: true, Objects: []resources.ObjectRef{ref("SecretSet", "a"), ref("SecretSet", "missing"), ref("ImagePullSecret", "r")}})
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		var got []string
		for _, it := range res.Items {
			got = append(got, it.Ref()+" "+it.Action)
		}
		if strings.Join(got, ", ") != "secretset/a deleted, secretset/missing not found, imagepullsecret/r deleted" {
			t.Errorf("delete: %v", got)
		}
		if e.get("a") != nil || e.get("r") != nil || e.get("b") == nil {
			t.Error("wrong objects deleted")
		}
	})
}

// Malformed bodies: duplicate keys at any depth, unknown fields inside an
// object, a wrong kind.
func TestApplyBadBodies(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		e := newAPIEnv(t, db, false)
		for _, c := range []struct{ body, want string }{
			{`{"objects":[],"objects":[]}`, `duplicate key "objects"`},
			{`{"objects":[{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"a","name":"b"},"spec":{}}]}`, `duplicate key "name" in "objects[0].metadata"`},
			{`{"objects":[{"kind":"SecretSet","metadata":{"name":"a"},"spec":{"data":{"A":"` + canary + `","A":"x"}}}]}`, `duplicate key "A" in "objects[0].spec.data"`},
			{`{"objects":[{"kind":"SecretSet","metadata":{"name":"a"},"spec":{"dat":{}}}]}`, `objects[0]: unknown field "dat"`},
			{`{"objects":[{"kind":"Secret","metadata":{"name":"a"}}]}`, `unknown kind "Secret"`},
			{`{"objects":[{"kind":"SecretSet","metadata":{"name":"a"},"spec":{"data":{"A":{"fromEnv":"X"}}}}]}`, `must be resolved by the client`},
			{`{"objects":[7]}`, `want an object`},
			{`{"objectz":[]}`, `unknown field "objectz"`},
		} {
			r := e.call("POST", "/v1/organizations/local/apply", c.body)
			if r.status != 400 || !strings.Contains(e.errorOf(r).Message, c.want) {
				t.Errorf("%s: %d %s (want %s)", c.body, r.status, r.body, c.want)
			}
		}
		// PUT decodes objects strictly too now.
		r := e.call("PUT", "/v1/organizations/local/secrets/a", `{"kind":"SecretSet","metadata":{"name":"a"},"spec":{"data":{}},"extra":1}`)
		if r.status != 400 || !strings.Contains(e.errorOf(r).Message, `unknown field "extra"`) {
			t.Errorf("PUT with an unknown field: %d %s", r.status, r.body)
		}
		// Duplicate keys in a PATCH body.
		r = e.call("PATCH", "/v1/organizations/local/secrets/a", `{"set":{"A":"1","A":"2"}}`)
		if r.status != 400 || !strings.Contains(e.errorOf(r).Message, `duplicate key "A" in "set"`) {
			t.Errorf("PATCH with a duplicate key: %d %s", r.status, r.body)
		}
		e.checkNoCanary()
	})
}

// A list's continue token that no list returned is a 400, not an empty page.
func TestListBadContinue(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		e := newAPIEnv(t, db, false)
		e.mustApply(resources.ApplyRequest{Objects: []resources.Object{set("a", nil), set("b", nil)}})
		for _, c := range []string{"garbage", "!!!", "Zm9vL2Jhcg"} { // the last is base64 of "foo/bar"
			r := e.call("GET", "/v1/organizations/local/secrets?continue="+c, nil)
			if r.status != 400 || e.errorOf(r).Code != "invalid" {
				t.Errorf("continue=%s: %d %s", c, r.status, r.body)
			}
		}
		r := e.call("GET", "/v1/organizations/local/secrets?limit=1", nil)
		var l resources.List
		if err := json.Unmarshal(r.body, &l); err != nil || l.Metadata.Continue == "" {
			t.Fatalf("%s %v", r.body, err)
		}
		r = e.call("GET", "/v1/organizations/local/secrets?limit=1&continue="+l.Metadata.Continue, nil)
		if r.status != 200 || !strings.Contains(string(r.body), `"name":"b"`) {
			t.Errorf("real token: %d %s", r.status, r.body)
		}
	})
}

// checkNoCanary looks for the canary in every response body, the log and
// every file of the data directory (values are stored encrypted).
func (e *apiEnv) checkNoCanary() {
	e.t.Helper()
	if bytes.Contains(e.bodies.Bytes(), []byte(canary)) {
		e.t.Error("a response contains the canary value")
	}
	if strings.Contains(e.logs.String(), canary) {
		e.t.Error("the log contains the canary value")
	}
	for _, dir := range []string{e.dir, e.dbDir} {
		if dir == "" {
			continue
		}
		err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
			if errors.Is(err, fs.ErrNotExist) { // the database server removed it
				return nil
			}
			if err != nil || !info.Mode().IsRegular() { // not the server's socket
				return err
			}
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if bytes.Contains(data, []byte(canary)) {
				e.t.Errorf("%s contains the canary value", path)
			}
			return nil
		})
		if err != nil {
			e.t.Fatal(err)
		}
	}
	if e.logs.String() == "" {
		e.t.Error("nothing was logged: the log check proves nothing")
	}
}

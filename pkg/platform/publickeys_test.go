package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// serviceReplicas opens two services (replicas) over one database of db's
// kind, with organizations acme and other, and returns a principal of each
// organization on the first (through an API token, as a request has it).
func serviceReplicas(t *testing.T, db testDB) (a, b *service.Service, acme, other service.Principal, acmeToken string) {
	t.Helper()
	ctx := context.Background()
	loc := stores.Location{DataDir: t.TempDir()}
	if db.postgres {
		loc = stores.Location{URL: pg.Database(t)}
	}
	var svcs [2]*service.Service
	for i := range svcs {
		st, err := stores.Open(ctx, loc, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		svcs[i], _ = service.New(ctx, service.Options{Store: st, DataDir: loc.DataDir})
	}
	admin := svcs[0].Admin()
	principal := func(org string) (service.Principal, string) {
		if _, err := admin.CreateOrg(ctx, org, ""); err != nil {
			t.Fatal(err)
		}
		tok, _, err := admin.CreateToken(ctx, org, "ann")
		if err != nil {
			t.Fatal(err)
		}
		p, err := svcs[0].Authenticate(ctx, "Bearer "+tok)
		if err != nil {
			t.Fatal(err)
		}
		return p, tok
	}
	acme, acmeToken = principal("acme")
	other, _ = principal("other")
	return svcs[0], svcs[1], acme, other, acmeToken
}

func isCode(err error, code string) bool {
	var re *resources.Error
	return errors.As(err, &re) && re.Code == code
}

// Public keys on both stores, through two replicas: a key made on one
// authenticates on the other with its organization and origins; an API
// token is never a public key nor a public key an API token; a key deleted
// on one replica is refused by the very next lookup on the other; only its
// organization lists or deletes it; the audit records who made and deleted
// which key, never the key.
func TestPublicKeysAcrossReplicas(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		a, b, acme, other, acmeToken := serviceReplicas(t, db)
		k, err := a.CreatePublicKey(ctx, acme, resources.PublicKeyRequest{Name: "web", AllowedOrigins: []string{"https://App.Example.com", "http://localhost:5173", "https://app.example.com"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(k.Key, "pk_") || len(k.Key) != len("pk_")+52 || !strings.HasPrefix(k.Key, k.Prefix) || len(k.Prefix) != len("pk_")+6 ||
			!strings.HasPrefix(k.ID, "key_") || k.Name != "web" || k.CreatedBy != acme.Me().User+" ("+acme.Me().TokenID+")" {
			t.Fatalf("created key: %+v", k.PublicKey)
		}
		if want := []string{"https://app.example.com", "http://localhost:5173"}; !slices.Equal(k.AllowedOrigins, want) {
			t.Errorf("allowed origins %q, want %q (canonical, once each)", k.AllowedOrigins, want)
		}
		pp, err := b.AuthenticatePublicKey(ctx, k.Key)
		if err != nil || pp.Org().Name != "acme" || pp.Org().ID != acme.Org().ID || pp.KeyID() != k.ID ||
			!slices.Equal(pp.AllowedOrigins(), k.AllowedOrigins) || !pp.AllowsOrigin("https://app.example.com") || pp.AllowsOrigin("https://evil.example") {
			t.Fatalf("the key on the other replica: %+v, %v", pp, err)
		}

		// Neither credential stands for the other.
		for _, raw := range []string{acmeToken, "", "pk_", k.Key + "x", strings.ToUpper(k.Key), " " + k.Key, "Bearer " + k.Key} {
			if _, err := b.AuthenticatePublicKey(ctx, raw); err != service.ErrPublicKeyUnauthenticated {
				t.Errorf("AuthenticatePublicKey(%.12q…): %v, want ErrPublicKeyUnauthenticated", raw, err)
			}
		}
		if _, err := b.Authenticate(ctx, "Bearer "+k.Key); !isCode(err, resources.CodeUnauthenticated) {
			t.Errorf("a public key on the private API: %v, want unauthenticated", err)
		}

		second, err := b.CreatePublicKey(ctx, acme, resources.PublicKeyRequest{})
		if err != nil || second.Name != "" || second.AllowedOrigins == nil || len(second.AllowedOrigins) != 0 || second.Key == k.Key {
			t.Fatalf("a key without name or origins: %+v, %v", second, err)
		}
		list, err := b.PublicKeys(ctx, acme)
		if err != nil || len(list.Items) != 2 || list.Items[0].ID != k.ID || list.Items[1].ID != second.ID {
			t.Fatalf("list: %+v, %v", list, err)
		}
		if list, err := b.PublicKeys(ctx, other); err != nil || len(list.Items) != 0 {
			t.Errorf("another organization's list: %+v, %v", list, err)
		}
		if _, err := a.DeletePublicKey(ctx, other, k.ID); !isCode(err, resources.CodeNotFound) {
			t.Errorf("another organization deletes the key: %v, want not_found", err)
		}

		// Deleted on a: the next lookup on b refuses it.
		if got, err := a.DeletePublicKey(ctx, acme, k.ID); err != nil || got.ID != k.ID || got.Name != "web" {
			t.Fatalf("delete: %+v, %v", got, err)
		}
		if _, err := b.AuthenticatePublicKey(ctx, k.Key); err != service.ErrPublicKeyUnauthenticated {
			t.Errorf("the deleted key on the other replica: %v, want ErrPublicKeyUnauthenticated", err)
		}
		if _, err := b.AuthenticatePublicKey(ctx, second.Key); err != nil {
			t.Errorf("the other key after the delete: %v", err)
		}
		if _, err := b.DeletePublicKey(ctx, acme, k.ID); !isCode(err, resources.CodeNotFound) {
			t.Errorf("deleting it again: %v, want not_found", err)
		}
		if list, err := a.PublicKeys(ctx, acme); err != nil || len(list.Items) != 1 || list.Items[0].ID != second.ID {
			t.Errorf("list after the delete: %+v, %v", list, err)
		}

		// Bad requests change nothing.
		for _, req := range []resources.PublicKeyRequest{
			{Name: strings.Repeat("n", 64)},
			{Name: "tab\there"},
			{AllowedOrigins: []string{"*"}},
			{AllowedOrigins: []string{"https://app.example.com/"}},
			{AllowedOrigins: []string{"https://app.example.com/path"}},
			{AllowedOrigins: []string{"ftp://app.example.com"}},
			{AllowedOrigins: []string{"app.example.com"}},
			{AllowedOrigins: []string{"https://*.example.com"}},
			{AllowedOrigins: []string{"https://user@app.example.com"}},
			{AllowedOrigins: []string{"https://app.example.com?x=1"}},
			{AllowedOrigins: slices.Repeat([]string{"https://a.example"}, 33)},
		} {
			if _, err := a.CreatePublicKey(ctx, acme, req); !isCode(err, resources.CodeInvalid) {
				t.Errorf("create %+v: %v, want invalid", req, err)
			}
		}

		recs, err := a.Audit(ctx, acme, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range recs {
			if r.Kind == resources.KindPublicKey {
				got = append(got, r.Action+" "+r.Name+" by "+r.Actor)
			}
		}
		actor := acme.Me().User + " (" + acme.Me().TokenID + ")"
		if want := []string{"delete " + k.ID + " by " + actor, "create " + second.ID + " by " + actor, "create " + k.ID + " by " + actor}; !slices.Equal(got, want) {
			t.Errorf("audit: %q, want %q", got, want)
		}
	})
}

// The public keys' routes on both stores, every request and answer checked
// against api/openapi.yaml: create (201, the key once), list, delete; strict
// bodies; a public key is refused on the private API; another organization
// gets 404s. The key (a canary) is nowhere but in create's answer: not in
// the request log, another answer, the audit, nor any file of the data
// directory.
func TestPublicKeysAPI(t *testing.T) {
	c := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		var logs bytes.Buffer
		opts := storeOptions(t, db)
		opts.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		if !db.postgres {
			opts.DataDir = t.TempDir()
		}
		base, srv := platformtest.Start(t, opts)
		platformtest.CreateOrg(t, srv, "acme", "")
		platformtest.CreateOrg(t, srv, "other", "")
		auth := map[string]string{"Authorization": "Bearer " + platformtest.CreateToken(t, srv, "acme", "ci")}
		otherAuth := map[string]string{"Authorization": "Bearer " + platformtest.CreateToken(t, srv, "other", "ci")}
		var answers []string
		do := func(h map[string]string, method, path, body string, want int) apitest.Reply {
			t.Helper()
			r, err := c.Do(t, base, method, path, body, h)
			if err != nil {
				t.Errorf("%s %s %s: api/openapi.yaml: %v", method, path, body, err)
			}
			if r.Status != want {
				t.Fatalf("%s %s %s: %d %s, want %d", method, path, body, r.Status, r.Body, want)
			}
			answers = append(answers, string(r.Body))
			return r
		}
		const keys = "/v1/organizations/acme/keys"
		r := do(auth, "POST", keys, `{"name":"web","allowedOrigins":["https://app.example.com","http://localhost:5173"]}`, 201)
		answers = answers[:len(answers)-1]
		var k resources.CreatedPublicKey
		if err := json.Unmarshal(r.Body, &k); err != nil {
			t.Fatal(err)
		}
		if r.Header.Get("Cache-Control") != "no-store" || k.Name != "web" || len(k.AllowedOrigins) != 2 {
			t.Errorf("create: %s %s", r.Header, r.Body)
		}
		do(auth, "POST", keys, `{"allowedOrigins":["https://a.example/"]}`, 400)
		// Bodies the contract refuses: refused as it says.
		for _, body := range []string{`{"name":"x","key":"pk_mine"}`, `{"allowedOrigins":"https://a.example"}`, `{"name":null}`, `{"name":"` + strings.Repeat("n", 64) + `"}`} {
			if r, err := c.Do(t, base, "POST", keys, body, auth); err == nil || r.Status != 400 {
				t.Errorf("POST %s %s: %d %s (contract: %v), want 400", keys, body, r.Status, r.Body, err)
			}
		}
		do(auth, "POST", keys, `{}`, 201)
		r = do(auth, "GET", keys, "", 200)
		var list resources.PublicKeyList
		if err := json.Unmarshal(r.Body, &list); err != nil || len(list.Items) != 2 || list.Items[0].ID != k.ID || list.Items[0].Prefix != k.Prefix {
			t.Errorf("list: %s", r.Body)
		}

		// A public key is not an API token, anywhere on the private API.
		pk := map[string]string{"Authorization": "Bearer " + k.Key}
		for _, path := range []string{"/v1/me", keys, "/v1/organizations/acme/secrets"} {
			if r := do(pk, "GET", path, "", 401); !strings.Contains(string(r.Body), "public key") {
				t.Errorf("GET %s with a public key: %s", path, r.Body)
			}
		}

		// Another organization: 404s, nothing deleted.
		do(otherAuth, "GET", keys, "", 404)
		do(otherAuth, "DELETE", keys+"/"+k.ID, "", 404)
		do(otherAuth, "DELETE", "/v1/organizations/other/keys/"+k.ID, "", 404)
		if r := do(otherAuth, "GET", "/v1/organizations/other/keys", "", 200); string(r.Body) != "{\"items\":[]}\n" {
			t.Errorf("the other organization's keys: %s", r.Body)
		}

		if r := do(auth, "DELETE", keys+"/"+k.ID, "", 200); !strings.Contains(string(r.Body), `"id":"`+k.ID+`"`) {
			t.Errorf("delete: %s", r.Body)
		}
		do(auth, "DELETE", keys+"/"+k.ID, "", 404)
		do(auth, "DELETE", keys+"/key_nope", "", 404)
		r = do(auth, "GET", "/v1/organizations/acme/audit", "", 200)
		if n := strings.Count(string(r.Body), `"kind":"PublicKey"`); n != 3 || !strings.Contains(string(r.Body), `"action":"delete","kind":"PublicKey","name":"`+k.ID+`"`) {
			t.Errorf("audit (%d public key records): %s", n, r.Body)
		}

		secret := strings.TrimPrefix(k.Key, k.Prefix)
		for _, a := range answers {
			if strings.Contains(a, secret) {
				t.Errorf("an answer holds the key: %s", a)
			}
		}
		if !strings.Contains(logs.String(), "/keys") || strings.Contains(logs.String(), secret) {
			t.Errorf("the request log holds the key (or no request): %s", logs.String())
		}
		if db.postgres {
			return
		}
		srv.Close()
		files := 0
		if err := filepath.WalkDir(opts.DataDir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds the key", path)
			}
			return nil
		}); err != nil || files == 0 {
			t.Fatalf("the data directory: %d files, %v", files, err)
		}
	})
}

package platform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/sealed"
)

const sealedCanary = "CANARY-s3al3d-4c1e"

// sealedReplicas starts two platforms (replicas) over one database of db's
// kind, with organization acme, and returns their URLs, a token's header,
// and a third store handle on the same database with the master key file.
func sealedReplicas(t *testing.T, db testDB) (bases [2]string, auth map[string]string, other store.Store, dataDir, keyFile string) {
	t.Helper()
	ctx := context.Background()
	loc := stores.Location{DataDir: t.TempDir()}
	if db.postgres {
		loc = stores.Location{URL: pg.Database(t)}
		keyFile = filepath.Join(t.TempDir(), "master.key")
		writeKey(t, keyFile, "5c")
	}
	open := func() store.Store {
		st, err := stores.Open(ctx, loc, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	var srv *platform.Server
	for i := range bases {
		bases[i], srv = platformtest.Start(t, platform.Options{Store: open(), DataDir: loc.DataDir, MasterKeyFile: keyFile, DisableProvisioner: true})
		if i == 0 {
			platformtest.CreateOrg(t, srv, "acme", "")
			auth = map[string]string{"Authorization": "Bearer " + platformtest.CreateToken(t, srv, "acme", "ci")}
		}
	}
	other = open()
	t.Cleanup(func() { other.Close() })
	return bases, auth, other, loc.DataDir, keyFile
}

// Sealed values on both stores, through two replicas, every request and
// answer checked against api/openapi.yaml: the organization gets one key
// pair however many replicas ask at once; a value sealed to it applies (and
// is the value: the same literal is unchanged); a value bound elsewhere,
// tampered or malformed fails the whole apply naming its field; rotation
// keeps old values opening, reseal moves them to the new key; a retired key
// opens nothing. No answer holds a value.
func TestSealedValues(t *testing.T) {
	c := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		bases, auth, other, dataDir, keyFile := sealedReplicas(t, db)
		do := func(replica int, method, path, body string, want int) apitest.Reply {
			t.Helper()
			r, err := c.Do(t, bases[replica], method, path, body, auth)
			if err != nil && r.Status < 400 {
				t.Fatalf("%s %s: accepted (%d) what api/openapi.yaml forbids: %v", method, path, r.Status, err)
			}
			if r.Status != want {
				t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
			}
			if strings.Contains(string(r.Body), sealedCanary) {
				t.Fatalf("%s %s answered a value: %s", method, path, r.Body)
			}
			return r
		}
		// Both replicas ask for the first key at once: one key pair.
		var wg sync.WaitGroup
		keys := make([]resources.SealingKey, 8)
		for i := range keys {
			wg.Go(func() {
				r, err := c.Do(t, bases[i%2], "GET", "/v1/organizations/acme/sealing-key", "", auth)
				if err == nil && r.Status == 200 {
					err = json.Unmarshal(r.Body, &keys[i])
				} else if err == nil {
					err = fmt.Errorf("status %d %s", r.Status, r.Body)
				}
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for _, k := range keys {
			if k.KeyID != keys[0].KeyID || len(k.Keys) != 1 || !k.Keys[0].Current || sealed.KeyID(k.Recipient) != k.KeyID {
				t.Fatalf("concurrent first reads of the sealing key: %+v and %+v", keys[0], k)
			}
		}
		rcp, err := sealed.ParseRecipient(keys[0].Recipient)
		if err != nil {
			t.Fatal(err)
		}
		seal := func(r *sealed.Recipient, set, key, value string) string {
			t.Helper()
			s, err := sealed.Seal(r, sealed.Binding{Scope: sealed.ScopeStrict, Organization: "acme", Set: set, Key: key}, value)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		object := func(name string, data map[string]string) string {
			parts := make([]string, 0, len(data))
			for k, v := range data {
				if strings.HasPrefix(v, "v1.") {
					parts = append(parts, fmt.Sprintf(`%q:{"sealed":%q}`, k, v))
				} else {
					parts = append(parts, fmt.Sprintf(`%q:%q`, k, v))
				}
			}
			return fmt.Sprintf(`{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":%q},"spec":{"data":{%s}}}`, name, strings.Join(parts, ","))
		}
		applyBody := func(objs ...string) string { return `{"objects":[` + strings.Join(objs, ",") + `]}` }

		oldA := seal(rcp, "bot", "A", sealedCanary+"-a")
		do(0, "POST", "/v1/organizations/acme/apply", applyBody(object("bot", map[string]string{"A": oldA, "B": "b"})), 200)
		r := do(1, "PUT", "/v1/organizations/acme/secrets/bot?dryRun=true", object("bot", map[string]string{"A": sealedCanary + "-a", "B": "b"}), 200)
		if !strings.Contains(string(r.Body), `"action":"unchanged"`) {
			t.Fatalf("the literal of the sealed value is a change: %s", r.Body)
		}
		r = do(1, "PUT", "/v1/organizations/acme/secrets/bot?dryRun=true", object("bot", map[string]string{"A": seal(rcp, "bot", "A", "other"), "B": "b"}), 200)
		if !strings.Contains(string(r.Body), `{"key":"A","change":"changed"}`) {
			t.Fatalf("another sealed value is no change: %s", r.Body)
		}

		// One bad value fails the whole apply: nothing is written, and the
		// detail names the object and the field.
		tampered := []byte(oldA) // one base64url character of the payload changed
		if i := len(tampered) - 20; tampered[i] == 'A' {
			tampered[i] = 'B'
		} else {
			tampered[i] = 'A'
		}
		for name, tc := range map[string]struct {
			value, field, msg string
		}{
			"another key":  {seal(rcp, "bot", "B", "x"), "spec.data.A", "sealed value bound to organization acme, set bot, key B, not to organization acme, set new, key A"},
			"another set":  {seal(rcp, "bot", "A", "x"), "spec.data.A", "set bot, key A, not to organization acme, set new"},
			"tampered":     {string(tampered), "spec.data.A", "does not decrypt with key " + keys[0].KeyID},
			"unknown key":  {"v1.0123456789abcdef." + strings.SplitN(oldA, ".", 3)[2], "spec.data.A", "sealed to key 0123456789abcdef, which organization acme does not hold (its keys: " + keys[0].KeyID + "): sealed for another organization or platform; seal the values again for organization acme: botkit seal new -f FILE.env --organization acme, or offline: botkit seal --fetch-cert --organization acme > acme.pub, then botkit seal new -f FILE.env --cert acme.pub"},
			"not a sealed": {"v1.nothex.AAAA", "spec.data.A", "not a sealed value"},
		} {
			r := do(0, "POST", "/v1/organizations/acme/apply", applyBody(object("fine", map[string]string{"K": seal(rcp, "fine", "K", "v")}), object("new", map[string]string{"A": tc.value})), 400)
			var er resources.ErrorResponse
			if err := json.Unmarshal(r.Body, &er); err != nil {
				t.Fatal(err)
			}
			if len(er.Error.Details) != 1 || er.Error.Details[0].Index != 1 || er.Error.Details[0].Field != tc.field || !strings.Contains(er.Error.Details[0].Message, tc.msg) {
				t.Errorf("%s: %s", name, r.Body)
			}
		}
		do(1, "GET", "/v1/organizations/acme/secrets/fine", "", 404)
		do(1, "GET", "/v1/organizations/acme/secrets/new", "", 404)

		// Rotation: the new key is current, the old one still opens; reseal
		// moves a value to the new key, with its binding.
		keysAdmin, err := platform.OpenSealingKeys(ctx, other, dataDir, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		nk, err := keysAdmin.Rotate(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		var cur resources.SealingKey
		if err := json.Unmarshal(do(1, "GET", "/v1/organizations/acme/sealing-key", "", 200).Body, &cur); err != nil {
			t.Fatal(err)
		}
		if cur.KeyID != nk.ID || len(cur.Keys) != 2 || cur.Keys[0].Current || !cur.Keys[1].Current {
			t.Fatalf("after rotation: %+v", cur)
		}
		do(0, "POST", "/v1/organizations/acme/apply", applyBody(object("bot", map[string]string{"A": oldA, "B": "b"})), 200)
		body, err := json.Marshal(resources.ResealRequest{Values: []string{oldA, "v1.nothex.x"}})
		if err != nil {
			t.Fatal(err)
		}
		r = do(0, "POST", "/v1/organizations/acme/reseal", string(body), 400)
		if !strings.Contains(string(r.Body), `"index":1`) || !strings.Contains(string(r.Body), "nothing was resealed") {
			t.Errorf("reseal with a bad value: %s", r.Body)
		}
		// A value sealed for another organization: a reseal cannot move it,
		// and the error says to seal the values again for this one.
		if body, err = json.Marshal(resources.ResealRequest{Values: []string{"v1.0123456789abcdef." + strings.SplitN(oldA, ".", 3)[2]}}); err != nil {
			t.Fatal(err)
		}
		r = do(0, "POST", "/v1/organizations/acme/reseal", string(body), 400)
		if !strings.Contains(string(r.Body), "which organization acme does not hold") || !strings.Contains(string(r.Body), "seal the values again for organization acme: botkit seal NAME -f FILE.env --organization acme") {
			t.Errorf("reseal of another organization's value: %s", r.Body)
		}
		if body, err = json.Marshal(resources.ResealRequest{Values: []string{oldA}}); err != nil {
			t.Fatal(err)
		}
		var rr resources.ResealResult
		if err := json.Unmarshal(do(1, "POST", "/v1/organizations/acme/reseal", string(body), 200).Body, &rr); err != nil {
			t.Fatal(err)
		}
		if rr.KeyID != nk.ID || len(rr.Values) != 1 || !strings.HasPrefix(rr.Values[0], "v1."+nk.ID+".") {
			t.Fatalf("reseal: %+v", rr)
		}
		r = do(0, "PUT", "/v1/organizations/acme/secrets/bot?dryRun=true", object("bot", map[string]string{"A": rr.Values[0], "B": "b"}), 200)
		if !strings.Contains(string(r.Body), `"action":"unchanged"`) {
			t.Fatalf("the resealed value differs: %s", r.Body)
		}
		// Retire the old key: the current one cannot be; the old one then
		// opens nothing, on either replica.
		if err := keysAdmin.Retire(ctx, "acme", nk.ID); err == nil {
			t.Error("retired the current key")
		}
		if err := keysAdmin.Retire(ctx, "acme", keys[0].KeyID); err != nil {
			t.Fatal(err)
		}
		for replica := range 2 {
			r = do(replica, "POST", "/v1/organizations/acme/apply", applyBody(object("bot", map[string]string{"A": oldA, "B": "b"})), 400)
			if !strings.Contains(string(r.Body), "sealed to key "+keys[0].KeyID+", retired on") {
				t.Errorf("replica %d, a value of a retired key: %s", replica, r.Body)
			}
		}
		do(1, "POST", "/v1/organizations/acme/apply", applyBody(object("bot", map[string]string{"A": rr.Values[0], "B": "b"})), 200)
	})
}

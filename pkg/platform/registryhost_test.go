package platform_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const registryCanary = "CANARY-r3g1stry-41c2"

// A registry host given without a scheme, on both stores, against a real
// docker-registry on 127.0.0.1: an image pull secret for
// 127.0.0.1:PORT is checked over plain HTTP, as preflight asks the image,
// and is ready; preflight reports each check id once, the pull secret's
// host compared with the image's after normalising (Docker Hub's names are
// one registry; localhost and 127.0.0.1 are two, said so). Every exchange
// is checked against api/openapi.yaml; no answer holds the password.
func TestRegistryHostWithoutScheme(t *testing.T) {
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), "robot", registryCanary)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Stop()
	if _, err := registrytest.Push(reg.URL, "robot", registryCanary, "bots/voice:0.1", "linux/arm64"); err != nil {
		t.Fatal(err)
	}
	hostPort := strings.TrimPrefix(reg.URL, "http://")
	port := hostPort[strings.LastIndexByte(hostPort, ':'):]
	c := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		loc := stores.Location{DataDir: t.TempDir()}
		keyFile := ""
		if db.postgres {
			loc = stores.Location{URL: pg.Database(t)}
			keyFile = filepath.Join(t.TempDir(), "master.key")
			writeKey(t, keyFile, "7d")
		}
		st, err := stores.Open(t.Context(), loc, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		base, srv := platformtest.Start(t, platform.Options{Store: st, DataDir: loc.DataDir, MasterKeyFile: keyFile,
			AllowPrivateRegistries: true, PollInterval: 50 * time.Millisecond})
		platformtest.CreateOrg(t, srv, "acme", "")
		auth := map[string]string{"Authorization": "Bearer " + platformtest.CreateToken(t, srv, "acme", "ci")}
		do := func(method, path, body string, want int) []byte {
			t.Helper()
			r, err := c.Do(t, base, method, path, body, auth)
			if err != nil {
				t.Fatalf("%s %s: against api/openapi.yaml: %v", method, path, err)
			}
			if r.Status != want {
				t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
			}
			if strings.Contains(string(r.Body), registryCanary) {
				t.Fatalf("%s %s answered the password: %s", method, path, r.Body)
			}
			return r.Body
		}
		put := func(name, host string) {
			t.Helper()
			body := do("PATCH", "/v1/organizations/acme/secrets/"+name, `{"kind":"ImagePullSecret","host":"`+host+`","credentials":"robot:`+registryCanary+`"}`, 201)
			if want := `"host":"http://` + strings.ToLower(host) + `"`; !strings.Contains(string(body), want) {
				t.Errorf("%s %s: %s, want %s", name, host, body, want)
			}
		}
		put("creds", hostPort)
		put("localcreds", "LOCALHOST"+port)
		// The provisioner checks them against the registry: ready, both.
		for _, name := range []string{"creds", "localcreds"} {
			var o struct {
				Status struct{ State, Message string } `json:"status"`
			}
			for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if err := json.Unmarshal(do("GET", "/v1/organizations/acme/secrets/"+name, "", 200), &o); err != nil {
					t.Fatal(err)
				}
				if o.Status.State != resources.StatePending || time.Now().After(end) {
					break
				}
			}
			if o.Status.State != resources.StateReady {
				t.Fatalf("%s: %s %s, want ready", name, o.Status.State, o.Status.Message)
			}
		}

		preflight := func(secret, image string) map[string]resources.PreflightCheck {
			t.Helper()
			body, err := json.Marshal(resources.PreflightRequest{ImagePullSecret: secret, Image: image})
			if err != nil {
				t.Fatal(err)
			}
			var res resources.PreflightResult
			if err := json.Unmarshal(do("POST", "/v1/organizations/acme/preflight", string(body), 200), &res); err != nil {
				t.Fatal(err)
			}
			out := map[string]resources.PreflightCheck{}
			for _, ch := range res.Checks {
				if prev, dup := out[ch.ID]; dup {
					t.Errorf("%s %s: check %s twice: %+v and %+v", secret, image, ch.ID, prev, ch)
				}
				out[ch.ID] = ch
			}
			return out
		}
		got := preflight("creds", hostPort+"/bots/voice:0.1")
		if ch := got["image"]; ch.Result != resources.CheckOK || !strings.Contains(ch.Detail, "is on "+hostPort+": digest sha256:") {
			t.Errorf("the image through creds: %+v", got)
		}
		if ch := got["image-pull-secret"]; ch.Result != resources.CheckOK {
			t.Errorf("creds: %+v", ch)
		}
		got = preflight("localcreds", "localhost"+port+"/bots/voice:0.1")
		if ch := got["image"]; ch.Result != resources.CheckOK {
			t.Errorf("the image through localcreds: %+v", got)
		}
		// localhost and 127.0.0.1: another registry name, one failed check
		// that says so.
		got = preflight("creds", "localhost"+port+"/bots/voice:0.1")
		want := "creds holds credentials for " + hostPort + ", but the image is on localhost" + port + " (the same machine, but another registry name"
		if ch := got["image-pull-secret"]; ch.Result != resources.CheckFail || !strings.HasPrefix(ch.Detail, want) {
			t.Errorf("localhost image, 127.0.0.1 creds: %+v, want %q", ch, want)
		}
		// A digest is written after @.
		digest := "sha256:" + strings.Repeat("0", 64)
		got = preflight("creds", hostPort+"/bots/voice@"+digest)
		if ch := got["image"]; ch.Result != resources.CheckFail || !strings.Contains(ch.Detail, "has no bots/voice@"+digest+" (") {
			t.Errorf("an unknown digest: %+v", ch)
		}
		// Docker Hub, however named, is one registry: library/bot and a
		// pull secret for index.docker.io match (the provisioner's check of
		// Docker Hub is not this test's: only the host comparison is).
		do("PATCH", "/v1/organizations/acme/secrets/hub", `{"kind":"ImagePullSecret","host":"https://index.docker.io","credentials":"robot:x"}`, 201)
		got = preflight("hub", "library/bot:1")
		if ch := got["image-pull-secret"]; strings.Contains(ch.Detail, "holds credentials for") {
			t.Errorf("Docker Hub's names: %+v", ch)
		}
		got = preflight("hub", "127.0.0.1"+port+"/bot:1")
		if ch := got["image-pull-secret"]; ch.Result != resources.CheckFail || !strings.HasPrefix(ch.Detail, "hub holds credentials for docker.io, but the image is on 127.0.0.1"+port) {
			t.Errorf("Docker Hub creds, another registry: %+v", ch)
		}
	})
}

package platform_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// A pull secret whose check failed because of the operator's settings (a
// registry on 127.0.0.1, private registries not allowed) is checked again:
// by a write of the same credentials (pending again, no new version), and
// when the platform starts again — now with --allow-private-registries —
// where it is ready. On both stores, against a real registry.
func TestFailedPullSecretCheckedAgain(t *testing.T) {
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), "robot", registryCanary)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Stop()
	host := strings.TrimPrefix(reg.URL, "http://")
	eachStore(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		dataDir, keyFile, url := t.TempDir(), "", ""
		if db.postgres {
			url = pg.Database(t)
			keyFile = filepath.Join(t.TempDir(), platform.MasterKeyFile)
			writeKey(t, keyFile, "5e")
		}
		tok := ""
		open := func(allow bool) (*client.Client, *platform.Server) {
			t.Helper()
			opts := platform.Options{AllowPrivateRegistries: allow, RecheckFailedPullSecrets: true, PollInterval: 50 * time.Millisecond,
				RegistryAttempts: 1, ProvisionLease: time.Second}
			if db.postgres {
				st, err := stores.Open(ctx, stores.Location{URL: url}, stores.Options{})
				if err != nil {
					t.Fatal(err)
				}
				opts.Store, opts.MasterKeyFile = st, keyFile
			} else {
				opts.DataDir = dataDir
			}
			base, srv := platformtest.Start(t, opts)
			if tok == "" {
				platformtest.CreateOrg(t, srv, "acme", "")
				tok = platformtest.CreateToken(t, srv, "acme", "ci")
			}
			c, err := client.New(client.Options{BaseURL: base, Token: tok})
			if err != nil {
				t.Fatal(err)
			}
			return c, srv
		}
		state := func(c *client.Client) (resources.Status, string) {
			t.Helper()
			o, err := c.Get(ctx, "acme", "reg")
			if err != nil {
				t.Fatal(err)
			}
			var st resources.Status
			if s := o.Status(); s != nil {
				st = *s
			}
			return st, o.Meta().ResourceVersion
		}
		creds := "robot:" + registryCanary
		patch := resources.Patch{Kind: resources.KindImagePullSecret, Host: host, Credentials: &creds}

		c, srv := open(false)
		if _, _, err := c.Merge(ctx, "acme", "reg", patch, ""); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, "the check refused by the settings", func() bool { st, _ := state(c); return st.State == resources.StateFailed })
		_, rv := state(c)
		// The same credentials again: checked again (pending), no new
		// version.
		o, _, err := c.Merge(ctx, "acme", "reg", patch, "")
		if err != nil {
			t.Fatal(err)
		}
		if st := o.Status(); st == nil || st.State != resources.StatePending {
			t.Errorf("the same credentials written to a failed pull secret: %+v, want pending", st)
		}
		if o.Meta().ResourceVersion != rv {
			t.Errorf("the same credentials made a new version: %s, was %s", o.Meta().ResourceVersion, rv)
		}
		testenv.Eventually(t, "failed again", func() bool { st, _ := state(c); return st.State == resources.StateFailed })
		srv.Close()

		// The platform starts again, allowing private registries: the
		// pull secret is checked again, and ready.
		c, _ = open(true)
		testenv.Eventually(t, "ready once the platform starts with private registries allowed", func() bool {
			st, _ := state(c)
			return st.State == resources.StateReady
		})
	})
}

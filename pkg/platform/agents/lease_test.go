package agents

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/pgtest"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/postgres"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
)

var pg = pgtest.NewShared()

func TestMain(m *testing.M) {
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

// Two replicas over one store: one drives a region, the other does not,
// until the first gives the region up. (The runtime is never called: the
// lease comes first.)
func TestOneReplicaReconcilesARegion(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var st store.Store
			var err error
			if name == "sqlite" {
				st, err = sqlite.OpenDir(ctx, t.TempDir(), sqlite.Options{})
			} else {
				st, err = postgres.Open(ctx, pg.Database(t), postgres.Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			rts := map[string]runtime.Runtime{"us-west": noRuntime{}, "eu-central": noRuntime{}}
			a := New(Options{Store: st, Runtimes: rts, Holder: "a", LeaseTTL: 3 * time.Second})
			b := New(Options{Store: st, Runtimes: rts, Holder: "b", LeaseTTL: 3 * time.Second})
			released := map[string]func(){}
			holds := func(r *Reconciler, region string) bool {
				t.Helper()
				release, renew, ok := r.hold(ctx, region)
				if ok {
					released[r.opts.Holder+region] = release
					if !renew(ctx) {
						t.Fatal("a holder's renewal failed")
					}
				}
				return ok
			}
			if !holds(a, "us-west") {
				t.Fatal("the first replica did not get the region")
			}
			if holds(b, "us-west") {
				t.Fatal("both replicas reconcile us-west")
			}
			if !holds(b, "eu-central") || holds(a, "eu-central") {
				t.Fatal("eu-central: want the second replica's only")
			}
			if !holds(a, "us-west") {
				t.Fatal("the first replica lost us-west while it renews it")
			}
			released["aus-west"]()
			if !holds(b, "us-west") {
				t.Fatal("the second replica did not take us-west over once the first gave it up")
			}
		})
	}
}

// noRuntime is a runtime the lease test never calls.
type noRuntime struct{ runtime.Runtime }

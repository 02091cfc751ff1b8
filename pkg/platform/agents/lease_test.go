package agents

import (
	"context"
	"os"
	"testing"

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

// Two replicas over one store: one reconciles a region, the other only
// reads, until the first gives the region up (Close); a closed reconciler
// reconciles nothing. (The runtime is never called: the lease comes
// first.)
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
			a := New(Options{Store: st, Runtimes: rts, Holder: "a"})
			b := New(Options{Store: st, Runtimes: rts, Holder: "b"})
			holds := func(r *Reconciler, region string) bool {
				t.Helper()
				unlock, ok, err := r.lock(ctx, region)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					unlock()
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
			a.Close()
			if holds(a, "us-west") {
				t.Fatal("a closed replica still reconciles")
			}
			if !holds(b, "us-west") {
				t.Fatal("the second replica did not take us-west over once the first gave it up")
			}
		})
	}
}

// noRuntime is a runtime the lease test never calls.
type noRuntime struct{ runtime.Runtime }

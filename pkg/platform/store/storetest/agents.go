package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// The agents' contract (store.AgentTx, store.AgentStore): agents and their
// deployments, and the leases under which replicas reconcile a region.

// newAgent returns an agent of org to insert, with a new version.
func newAgent(ctx context.Context, tx store.Tx, orgID int64, name, region string) (store.Agent, error) {
	v, err := tx.NextVersion(ctx)
	now := time.Now().UTC()
	return store.Agent{OrgID: orgID, Name: name, Region: region, Labels: map[string]string{"team": "voice"},
		Spec: []byte(`{"image":"registry.example.com/acme/` + name + `:0.1"}`), Version: v, Generation: 1,
		CreatedAt: now, UpdatedAt: now}, err
}

// putAgent creates agent name of org in region and returns it as stored.
func putAgent(t *testing.T, s store.Store, orgID int64, name, region string) store.Agent {
	t.Helper()
	var a store.Agent
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		var err error
		if a, err = newAgent(ctx, tx, orgID, name, region); err != nil {
			return err
		}
		a.ID, err = tx.PutAgent(ctx, a)
		return err
	})
	got, err := s.Agent(context.Background(), orgID, name)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// deployment returns deployment n of agent id.
func deployment(id, n int64) store.Deployment {
	return store.Deployment{AgentID: id, Number: n, At: time.Unix(1700000000+n, n).UTC(), Actor: "alice", Source: "deploy",
		Image: "registry.example.com/acme/bot:0.1", ImageDigest: fmt.Sprintf("registry.example.com/acme/bot@sha256:%064d", n),
		ImagePullSecret: "ghcr-creds", SecretSetName: "bot-secrets", SecretSetVersion: 7 + n,
		SecretSetCreated: 1690000000123456789 + n, Profile: "agent-1x", Result: "rolling-out"}
}

func sameAgent(t *testing.T, what string, got, want store.Agent) {
	t.Helper()
	if got.ID != want.ID || got.OrgID != want.OrgID || got.Name != want.Name || got.Region != want.Region ||
		!maps.Equal(got.Labels, want.Labels) || string(got.Spec) != string(want.Spec) || got.Version != want.Version ||
		got.Generation != want.Generation || got.Serving != want.Serving || got.Latest != want.Latest ||
		got.Managed != want.Managed || got.ApplySet != want.ApplySet ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

func sameDeployment(t *testing.T, what string, got, want store.Deployment) {
	t.Helper()
	finished := func(d store.Deployment) string {
		if d.FinishedAt == nil {
			return "never"
		}
		return d.FinishedAt.UTC().Format(time.RFC3339Nano)
	}
	g, w := got, want
	g.FinishedAt, w.FinishedAt = nil, nil
	if !g.At.Equal(w.At) || finished(got) != finished(want) {
		t.Errorf("%s: at %s finished %s, want at %s finished %s", what, got.At, finished(got), want.At, finished(want))
	}
	g.At, w.At = time.Time{}, time.Time{}
	if g != w {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

func numbers(ds []store.Deployment) []int64 {
	out := []int64{}
	for _, d := range ds {
		out = append(out, d.Number)
	}
	return out
}

func agentNames(as []store.Agent) []string {
	out := []string{}
	for _, a := range as {
		out = append(out, a.OrgName+"/"+a.Name)
	}
	return out
}

// An agent is written, read (by this store and another on the same
// database), updated and deleted with its deployments; names are unique per
// organization, in a namespace of their own.
func testAgents(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o, p := newOrg(t, s1, "o"), newOrg(t, s1, "p")
	if _, err := s1.Agent(ctx, o.ID, "bot"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing agent: %v, want ErrNotFound", err)
	}
	if err := merge(s1, o.ID, "bot", map[string]int{"K": 1}, nil); err != nil { // a SecretSet named as the agent
		t.Fatal(err)
	}
	var want store.Agent
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.Agent(ctx, o.ID, "bot"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("missing agent in a transaction: %v, want ErrNotFound", err)
		}
		var err error
		if want, err = newAgent(ctx, tx, o.ID, "bot", "us-west"); err != nil {
			return err
		}
		if want.ID, err = tx.PutAgent(ctx, want); err != nil {
			return err
		}
		// The transaction reads its own write.
		got, err := tx.Agent(ctx, o.ID, "bot")
		if err != nil {
			return err
		}
		want.OrgName = "o"
		sameAgent(t, "agent read in its transaction", got, want)
		return nil
	})
	if want.ID == 0 {
		t.Fatal("PutAgent returned no ID")
	}
	for i, s := range []store.Store{s1, s2} {
		got, err := s.Agent(ctx, o.ID, "bot")
		if err != nil {
			t.Fatal(err)
		}
		sameAgent(t, fmt.Sprintf("agent read by store %d", i+1), got, want)
	}
	// One name per organization; another organization has its own.
	err := s2.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		a, err := newAgent(ctx, tx, o.ID, "bot", "us-east")
		if err != nil {
			return err
		}
		_, err = tx.PutAgent(ctx, a)
		return err
	})
	if !errors.Is(err, store.ErrExists) {
		t.Errorf("second agent bot in o: %v, want ErrExists", err)
	}
	other := putAgent(t, s2, p.ID, "bot", "us-east")
	if other.ID == want.ID || other.OrgName != "p" || other.Region != "us-east" {
		t.Errorf("agent bot of p: %+v", other)
	}

	// Deployments: numbered per agent, newest first, paged.
	update(t, s2, func(ctx context.Context, tx store.Tx) error {
		for n := int64(1); n <= 5; n++ {
			if err := tx.PutDeployment(ctx, deployment(want.ID, n)); err != nil {
				return err
			}
		}
		got, err := tx.Deployment(ctx, want.ID, 5)
		if err != nil {
			return err
		}
		sameDeployment(t, "deployment read in its transaction", got, deployment(want.ID, 5))
		return tx.PutDeployment(ctx, deployment(other.ID, 1))
	})
	err = s1.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.PutDeployment(ctx, deployment(want.ID, 3)) })
	if !errors.Is(err, store.ErrExists) {
		t.Errorf("deployment 3 again: %v, want ErrExists", err)
	}
	got, err := s1.Deployment(ctx, want.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	sameDeployment(t, "deployment 3", got, deployment(want.ID, 3))
	if _, err := s2.Deployment(ctx, want.ID, 6); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deployment 6: %v, want ErrNotFound", err)
	}
	for _, c := range []struct {
		before int64
		limit  int
		want   []int64
	}{{0, 2, []int64{5, 4}}, {4, 10, []int64{3, 2, 1}}, {0, 10, []int64{5, 4, 3, 2, 1}}, {1, 10, []int64{}}} {
		ds, err := s2.Deployments(ctx, want.ID, c.before, c.limit)
		if err != nil || !slices.Equal(numbers(ds), c.want) {
			t.Errorf("deployments before %d, limit %d: %v (%v), want %v", c.before, c.limit, numbers(ds), err, c.want)
		}
	}
	if ds, _ := s1.Deployments(ctx, other.ID, 0, 10); !slices.Equal(numbers(ds), []int64{1}) {
		t.Errorf("deployments of p/bot: %v", numbers(ds))
	}

	// A deployment finishes once: result, message and time.
	at := time.Unix(1800000000, 123456789).UTC()
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		return tx.FinishDeployment(ctx, want.ID, 5, "failed", "exited 1", at)
	})
	d5 := deployment(want.ID, 5)
	d5.Result, d5.Message, d5.FinishedAt = "failed", "exited 1", &at
	got, err = s2.Deployment(ctx, want.ID, 5)
	if err != nil {
		t.Fatal(err)
	}
	sameDeployment(t, "finished deployment 5", got, d5)
	err = s1.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		return tx.FinishDeployment(ctx, want.ID, 9, "serving", "", at)
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("finish of deployment 9: %v, want ErrNotFound", err)
	}

	// An update of the row; a failed transaction leaves nothing of its
	// deployment and its agent write.
	update(t, s2, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Agent(ctx, o.ID, "bot")
		if err != nil {
			return err
		}
		if cur.Version, err = tx.NextVersion(ctx); err != nil {
			return err
		}
		if cur.Version <= want.Version {
			t.Errorf("version %d after %d", cur.Version, want.Version)
		}
		cur.Spec = []byte(`{"image":"registry.example.com/acme/bot:0.2","scaling":{"minAgents":2}}`)
		cur.Labels = map[string]string{"team": "voice", "tier": "gold"}
		cur.Generation, cur.Serving, cur.Latest = 2, 4, 5
		cur.Managed, cur.ApplySet = true, "prod"
		cur.UpdatedAt = time.Unix(1800000001, 1).UTC()
		if _, err := tx.PutAgent(ctx, cur); err != nil {
			return err
		}
		want = cur
		return nil
	})
	boom := errors.New("boom")
	err = s1.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Agent(ctx, o.ID, "bot")
		if err != nil {
			return err
		}
		if err := tx.PutDeployment(ctx, deployment(cur.ID, 6)); err != nil {
			return err
		}
		cur.Latest = 6
		if _, err := tx.PutAgent(ctx, cur); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failing update: %v", err)
	}
	for i, s := range []store.Store{s1, s2} {
		got, err := s.Agent(ctx, o.ID, "bot")
		if err != nil {
			t.Fatal(err)
		}
		sameAgent(t, fmt.Sprintf("updated agent read by store %d", i+1), got, want)
		if _, err := s.Deployment(ctx, want.ID, 6); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deployment 6 of a failed transaction: %v", err)
		}
	}

	// Delete: the agent and its deployments, nothing of p's agent.
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		if err := tx.DeleteAgent(ctx, want.ID); err != nil {
			return err
		}
		if _, err := tx.Agent(ctx, o.ID, "bot"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleted agent read in its transaction: %v", err)
		}
		if _, err := tx.Deployment(ctx, want.ID, 1); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deployment of a deleted agent read in its transaction: %v", err)
		}
		return nil
	})
	if err := s2.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.DeleteAgent(ctx, want.ID) }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
	if _, err := s2.Agent(ctx, o.ID, "bot"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted agent: %v", err)
	}
	if ds, err := s2.Deployments(ctx, want.ID, 0, 10); err != nil || len(ds) != 0 {
		t.Errorf("deployments of a deleted agent: %v %v", numbers(ds), err)
	}
	if _, err := s1.Deployment(ctx, want.ID, 3); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deployment 3 of a deleted agent: %v", err)
	}
	again := putAgent(t, s1, o.ID, "bot", "us-west")
	if ds, err := s1.Deployments(ctx, again.ID, 0, 10); err != nil || len(ds) != 0 {
		t.Errorf("a new agent of the deleted one's name has deployments: %v %v", numbers(ds), err)
	}
	if ds, _ := s2.Deployments(ctx, other.ID, 0, 10); !slices.Equal(numbers(ds), []int64{1}) {
		t.Errorf("deployments of p/bot after o/bot's delete: %v", numbers(ds))
	}
	if obj, err := s2.Object(ctx, o.ID, "bot"); err != nil || obj.Keys["K"] != 1 {
		t.Errorf("the secret set named as the agent: %+v %v", obj, err)
	}
}

// Agents lists an organization's agents by name, of one region or all;
// RegionAgents every organization's agents of a region, with their
// organization's name.
func testRegionAgents(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	b, a := newOrg(t, s, "b"), newOrg(t, s, "a")
	putAgent(t, s, b.ID, "zed", "us-west")
	putAgent(t, s, b.ID, "amy", "us-west")
	putAgent(t, s, b.ID, "east", "us-east")
	putAgent(t, s, a.ID, "solo", "us-west")
	for _, c := range []struct {
		org    int64
		region string
		want   []string
	}{{b.ID, "", []string{"b/amy", "b/east", "b/zed"}}, {b.ID, "us-west", []string{"b/amy", "b/zed"}}, {a.ID, "us-east", []string{}}} {
		got, err := s.Agents(ctx, c.org, c.region)
		if err != nil || !slices.Equal(agentNames(got), c.want) {
			t.Errorf("Agents(%d, %q): %v (%v), want %v", c.org, c.region, agentNames(got), err, c.want)
		}
	}
	for region, want := range map[string][]string{"us-west": {"a/solo", "b/amy", "b/zed"}, "us-east": {"b/east"}, "eu-central": {}} {
		got, err := s.RegionAgents(ctx, region)
		if err != nil || !slices.Equal(agentNames(got), want) {
			t.Errorf("RegionAgents(%s): %v (%v), want %v", region, agentNames(got), err, want)
		}
		for _, ag := range got {
			if ag.Region != region || len(ag.Spec) == 0 || ag.Labels["team"] != "voice" {
				t.Errorf("RegionAgents(%s): %+v", region, ag)
			}
		}
	}
}

// AppliedAgents returns the managed agents of exactly one apply set, as the
// transaction sees them.
func testAppliedAgents(t *testing.T, open Opener) {
	s := open(t)
	o, p := newOrg(t, s, "o"), newOrg(t, s, "p")
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		for _, c := range []struct {
			org      int64
			name     string
			managed  bool
			applySet string
		}{{o.ID, "b-prod", true, "prod"}, {o.ID, "a-prod", true, "prod"}, {o.ID, "imperative", false, ""}, {o.ID, "was-prod", false, "prod"},
			{o.ID, "no-set", true, ""}, {o.ID, "dev", true, "dev"}, {p.ID, "other-org", true, "prod"}} {
			a, err := newAgent(ctx, tx, c.org, c.name, "us-west")
			if err != nil {
				return err
			}
			a.Managed, a.ApplySet = c.managed, c.applySet
			if _, err := tx.PutAgent(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})
	names := func(as []store.Agent) []string {
		out := []string{}
		for _, a := range as {
			out = append(out, a.Name)
		}
		return out
	}
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		for set, want := range map[string][]string{"prod": {"a-prod", "b-prod"}, "": {"no-set"}, "dev": {"dev"}, "none": {}} {
			got, err := tx.AppliedAgents(ctx, o.ID, set)
			if err != nil {
				return err
			}
			if !slices.Equal(names(got), want) {
				t.Errorf("AppliedAgents(o, %q): %v, want %v", set, names(got), want)
			}
		}
		// Pruning in the transaction is seen by the next call.
		got, err := tx.AppliedAgents(ctx, o.ID, "prod")
		if err != nil || len(got) == 0 {
			return fmt.Errorf("AppliedAgents: %v %v", names(got), err)
		}
		if err := tx.DeleteAgent(ctx, got[0].ID); err != nil {
			return err
		}
		got, err = tx.AppliedAgents(ctx, o.ID, "prod")
		if err != nil {
			return err
		}
		if !slices.Equal(names(got), []string{"b-prod"}) {
			t.Errorf("AppliedAgents after deleting a-prod: %v", names(got))
		}
		return nil
	})
}

// Concurrent deploys of one agent, from two stores (replicas or
// processes), each numbering its deployment after the agent's latest in a
// read-modify-write, lose none; concurrent creators of one agent all find
// or make the same one.
func testConcurrentDeploys(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	const n = 24
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = []store.Store{s1, s2}[i%2].Update(ctx, func(ctx context.Context, tx store.Tx) error {
				a, err := tx.Agent(ctx, o.ID, "bot")
				if errors.Is(err, store.ErrNotFound) {
					a, err = newAgent(ctx, tx, o.ID, "bot", "us-west")
				}
				if err != nil {
					return err
				}
				if a.ID == 0 {
					if a.ID, err = tx.PutAgent(ctx, a); err != nil {
						return err
					}
				}
				a.Latest++
				d := deployment(a.ID, a.Latest)
				d.Actor = fmt.Sprint("deployer-", i)
				if err := tx.PutDeployment(ctx, d); err != nil {
					return err
				}
				if a.Version, err = tx.NextVersion(ctx); err != nil {
					return err
				}
				_, err = tx.PutAgent(ctx, a)
				return err
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("deploy %d: %v", i, err)
		}
	}
	a, err := s2.Agent(ctx, o.ID, "bot")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := s1.Deployments(ctx, a.ID, 0, 2*n)
	if err != nil {
		t.Fatal(err)
	}
	actors := map[string]bool{}
	for _, d := range ds {
		actors[d.Actor] = true
	}
	if a.Latest != n || len(ds) != n || ds[0].Number != n || len(actors) != n {
		t.Errorf("after %d deploys: latest %d, %d deployments (newest %v), %d deployers", n, a.Latest, len(ds), numbers(ds[:min(1, len(ds))]), len(actors))
	}
}

// Updates that declare their objects (store.WithObjects), grouped into
// shared transactions by a store that does (store/postgres), write agents
// and deployments with their objects: each commits or fails alone, an
// agent that exists (ErrExists) included.
func testAgentsInGroupedUpdates(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	taken := putAgent(t, s1, o.ID, "taken", "us-west")
	const n = 64
	var wg sync.WaitGroup
	errs := make([]error, n)
	name := func(i int) string {
		if i%3 == 0 {
			return "taken"
		}
		return fmt.Sprint("bot-", i)
	}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			set := fmt.Sprint("set-", i%4)
			wctx := store.WithObjects(ctx, store.ObjectKey{OrgID: o.ID, Name: set})
			errs[i] = []store.Store{s1, s2}[i%2].Update(wctx, func(ctx context.Context, tx store.Tx) error {
				if _, err := mergeTx(ctx, tx, o.ID, set, map[string]int{fmt.Sprintf("K%02d", i): i + 1}); err != nil {
					return err
				}
				a, err := newAgent(ctx, tx, o.ID, name(i), "us-west")
				if err != nil {
					return err
				}
				a.Latest = 1
				if a.ID, err = tx.PutAgent(ctx, a); err != nil {
					return err
				}
				return tx.PutDeployment(ctx, deployment(a.ID, 1))
			})
		}()
	}
	wg.Wait()
	keys := map[string]map[string]int{}
	for i, err := range errs {
		if name(i) == "taken" {
			if !errors.Is(err, store.ErrExists) {
				t.Errorf("update %d: %v, want ErrExists", i, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("update %d: %v", i, err)
			continue
		}
		set := fmt.Sprint("set-", i%4)
		if keys[set] == nil {
			keys[set] = map[string]int{}
		}
		keys[set][fmt.Sprintf("K%02d", i)] = i + 1
		a, err := s2.Agent(ctx, o.ID, name(i))
		if err != nil || a.Latest != 1 {
			t.Errorf("agent %s: %+v %v", name(i), a, err)
			continue
		}
		if d, err := s1.Deployment(ctx, a.ID, 1); err != nil || d.AgentID != a.ID {
			t.Errorf("deployment 1 of %s: %+v %v", name(i), d, err)
		}
	}
	for set, want := range keys {
		obj, err := s1.Object(ctx, o.ID, set)
		if err != nil || !maps.Equal(obj.Keys, want) {
			t.Errorf("%s: %v (%v), want %v (the keys of the updates that failed on an existing agent must not be there)", set, obj.Keys, err, want)
		}
	}
	if ds, err := s2.Deployments(ctx, taken.ID, 0, 10); err != nil || len(ds) != 0 {
		t.Errorf("deployments of the existing agent: %v %v", numbers(ds), err)
	}
}

// A lease has one holder at a time among the replicas sharing the
// database: the holder renews it, another takes it once it expired or was
// released.
func testLeases(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	acquire := func(s store.Store, name, holder string, ttl time.Duration) bool {
		t.Helper()
		ok, err := s.AcquireLease(ctx, name, holder, ttl)
		if err != nil {
			t.Fatalf("%s acquires %s: %v", holder, name, err)
		}
		return ok
	}
	// Holders racing for fresh leases: exactly one wins each.
	for round := range 8 {
		name := fmt.Sprint("reconcile/region-", round)
		var wg sync.WaitGroup
		won := make([]bool, 4)
		errs := make([]error, 4)
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				won[i], errs[i] = []store.Store{s1, s2}[i%2].AcquireLease(ctx, name, fmt.Sprint("h", i), time.Hour)
			}()
		}
		wg.Wait()
		winners := []int{}
		for i := range 4 {
			if errs[i] != nil {
				t.Fatalf("round %d, holder %d: %v", round, i, errs[i])
			}
			if won[i] {
				winners = append(winners, i)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: holders %v got %s, want exactly one", round, winners, name)
		}
		winner := fmt.Sprint("h", winners[0])
		// The winner renews; the others still cannot take it.
		if !acquire(s2, name, winner, time.Hour) || !acquire(s1, name, winner, time.Hour) {
			t.Errorf("round %d: %s could not renew its lease", round, winner)
		}
		for i := range 4 {
			if h := fmt.Sprint("h", i); h != winner && acquire([]store.Store{s1, s2}[i%2], name, h, time.Hour) {
				t.Errorf("round %d: %s took %s's running lease", round, h, winner)
			}
		}
	}

	// Leases are independent of each other.
	if !acquire(s1, "reconcile/us-west", "a", time.Hour) || !acquire(s2, "reconcile/us-east", "b", time.Hour) {
		t.Fatal("two holders could not take two leases")
	}
	// Releasing another's lease does nothing; the holder's release frees it.
	if err := s2.ReleaseLease(ctx, "reconcile/us-west", "b"); err != nil {
		t.Fatal(err)
	}
	if acquire(s2, "reconcile/us-west", "b", time.Hour) {
		t.Error("a release by a holder without the lease freed it")
	}
	if err := s1.ReleaseLease(ctx, "reconcile/us-west", "a"); err != nil {
		t.Fatal(err)
	}
	if !acquire(s2, "reconcile/us-west", "b", time.Hour) {
		t.Error("a released lease could not be taken")
	}
	if acquire(s1, "reconcile/us-west", "a", time.Hour) {
		t.Error("the former holder took back a lease another holds")
	}
	if err := s1.ReleaseLease(ctx, "never-taken", "a"); err != nil {
		t.Errorf("release of a lease never taken: %v", err)
	}

	// Expiry: a lease taken for a short time is taken over once it ran
	// out; the former holder then cannot renew it.
	if !acquire(s1, "short", "a", 30*time.Millisecond) {
		t.Fatal("could not take lease short")
	}
	testenv.Eventually(t, "b takes the expired lease of a", func() bool { return acquire(s2, "short", "b", time.Hour) })
	if acquire(s1, "short", "a", time.Hour) {
		t.Error("the holder of an expired lease renewed it over the new holder")
	}
	// A renewal runs ttl from now: renewing for a short time lets the
	// lease expire sooner; renewing for long keeps it.
	if !acquire(s1, "renewed", "a", time.Hour) || !acquire(s1, "renewed", "a", 30*time.Millisecond) {
		t.Fatal("could not take and renew lease renewed")
	}
	testenv.Eventually(t, "b takes the lease a renewed for a short time", func() bool { return acquire(s2, "renewed", "b", 30*time.Millisecond) })
	if !acquire(s2, "renewed", "b", time.Hour) {
		t.Fatal("b could not renew its lease")
	}
	if acquire(s1, "renewed", "a", time.Hour) {
		t.Error("a took the lease b renewed for an hour")
	}
}

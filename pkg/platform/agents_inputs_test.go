package platform_test

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// A deployment runs exactly the values it pinned, or nothing: on a real
// engine with a real registry, on both stores. Deleting the secret set or
// the pull secret a serving deployment pins is refused (409, naming the
// agent); a set deleted anyway (by a platform of before) and created again
// under its name — its version 1 again, other values — is not the set the
// deployment pinned: status says so, logs, scale up, restart and a
// rollback to it answer 422 saying what to do, an agent that went is not
// started again with the new values, and the controller says it once. A
// version purged by the history limit, a pull secret deleted: the same.
// And what the registry no longer grants (grantScenario) runs nowhere new;
// a container escaping the lockdown is no agent (outsiderScenario); the
// operator's agents' user (userScenario).
func TestAgentsRunWhatTheyPinned(t *testing.T) {
	env := newEngineEnv(t)
	contract := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		pinnedScenario(t, env, contract, db)
		grantScenario(t, env, contract, db)
		if !db.postgres { // no store in them
			outsiderScenario(t, env, contract, db)
			userScenario(t, env, contract, db)
		}
	})
}

// deleteBehind deletes object name of p's organization in the store, with
// the platform closed (what a platform that did not refuse it did), then
// opens the platform again.
func (p *agentPlatform) deleteBehind(name string) {
	t := p.t
	ctx := context.Background()
	p.srv.Close()
	loc := stores.Location{DataDir: p.dataDir}
	if p.db.postgres {
		loc = stores.Location{URL: p.pgURL}
	}
	st, err := stores.Open(ctx, loc, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	org, err := st.Org(ctx, p.org)
	if err != nil {
		t.Fatal(err)
	}
	o, err := st.Object(ctx, org.ID, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.DeleteObject(ctx, o.ID) }); err != nil {
		t.Fatal(err)
	}
	st.Close()
	p.open()
}

// botAgent writes agent bot (the test image, pull secret reg with the
// registry's credentials, one agent, secretSet if not "") and deploys it.
func (p *agentPlatform) botAgent(secretSet string) resources.Deployment {
	p.t.Helper()
	p.setCredentials(agentsRegPass)
	spec := resources.AgentSpec{Image: p.env.image.Ref, ImagePullSecret: "reg", SecretSet: secretSet, Scaling: &resources.AgentScaling{MinAgents: 1}}
	if _, _, err := p.c.PutAgent(context.Background(), p.org, resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"}, Spec: spec}, ""); err != nil {
		p.t.Fatal(err)
	}
	d := p.deploy("bot")
	if d.Result != resources.DeploymentServing {
		p.t.Fatalf("deployment %d: %+v", d.Number, d)
	}
	return d
}

func wantUnprocessable(t *testing.T, what string, err error, words string) {
	t.Helper()
	if codeOf(err) != resources.CodeUnprocessable || !strings.Contains(err.Error(), words) {
		t.Errorf("%s: %v, want a 422 saying %q", what, err, words)
	}
}

func pinnedScenario(t *testing.T, env *engineEnv, contract *apitest.Contract, db testDB) {
	ctx := context.Background()
	p := openPinPlatform(t, env, contract, db, "pin")
	p.setSecret(resources.Patch{Set: map[string]string{"API_KEY": agentsCanary, "BOTKIT_TEST_PRINT": "API_KEY"}})
	p.botAgent("bot-secrets")
	c1 := p.only("bot", 1)

	// What a serving deployment pins is not deleted.
	for _, name := range []string{"bot-secrets", "reg"} {
		if _, err := p.c.Delete(ctx, p.org, name); codeOf(err) != resources.CodeConflict || !strings.Contains(err.Error(), "agent bot") ||
			!strings.Contains(err.Error(), "botkit cloud agents delete bot") {
			t.Errorf("deleting %s, pinned by the serving deployment: %v, want a 409 naming the agent and what to do", name, err)
		}
	}
	if _, err := p.c.DeleteObjects(ctx, p.org, resources.DeleteRequest{Objects: []resources.ObjectRef{{Kind: resources.KindSecretSet, Name: "bot-secrets"}}}); codeOf(err) != resources.CodeConflict {
		t.Errorf("deleting the pinned set by manifest: %v, want a 409", err)
	}

	// Deleted anyway, and created again with other values: version 1
	// again, another set.
	p.deleteBehind("bot-secrets")
	const newValue = "new-value-of-the-set-4d1e"
	p.setSecret(resources.Patch{Set: map[string]string{"API_KEY": newValue, "BOTKIT_TEST_PRINT": "API_KEY"}})
	st := p.status("bot").Agent.Status
	if !strings.Contains(st.Drift, "deleted and created again") || !strings.Contains(st.Message, "no agent of it can be started again") {
		t.Errorf("status with the set created again: drift %q, message %q", st.Drift, st.Message)
	}
	err := p.c.AgentLogs(ctx, p.org, "bot", client.LogOptions{}, func(l resources.AgentLogLine) error {
		t.Errorf("a log line of values that cannot be masked: %q", l.Text)
		return nil
	})
	wantUnprocessable(t, "logs", err, "deleted and created again")
	_, err = p.c.PatchAgent(ctx, p.org, "bot", resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 2}})
	wantUnprocessable(t, "scale up", err, "deleted and created again")
	_, err = p.c.RestartAgent(ctx, p.org, "bot")
	wantUnprocessable(t, "restart", err, "deleted and created again")
	_, err = p.c.RollbackAgent(ctx, p.org, "bot", resources.RollbackRequest{To: 1})
	wantUnprocessable(t, "rollback to 1", err, "deleted and created again")
	if _, err := p.c.Deployments(ctx, p.org, "bot"); err != nil {
		t.Errorf("deployments: %v", err)
	}

	// The agent goes: none is started with values it did not pin, and the
	// controller says why once.
	if err := env.rt.Remove(ctx, c1.ID, time.Second); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // several resyncs
	if got := p.containers("bot"); len(got) != 0 {
		t.Errorf("an agent started with values its deployment did not pin: %v", describeContainers(got))
	}
	if n := strings.Count(p.log.String(), "was deleted and created again"); n != 1 {
		t.Errorf("the server log says the problem %d times, want once:\n%s", n, p.log)
	}
	if st := p.status("bot").Agent.Status; st.State != resources.AgentDegraded || !strings.Contains(st.Message, "deleted and created again") {
		t.Errorf("status with its agent gone: %+v", st)
	}

	// Deploy again: the set as it is now.
	d2 := p.deploy("bot")
	if d2.Result != resources.DeploymentServing {
		t.Fatalf("deployment 2: %+v", d2)
	}
	p.only("bot", 2)
	found := false
	testenv.Eventually(t, "deployment 2's masked line", func() bool {
		err := p.c.AgentLogs(ctx, p.org, "bot", client.LogOptions{}, func(l resources.AgentLogLine) error {
			if strings.Contains(l.Text, newValue) {
				t.Errorf("an unmasked value: %q", l.Text)
			}
			found = found || l.Text == "value of ****: ****"
			return nil
		})
		return err == nil && found
	})
	if st := p.status("bot").Agent.Status; st.State != resources.AgentReady || st.Message != "" || st.Drift != "" {
		t.Errorf("status after deploying again: %+v", st)
	}

	// The version it runs purged by the history limit.
	if err := p.srv.Admin().SetHistoryLimit(ctx, p.org, 1); err != nil {
		t.Fatal(err)
	}
	p.setSecret(resources.Patch{Set: map[string]string{"MORE": "more-1"}})
	p.setSecret(resources.Patch{Set: map[string]string{"MORE": "more-2"}})
	if st := p.status("bot").Agent.Status; !strings.Contains(st.Message, "is no longer kept") {
		t.Errorf("status with its version purged: %+v", st)
	}
	err = p.c.AgentLogs(ctx, p.org, "bot", client.LogOptions{}, func(resources.AgentLogLine) error { return nil })
	wantUnprocessable(t, "logs of a purged version", err, "is no longer kept")
	_, err = p.c.PatchAgent(ctx, p.org, "bot", resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 2}})
	wantUnprocessable(t, "scale up of a purged version", err, "is no longer kept")

	// Its pull secret deleted anyway.
	d3 := p.deploy("bot")
	if d3.Result != resources.DeploymentServing {
		t.Fatalf("deployment 3: %+v", d3)
	}
	p.deleteBehind("reg")
	_, err = p.c.RestartAgent(ctx, p.org, "bot")
	wantUnprocessable(t, "restart without the pull secret", err, "image pull secret reg was deleted")
	if st := p.status("bot").Agent.Status; !strings.Contains(st.Message, "image pull secret reg was deleted") {
		t.Errorf("status without the pull secret: %+v", st)
	}

	if _, err := p.c.DeleteAgent(ctx, p.org, "bot"); err != nil {
		t.Fatal(err)
	}
	p.none("bot", "after delete")
	p.srv.Close()
	if strings.Contains(p.log.String(), agentsCanary) || strings.Contains(p.log.String(), newValue) {
		t.Errorf("the server log holds a value")
	}
}

// openPinPlatform opens a platform of org on db for the engine tests of
// this file.
func openPinPlatform(t *testing.T, env *engineEnv, contract *apitest.Contract, db testDB, org string) *agentPlatform {
	p := &agentPlatform{t: t, env: env, db: db, org: org + "-" + db.name, log: &syncBuffer{}, contract: contract, dataDir: t.TempDir()}
	if db.postgres {
		p.pgURL = pg.Database(t)
		p.keyFile = filepath.Join(t.TempDir(), platform.MasterKeyFile)
		writeKey(t, p.keyFile, "6b")
	}
	p.open()
	return p
}

// Credentials the registry no longer takes start nothing new, though the
// engine holds the image: a rollback and a restart fail with the
// registry's reason, a scale-up is refused, an agent that went is not
// replaced (status says why) until the credentials are right again.
func grantScenario(t *testing.T, env *engineEnv, contract *apitest.Contract, db testDB) {
	ctx := context.Background()
	p := openPinPlatform(t, env, contract, db, "grant")
	p.botAgent("")
	if d := p.deploy("bot"); d.Number != 2 || d.Result != resources.DeploymentServing {
		t.Fatalf("deployment 2: %+v", d)
	}
	c2 := p.only("bot", 2)

	p.setCredentials("revoked-password")
	rb, err := p.c.RollbackAgent(ctx, p.org, "bot", resources.RollbackRequest{})
	if err != nil || rb.Result != resources.DeploymentFailed || !strings.Contains(rb.Message, "Unauthorized") {
		t.Errorf("rollback with refused credentials: %+v %v, want a failed deployment saying Unauthorized", rb, err)
	}
	if _, err := p.c.RestartAgent(ctx, p.org, "bot"); err != nil {
		t.Fatal(err)
	}
	if st := p.status("bot"); st.Deployment == nil || st.Deployment.Result != resources.DeploymentFailed || !strings.Contains(st.Deployment.Message, "Unauthorized") {
		t.Errorf("restart with refused credentials: %+v, want a failed deployment saying Unauthorized", st.Deployment)
	}
	_, err = p.c.PatchAgent(ctx, p.org, "bot", resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 2}})
	wantUnprocessable(t, "scale up with refused credentials", err, "Unauthorized")
	if c := p.only("bot", 2); c.ID != c2.ID {
		t.Errorf("the serving agent changed")
	}

	// The agent goes: not replaced while the registry refuses.
	if err := env.rt.Remove(ctx, c2.ID, time.Second); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the status says why no agent starts", func() bool {
		st := p.status("bot").Agent.Status
		return st.State == resources.AgentDegraded && strings.Contains(st.Message, "refused the credentials")
	})
	if got := p.containers("bot"); len(got) != 0 {
		t.Errorf("an agent started with refused credentials: %v", describeContainers(got))
	}
	p.setCredentials(agentsRegPass)
	testenv.Eventually(t, "replaced once the credentials are right", func() bool { return len(p.containers("bot")[2]) == 1 })

	// Applied under an apply set, then pruned: refused as a delete is.
	creds := resources.Literal(agentsRegUser + ":" + agentsRegPass)
	ips := resources.Object{ImagePullSecret: &resources.ImagePullSecret{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindImagePullSecret},
		Metadata: resources.ObjectMeta{Name: "reg"}, Spec: resources.ImagePullSecretSpec{Host: env.host, Credentials: &creds}}}
	other := resources.Object{SecretSet: &resources.SecretSet{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
		Metadata: resources.ObjectMeta{Name: "other"}, Spec: resources.SecretSetSpec{Data: map[string]resources.ValueSource{"K": resources.Literal("v-value")}}}}
	if _, err := p.c.Apply(ctx, p.org, resources.ApplyRequest{Objects: []resources.Object{ips, other}, ApplySet: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.c.Apply(ctx, p.org, resources.ApplyRequest{Objects: []resources.Object{other}, ApplySet: "s", Prune: true}); codeOf(err) != resources.CodeConflict ||
		!strings.Contains(err.Error(), "agent bot") {
		t.Errorf("pruning the pull secret the serving deployment pulls with: %v, want a 409 naming the agent", err)
	}
	if _, err := p.c.DeleteAgent(ctx, p.org, "bot"); err != nil {
		t.Fatal(err)
	}
	p.none("bot", "after delete")
}

// A container that someone else made with the platform's labels, escaping
// the agents' lockdown (a host mount), is no agent: it is not
// counted, shown, scaled down nor removed with its agent, and the log says
// so once.
func outsiderScenario(t *testing.T, env *engineEnv, contract *apitest.Contract, db testDB) {
	ctx := context.Background()
	p := openPinPlatform(t, env, contract, db, "outsider")
	p.botAgent("")
	c1 := p.only("bot", 1)
	owner := c1.Owner
	var created struct {
		ID string `json:"Id"`
	}
	if err := env.e.Client.Do(ctx, http.MethodPost, "/containers/create", nil, map[string]any{"Image": env.image.Pinned(),
		"Labels": owner.Labels(5), "HostConfig": map[string]any{"NetworkMode": "none",
			// Locked down as an agent, but for a host mount.
			"CapDrop": []string{"ALL"}, "SecurityOpt": []string{"no-new-privileges"}, "Binds": []string{t.TempDir() + ":/host"}}}, &created); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.rt.Remove(context.Background(), created.ID, time.Second); err != nil {
			t.Error(err)
		}
	})
	if err := env.e.Client.Do(ctx, http.MethodPost, "/containers/"+created.ID+"/start", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // several resyncs
	st := p.status("bot")
	if len(st.Running) != 1 || st.Running[0].ID != c1.ID[:12] || st.Agent.Status.Agents.Ready != 1 {
		t.Errorf("status counts the outsider: %+v %+v", st.Agent.Status.Agents, st.Running)
	}
	if got := p.containers("bot"); len(got[1]) != 2 {
		t.Errorf("the outsider was removed (or the agent): %v", describeContainers(got))
	}
	if n := strings.Count(p.log.String(), "no agent runs as"); n != 1 {
		t.Errorf("the log warns of the outsider %d times, want once:\n%s", n, p.log)
	}
	if _, err := p.c.DeleteAgent(ctx, p.org, "bot"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the agent's container removed, the outsider left", func() bool {
		got := p.containers("bot")
		return len(got[1]) == 1 && got[1][0].ID == created.ID
	})
}

// botkit-platform serve --agent-user UID:GID: every agent runs as that
// user, whatever its image says.
func userScenario(t *testing.T, env *engineEnv, contract *apitest.Contract, db testDB) {
	ctx := context.Background()
	p := &agentPlatform{t: t, env: env, db: db, org: "user-" + db.name, log: &syncBuffer{}, contract: contract, dataDir: t.TempDir(), user: "65534:65534"}
	p.open()
	p.botAgent("")
	c := p.only("bot", 1)
	var top struct {
		Titles    []string
		Processes [][]string
	}
	if err := env.e.Client.Do(ctx, http.MethodGet, "/containers/"+c.ID+"/top", url.Values{"ps_args": {"-o pid,uid,gid"}}, nil, &top); err != nil {
		t.Fatal(err)
	}
	if len(top.Processes) == 0 {
		t.Fatalf("no process in the agent: %+v", top)
	}
	for _, pr := range top.Processes {
		if len(pr) < 3 || pr[1] != "65534" || pr[2] != "65534" {
			t.Errorf("a process of the agent runs as %v, want 65534 65534 (%v)", pr, top.Titles)
		}
	}
	if _, err := p.c.DeleteAgent(ctx, p.org, "bot"); err != nil {
		t.Fatal(err)
	}
	p.none("bot", "after delete")
}

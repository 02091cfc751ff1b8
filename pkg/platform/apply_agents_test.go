package platform_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const (
	applyRegUser = "bot"
	applyRegPass = "apply-registry-pass-81d0"
	applyCanary  = "canary-apply-agent-value-2f9c"
)

// contractTransport holds every exchange to api/openapi.yaml and every
// answer free of the canary.
type contractTransport struct {
	t *testing.T
	c *apitest.Contract
}

func (tr contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
	}
	if err := tr.c.CheckRequest(req, body); err != nil {
		tr.t.Errorf("%s %s: api/openapi.yaml refuses the request: %v\n%s", req.Method, req.URL.Path, err, body)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if err := tr.c.CheckResponse(req, resp.StatusCode, resp.Header, data); err != nil {
		tr.t.Errorf("%s %s: the %d answer is not what api/openapi.yaml describes: %v\n%s", req.Method, req.URL.Path, resp.StatusCode, err, data)
	}
	if bytes.Contains(data, []byte(applyCanary)) {
		tr.t.Errorf("%s %s answered the canary value", req.Method, req.URL.Path)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// Agents through apply on a real engine, over real HTTP, on SQLite and
// PostgreSQL: one apply writes a secret set, a pull secret and an agent and
// rolls the agent out (a container runs); applying it again makes no
// deployment; a bad object among them writes nothing and deploys nothing;
// the dry run shows the agent's spec changes field by field; delete -f and
// prune remove agents with their containers.
func TestApplyAgentsOnTheEngine(t *testing.T) {
	e := dockertest.Start(t)
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), applyRegUser, applyRegPass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	image := e.PushAgent(t, host, "acme/agent:1", applyRegUser, applyRegPass, dockertest.ImageOptions{})
	rt, err := docker.NewRuntime(e.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	contract := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		applyAgentScenarios(t, rt, host, image, contract, db)
	})
}

func applyAgentScenarios(t *testing.T, rt *docker.Runtime, host string, image dockertest.Image, contract *apitest.Contract, db testDB) {
	ctx := context.Background()
	org := "apply-" + db.name
	opts := platform.Options{
		Runtimes: map[string]runtime.Runtime{"us-west": rt}, AgentNetwork: "none",
		AgentSettle: 500 * time.Millisecond, AllowPrivateRegistries: true,
	}
	if db.postgres {
		st, err := stores.Open(ctx, stores.Location{URL: pg.Database(t)}, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		keyFile := filepath.Join(t.TempDir(), platform.MasterKeyFile)
		writeKey(t, keyFile, "3d")
		opts.Store, opts.MasterKeyFile = st, keyFile
	} else {
		opts.DataDir = t.TempDir()
	}
	base, srv := platformtest.Start(t, opts)
	platformtest.CreateOrg(t, srv, org, "")
	c, err := client.New(client.Options{BaseURL: base, Token: platformtest.CreateToken(t, srv, org, "ci"),
		Transport: contractTransport{t: t, c: contract}, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	containers := func(agent string) []runtime.Agent {
		t.Helper()
		cs, err := rt.List(ctx, runtime.Selector{runtime.LabelOrganization: org, runtime.LabelAgent: agent})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	deployments := func(agent string) []resources.Deployment {
		t.Helper()
		ds, err := c.Deployments(ctx, org, agent)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	secret := func(value string) resources.Object {
		return resources.Object{SecretSet: &resources.SecretSet{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
			Metadata: resources.ObjectMeta{Name: "bot", Labels: map[string]string{"team": "voice"}},
			Spec:     resources.SecretSetSpec{Data: map[string]resources.ValueSource{"API_KEY": resources.Literal(value)}}}}
	}
	creds := resources.Literal(applyRegUser + ":" + applyRegPass)
	pull := resources.Object{ImagePullSecret: &resources.ImagePullSecret{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindImagePullSecret},
		Metadata: resources.ObjectMeta{Name: "reg", Labels: map[string]string{"team": "voice"}},
		Spec:     resources.ImagePullSecretSpec{Host: host, Credentials: &creds}}}
	agent := func(name string, minAgents int, secretSet string) resources.Object {
		return resources.Object{Agent: &resources.Agent{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindAgent},
			Metadata: resources.ObjectMeta{Name: name, Labels: map[string]string{"team": "voice"}},
			Spec: resources.AgentSpec{Image: image.Ref, ImagePullSecret: "reg", SecretSet: secretSet,
				Scaling: &resources.AgentScaling{MinAgents: minAgents, MaxAgents: 3}}}}
	}
	apply := func(req resources.ApplyRequest) resources.ApplyResult {
		t.Helper()
		res, err := c.Apply(ctx, org, req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	actions := func(res resources.ApplyResult) []string {
		var out []string
		for _, it := range res.Items {
			out = append(out, it.Ref()+" "+it.Action)
		}
		return out
	}

	// One apply: the secret set, the pull secret and the agent (which may
	// share its name with the secret set), then its rollout.
	res := apply(resources.ApplyRequest{Objects: []resources.Object{secret(applyCanary), pull, agent("bot", 1, "bot")}, ApplySet: "voice"})
	if got, want := actions(res), []string{"secretset/bot created", "imagepullsecret/reg created", "agent/bot created"}; !slices.Equal(got, want) {
		t.Fatalf("apply: %v, want %v", got, want)
	}
	d := res.Items[2].Deployment
	if d == nil || d.Number != 1 || d.Source != "apply" || d.Result == resources.DeploymentFailed || d.ImageDigest != image.Digest {
		t.Fatalf("the agent's deployment: %+v (message %q)", d, res.Items[2].Message)
	}
	if d, err := c.WaitRollout(ctx, org, "bot", 1, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("rollout: %+v, %v", d, err)
	}
	if cs := containers("bot"); len(cs) != 1 || cs[0].State != "running" || cs[0].Owner.Deployment != 1 {
		t.Fatalf("containers of the applied agent: %+v", cs)
	}

	// The same manifests again: nothing changes, no deployment.
	res = apply(resources.ApplyRequest{Objects: []resources.Object{secret(applyCanary), pull, agent("bot", 1, "bot")}, ApplySet: "voice"})
	if got, want := actions(res), []string{"secretset/bot unchanged", "imagepullsecret/reg unchanged", "agent/bot unchanged"}; !slices.Equal(got, want) {
		t.Fatalf("re-apply: %v, want %v", got, want)
	}
	if res.Items[2].Deployment != nil || len(deployments("bot")) != 1 {
		t.Fatalf("an unchanged agent got a deployment: %+v", res.Items[2].Deployment)
	}

	// A bad object among them: nothing is written, nothing deployed.
	before, err := c.Agent(ctx, org, "bot")
	if err != nil {
		t.Fatal(err)
	}
	setBefore, err := c.Get(ctx, org, "bot")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Apply(ctx, org, resources.ApplyRequest{ApplySet: "voice",
		Objects: []resources.Object{secret("changed-value"), pull, agent("bot", 2, "bot"), agent("other", 1, "no-such-set")}})
	var re *resources.Error
	if !errors.As(err, &re) || re.Code != resources.CodeUnprocessable || !strings.Contains(re.Message, "agent/other: spec.secretSet: a secret set no-such-set does not exist") {
		t.Fatalf("apply with a bad agent: %v", err)
	}
	after, err := c.Agent(ctx, org, "bot")
	if err != nil {
		t.Fatal(err)
	}
	setAfter, err := c.Get(ctx, org, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if after.Metadata.ResourceVersion != before.Metadata.ResourceVersion || after.Spec.Scaling.MinAgents != 1 ||
		setAfter.Meta().Generation != setBefore.Meta().Generation || len(deployments("bot")) != 1 {
		t.Fatalf("a refused apply changed something: agent %+v, set generation %d → %d", after.Metadata, setBefore.Meta().Generation, setAfter.Meta().Generation)
	}
	if _, err := c.Agent(ctx, org, "other"); !isNotFound(err) {
		t.Fatalf("a refused apply created agent/other: %v", err)
	}

	// The dry run: the agent's spec changes, field by field, nothing made.
	res = apply(resources.ApplyRequest{Objects: []resources.Object{secret(applyCanary), pull, agent("bot", 2, "")}, ApplySet: "voice", DryRun: true})
	var fields []string
	for _, f := range res.Items[2].Fields {
		if f.Change != resources.ChangeUnchanged {
			fields = append(fields, f.Field+" "+f.Change+" "+f.From+" -> "+f.To)
		}
	}
	if want := []string{"spec.secretSet removed bot -> ", "spec.scaling.minAgents changed 1 -> 2"}; res.Items[2].Action != resources.ActionConfigured || !slices.Equal(fields, want) {
		t.Fatalf("dry run of a changed agent: %s %v, want %v", res.Items[2].Action, fields, want)
	}
	if res.Items[2].Deployment != nil || len(deployments("bot")) != 1 {
		t.Fatal("a dry run made a deployment")
	}

	// delete -f of an agent: its containers go with it.
	res = apply(resources.ApplyRequest{Objects: []resources.Object{secret(applyCanary), pull, agent("bot", 1, "bot"), agent("extra", 1, "bot")}, ApplySet: "voice"})
	if it := res.Items[3]; it.Action != resources.ActionCreated || it.Deployment == nil {
		t.Fatalf("apply of a second agent: %+v", it)
	}
	if d, err := c.WaitRollout(ctx, org, "extra", 1, nil); err != nil || d.Result != resources.DeploymentServing || len(containers("extra")) != 1 {
		t.Fatalf("rollout of agent/extra: %+v, %v, containers %+v", d, err, containers("extra"))
	}
	del, err := c.DeleteObjects(ctx, org, resources.DeleteRequest{Objects: []resources.ObjectRef{{Kind: resources.KindAgent, Name: "extra"}}})
	if err != nil || len(del.Items) != 1 || del.Items[0].Action != resources.ActionDeleted {
		t.Fatalf("delete agent/extra: %+v, %v", del, err)
	}
	testenv.Eventually(t, "a deleted agent's containers removed", func() bool { return len(containers("extra")) == 0 })

	// Prune: the manifests no longer name the agent; it goes, with its
	// containers (the secret set and the pull secret stay).
	res = apply(resources.ApplyRequest{Objects: []resources.Object{secret(applyCanary), pull}, ApplySet: "voice", Prune: true, Selector: "team=voice"})
	if got, want := actions(res), []string{"secretset/bot unchanged", "imagepullsecret/reg unchanged", "agent/bot pruned"}; !slices.Equal(got, want) {
		t.Fatalf("prune: %v, want %v", got, want)
	}
	if _, err := c.Agent(ctx, org, "bot"); !isNotFound(err) {
		t.Fatalf("a pruned agent remains: %v", err)
	}
	testenv.Eventually(t, "a pruned agent's containers removed", func() bool { return len(containers("bot")) == 0 })
}

func isNotFound(err error) bool {
	var re *resources.Error
	return errors.As(err, &re) && re.Code == resources.CodeNotFound
}

// Without a runtime in the agent's region, an apply that would roll an
// agent out is refused (422, naming the agent and how to add a runtime)
// and writes nothing, not even the secret set beside it; an agent written
// before (PUT) and applied unchanged needs no runtime.
func TestApplyAgentsWithoutRuntime(t *testing.T) {
	contract := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		base, srv := platformtest.Start(t, storeOptions(t, db))
		platformtest.CreateOrg(t, srv, "acme", "")
		c, err := client.New(client.Options{BaseURL: base, Token: platformtest.CreateToken(t, srv, "acme", "ci"), Transport: contractTransport{t: t, c: contract}})
		if err != nil {
			t.Fatal(err)
		}
		set := resources.Object{SecretSet: &resources.SecretSet{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
			Metadata: resources.ObjectMeta{Name: "bot"}, Spec: resources.SecretSetSpec{Data: map[string]resources.ValueSource{"A": resources.Literal(applyCanary)}}}}
		agent := resources.Agent{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindAgent},
			Metadata: resources.ObjectMeta{Name: "bot"}, Spec: resources.AgentSpec{Image: "registry.example/acme/bot:1", SecretSet: "bot"}}
		_, err = c.Apply(ctx, "acme", resources.ApplyRequest{Objects: []resources.Object{set, {Agent: &agent}}})
		var re *resources.Error
		if !errors.As(err, &re) || re.Code != resources.CodeUnprocessable || !strings.HasPrefix(re.Message, "agent/bot: region us-west has no runtime") ||
			len(re.Details) != 1 || re.Details[0].Index != 1 || re.Details[0].Kind != resources.KindAgent {
			t.Fatalf("apply without a runtime: %v", err)
		}
		if _, err := c.Get(ctx, "acme", "bot"); !isNotFound(err) {
			t.Fatalf("a refused apply wrote secretset/bot: %v", err)
		}

		// An agent of another organization than the request's: refused.
		other := agent
		other.Metadata.Organization = "beta"
		_, err = c.Apply(ctx, "acme", resources.ApplyRequest{Objects: []resources.Object{{Agent: &other}}})
		if !errors.As(err, &re) || re.Code != resources.CodeInvalid || !strings.Contains(re.Message, `metadata.organization "beta" does not match`) {
			t.Fatalf("apply of another organization's agent: %v", err)
		}
		if _, err := c.Agent(ctx, "acme", "bot"); !isNotFound(err) {
			t.Fatalf("a refused apply wrote agent/bot: %v", err)
		}

		// Written with PUT, applied as it is: no rollout, no runtime needed.
		if _, _, err := c.PutAgent(ctx, "acme", agent, ""); err != nil {
			t.Fatal(err)
		}
		res, err := c.Apply(ctx, "acme", resources.ApplyRequest{Objects: []resources.Object{set, {Agent: &agent}}})
		if err != nil {
			t.Fatal(err)
		}
		if it := res.Items[1]; it.Action != resources.ActionConfigured || it.Deployment != nil || it.Object.Agent.Metadata.ManagedBy != resources.ManagedByApply {
			t.Fatalf("apply of an unchanged spec: %+v", it)
		}

		// An agent does not move between regions.
		moved := agent
		moved.Metadata.Region = "eu-central"
		_, err = c.Apply(ctx, "acme", resources.ApplyRequest{Objects: []resources.Object{{Agent: &moved}}})
		if !errors.As(err, &re) || re.Code != resources.CodeConflict || !strings.Contains(re.Message, "agent bot is in region us-west, not eu-central") {
			t.Fatalf("apply moving an agent: %v", err)
		}
	})
}

package platform_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/apitest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/platform/stores"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const (
	agentsRegUser = "bot"
	agentsRegPass = "registry-pass-5c21"
	// agentsCanary is a secret value the agents run with: it must never
	// leave the platform but to the engine.
	agentsCanary = "canary-agent-value-7e3b"
)

// engineEnv is one private Docker Engine and one registry holding the test
// agent image, shared by the scenarios of both stores (dockerd is slow to
// start: one per test binary run).
type engineEnv struct {
	e    *dockertest.Engine
	rt   *docker.Runtime
	host string // the registry's host:port
	// regURL is the registry's http://host:port.
	regURL string
	image  dockertest.Image
}

// newEngineEnv starts the engine and the registry, and pushes the test
// agent image (its registry's address in regURL).
func newEngineEnv(t *testing.T) *engineEnv {
	t.Helper()
	env := &engineEnv{}
	env.e, env.rt, env.image, env.host = engineWithImage(t, "acme/agent:1", dockertest.ImageOptions{})
	env.regURL = "http://" + env.host
	return env
}

// The agents on a real engine, over real HTTP, on SQLite and PostgreSQL:
// deploy, logs, drift, redeploy, rollback, a crashing deployment, refused
// credentials, scale, a rollout interrupted half way, another organization,
// the containers' lockdown, delete; a canary value never in an answer, the
// server log or the data directory.
func TestAgentsOnTheEngine(t *testing.T) {
	env := newEngineEnv(t)
	contract := apitest.Load(t)
	eachStore(t, func(t *testing.T, db testDB) {
		agentScenarios(t, env, contract, db)
	})
	t.Run("postgres-replicas", func(t *testing.T) { replicaScenario(t, env, contract) })
}

// Two replicas on one PostgreSQL database, each with the engine and a
// background pass: the region is reconciled by the one that holds its
// lease — a deploy through the other is rolled out by the first, with no
// agent started twice —, and taken over once the first stops.
func replicaScenario(t *testing.T, env *engineEnv, contract *apitest.Contract) {
	ctx := context.Background()
	url := pg.Database(t)
	keyFile := filepath.Join(t.TempDir(), platform.MasterKeyFile)
	writeKey(t, keyFile, "3d")
	open := func(log *syncBuffer) *platform.Server {
		st, err := stores.Open(ctx, stores.Location{URL: url}, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, srv := platformtest.Start(t, platform.Options{Store: st, MasterKeyFile: keyFile, AllowPrivateRegistries: true,
			Logger:   slog.New(slog.NewTextHandler(log, nil)),
			Runtimes: map[string]runtime.Runtime{"us-west": env.rt}, AgentNetwork: "none", AgentSettle: time.Second,
			ReconcileInterval: 200 * time.Millisecond})
		return srv
	}
	aLog, bLog := &syncBuffer{}, &syncBuffer{}
	a := open(aLog) // takes the region's lease once open
	testenv.Eventually(t, "the first replica drives the region", func() bool { return strings.Contains(aLog.String(), "driving the region's agents") })
	bSrv := open(bLog)
	platformtest.CreateOrg(t, a, "replicas", "")
	tok := platformtest.CreateToken(t, a, "replicas", "ci")
	bBase := ""
	{
		hs := httptest.NewServer(bSrv.Handler())
		t.Cleanup(hs.Close)
		bBase = hs.URL
	}
	b, err := client.New(client.Options{BaseURL: bBase, Token: tok, Transport: checked{t: t, c: contract}, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	putPullSecret(t, b, "replicas", env.host)
	if _, _, err := b.PutAgent(ctx, "replicas", resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"},
		Spec: resources.AgentSpec{Image: env.image.Ref, ImagePullSecret: "reg"}}, ""); err != nil {
		t.Fatal(err)
	}
	d, err := b.Deploy(ctx, "replicas", "bot", resources.DeployRequest{})
	if err != nil || d.Result != resources.DeploymentRollingOut {
		t.Fatalf("deploy through the replica without the lease: %+v %v", d, err)
	}
	if d, err = b.WaitRollout(ctx, "replicas", "bot", d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("rollout: %+v %v", d, err)
	}
	list := func() []runtime.Agent {
		t.Helper()
		cs, err := env.rt.List(ctx, runtime.Selector{runtime.LabelOrganization: "replicas"})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	if cs := list(); len(cs) != 1 {
		t.Errorf("two replicas started %d agents for one", len(cs))
	}
	if !strings.Contains(aLog.String(), "started agents") || strings.Contains(bLog.String(), "started agents") {
		t.Errorf("the agents were not started by the lease holder alone:\nholder:\n%s\nother:\n%s", aLog, bLog)
	}
	// The lease holder stops: the other replica takes the region over.
	a.Close()
	if _, err := b.PatchAgent(ctx, "replicas", "bot", resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 2}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "two agents, started by the replica left", func() bool { return len(list()) == 2 })
	if !testenv.Poll(func() bool { return strings.Contains(bLog.String(), "started agents") }) {
		t.Errorf("the replica left did not start the second agent:\n%s", bLog)
	}
	if _, err := b.DeleteAgent(ctx, "replicas", "bot"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "no container after delete", func() bool { return len(list()) == 0 })
}

// syncBuffer is the server log, written by its goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// checked is a client transport that holds every exchange to
// api/openapi.yaml and every answer free of the canary.
type checked struct {
	t *testing.T
	c *apitest.Contract
	// canary is the value no answer holds (agentsCanary when empty).
	canary string
}

func (tr checked) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	if err := tr.c.CheckRequest(req, body); err != nil {
		tr.t.Errorf("%s %s: api/openapi.yaml refuses the request: %v", req.Method, req.URL.Path, err)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.Header.Get("Content-Type") == apitest.JSONLines {
		resp.Body = &canaryReader{t: tr.t, r: resp.Body, what: req.URL.Path, check: func(all []byte) {
			if err := tr.c.CheckJSONLines(req, resp.StatusCode, all); err != nil {
				tr.t.Errorf("%s %s: the stream is not what api/openapi.yaml describes: %v", req.Method, req.URL.Path, err)
			}
		}}
		return resp, nil
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if err := tr.c.CheckResponse(req, resp.StatusCode, resp.Header, data); err != nil {
		tr.t.Errorf("%s %s: the %d answer is not what api/openapi.yaml describes: %v\n%s", req.Method, req.URL.Path, resp.StatusCode, err, data)
	}
	canary := tr.canary
	if canary == "" {
		canary = agentsCanary
	}
	if bytes.Contains(data, []byte(canary)) {
		tr.t.Errorf("%s %s answered the canary value: %s", req.Method, req.URL.Path, data)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// canaryReader fails the test when a streamed answer holds the canary;
// check is given the whole lines read, at Close.
type canaryReader struct {
	t     *testing.T
	r     io.ReadCloser
	what  string
	tail  []byte
	all   []byte
	check func([]byte)
}

func (c *canaryReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.all = append(c.all, p[:n]...)
	c.tail = append(c.tail, p[:n]...)
	if bytes.Contains(c.tail, []byte(agentsCanary)) {
		c.t.Errorf("the stream of %s holds the canary value", c.what)
	}
	if len(c.tail) > len(agentsCanary) {
		c.tail = c.tail[len(c.tail)-len(agentsCanary):]
	}
	return n, err
}

func (c *canaryReader) Close() error {
	// The lines read whole (a stream stopped by its reader ends anywhere).
	if i := bytes.LastIndexByte(c.all, '\n'); c.check != nil {
		c.check(c.all[:i+1])
	}
	return c.r.Close()
}

// agentPlatform is the platform of one store, opened again (same data) by
// reopen.
type agentPlatform struct {
	t         *testing.T
	env       *engineEnv
	db        testDB
	org       string
	dataDir   string
	pgURL     string
	keyFile   string
	log       *syncBuffer
	contract  *apitest.Contract
	interrupt atomic.Bool // the next rollout stops between its agents' start and its promotion
	// stopped is closed when the interrupted rollout reached its stop.
	stopped   chan struct{}
	srv       *platform.Server
	user      string // the agents' user (platform.Options.AgentUser)
	c, other  *client.Client
	tok, otok string
}

var errInterrupted = errors.New("the platform stopped here (test seam)")

func (p *agentPlatform) open() {
	t := p.t
	opts := platform.Options{
		Runtimes: map[string]runtime.Runtime{"us-west": p.env.rt}, AgentNetwork: "none",
		// Long enough to see an agent that exits at once exit first.
		AgentSettle:            1500 * time.Millisecond,
		AllowPrivateRegistries: true,
		AgentUser:              p.user,
		Logger:                 slog.New(slog.NewTextHandler(p.log, nil)),
		AfterAgentsStart: func(ctx context.Context, org, agent string, deployment int64) error {
			if p.interrupt.CompareAndSwap(true, false) {
				// The platform stops here: nothing more of this rollout
				// happens until it is closed.
				close(p.stopped)
				<-ctx.Done()
				return errInterrupted
			}
			return nil
		},
	}
	if p.db.postgres {
		st, err := stores.Open(context.Background(), stores.Location{URL: p.pgURL}, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts.Store, opts.MasterKeyFile = st, p.keyFile
	} else {
		opts.DataDir = p.dataDir
	}
	base, srv := platformtest.Start(t, opts)
	p.srv = srv
	if p.tok == "" {
		platformtest.CreateOrg(t, srv, p.org, "")
		platformtest.CreateOrg(t, srv, "other-"+p.db.name, "")
		p.tok = platformtest.CreateToken(t, srv, p.org, "ci")
		p.otok = platformtest.CreateToken(t, srv, "other-"+p.db.name, "ci")
	}
	var err error
	tr := checked{t: t, c: p.contract}
	if p.c, err = client.New(client.Options{BaseURL: base, Token: p.tok, Transport: tr, Timeout: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	if p.other, err = client.New(client.Options{BaseURL: base, Token: p.otok, Transport: tr}); err != nil {
		t.Fatal(err)
	}
}

// containers returns the engine's containers of the agent, by deployment.
func (p *agentPlatform) containers(agent string) map[int64][]runtime.Agent {
	p.t.Helper()
	cs, err := p.env.rt.List(context.Background(), runtime.Selector{runtime.LabelOrganization: p.org, runtime.LabelAgent: agent})
	if err != nil {
		p.t.Fatal(err)
	}
	out := map[int64][]runtime.Agent{}
	for _, c := range cs {
		out[int64(c.Owner.Deployment)] = append(out[int64(c.Owner.Deployment)], c)
	}
	return out
}

// only returns the one container of the agent, which must be deployment
// n's once the controller has stopped the others (it stops them beside
// the requests).
func (p *agentPlatform) only(agent string, n int64) runtime.Agent {
	p.t.Helper()
	var got map[int64][]runtime.Agent
	if !testenv.Poll(func() bool {
		got = p.containers(agent)
		return len(got) == 1 && len(got[n]) == 1
	}) {
		p.t.Fatalf("containers of %s: %v, want exactly one of deployment %d", agent, describeContainers(got), n)
	}
	return got[n][0]
}

// none waits until the agent has no container left.
func (p *agentPlatform) none(agent, what string) {
	p.t.Helper()
	var got map[int64][]runtime.Agent
	if !testenv.Poll(func() bool {
		got = p.containers(agent)
		return len(got) == 0
	}) {
		p.t.Errorf("%s: %v, want no container", what, describeContainers(got))
	}
}

func describeContainers(m map[int64][]runtime.Agent) map[int64][]string {
	out := map[int64][]string{}
	for n, cs := range m {
		for _, c := range cs {
			out[n] = append(out[n], c.Name+" "+string(c.State))
		}
	}
	return out
}

// inspected is what the engine's inspect says of a container.
type inspectedAgent struct {
	Config struct {
		Env []string
	}
	HostConfig struct {
		Privileged    bool
		CapAdd        []string
		CapDrop       []string
		SecurityOpt   []string
		Memory        int64
		NanoCpus      int64
		PidsLimit     *int64
		NetworkMode   string
		PidMode       string
		Binds         []string
		RestartPolicy struct{ Name string }
	}
	Mounts []any
}

func (p *agentPlatform) inspect(id string) inspectedAgent {
	p.t.Helper()
	var c inspectedAgent
	if err := p.env.e.Client.Do(context.Background(), http.MethodGet, "/containers/"+id+"/json", nil, nil, &c); err != nil {
		p.t.Fatalf("inspect %s: %v", id, err)
	}
	return c
}

// envKeys returns the names of a container's environment (the image's PATH
// aside) and whether the canary is among its values.
func (p *agentPlatform) envKeys(id string) []string {
	p.t.Helper()
	var keys []string
	for _, kv := range p.inspect(id).Config.Env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "PATH" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func (p *agentPlatform) deploy(agent string) resources.Deployment {
	p.t.Helper()
	ctx := context.Background()
	d, err := p.c.Deploy(ctx, p.org, agent, resources.DeployRequest{})
	if err != nil {
		p.t.Fatalf("deploy %s: %v", agent, err)
	}
	if d.Result == resources.DeploymentRollingOut {
		if d, err = p.c.WaitRollout(ctx, p.org, agent, d.Number, nil); err != nil {
			p.t.Fatalf("waiting for deployment %d: %v", d.Number, err)
		}
	}
	return d
}

func (p *agentPlatform) setSecret(patch resources.Patch) {
	p.t.Helper()
	if _, _, err := p.c.Merge(context.Background(), p.org, "bot-secrets", patch, ""); err != nil {
		p.t.Fatal(err)
	}
}

func (p *agentPlatform) setCredentials(pass string) {
	p.t.Helper()
	creds, encode := agentsRegUser+":"+pass, true
	if _, _, err := p.c.Merge(context.Background(), p.org, "reg", resources.Patch{Kind: resources.KindImagePullSecret,
		Host: p.env.host, Credentials: &creds, Encode: &encode}, ""); err != nil {
		p.t.Fatal(err)
	}
}

func (p *agentPlatform) status(agent string) resources.AgentStatusReport {
	p.t.Helper()
	r, err := p.c.AgentStatus(context.Background(), p.org, agent)
	if err != nil {
		p.t.Fatal(err)
	}
	return r
}

func agentScenarios(t *testing.T, env *engineEnv, contract *apitest.Contract, db testDB) {
	ctx := context.Background()
	p := &agentPlatform{t: t, env: env, db: db, org: "acme-" + db.name, log: &syncBuffer{}, contract: contract, dataDir: t.TempDir()}
	if db.postgres {
		p.pgURL = pg.Database(t)
		p.keyFile = filepath.Join(t.TempDir(), platform.MasterKeyFile)
		writeKey(t, p.keyFile, "7c")
	}
	p.open()

	// The secret set and the pull secret; the agent (no deployment yet).
	p.setSecret(resources.Patch{Set: map[string]string{"API_KEY": agentsCanary, "OTHER": "x", "BOTKIT_TEST_PRINT": "API_KEY"}})
	p.setCredentials(agentsRegPass)
	spec := resources.AgentSpec{Image: env.image.Ref, ImagePullSecret: "reg", SecretSet: "bot-secrets",
		Scaling: &resources.AgentScaling{MinAgents: 1, MaxAgents: 3}}
	if _, created, err := p.c.PutAgent(ctx, p.org, resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"}, Spec: spec}, ""); err != nil || !created {
		t.Fatalf("put agent: created %v, %v", created, err)
	}
	if got := p.containers("bot"); len(got) != 0 {
		t.Fatalf("an agent without a deployment runs %v", describeContainers(got))
	}

	// Deploy: a container runs with exactly the set's keys, locked down,
	// with the engine's restart policy "no" (the platform replaces an agent
	// that dies).
	d1 := p.deploy("bot")
	if d1.Number != 1 || d1.Result != resources.DeploymentServing || d1.SecretSetVersion != 1 ||
		d1.ImageDigest != env.image.Digest {
		t.Fatalf("deployment 1: %+v (want serving, version 1, %s)", d1, env.image.Pinned())
	}
	c1 := p.only("bot", 1)
	if got, want := p.envKeys(c1.ID), []string{"API_KEY", "BOTKIT_TEST_PRINT", "OTHER", "PORT"}; !slices.Equal(got, want) {
		t.Errorf("deployment 1's environment: %v, want %v", got, want)
	}
	ins := p.inspect(c1.ID)
	hc := ins.HostConfig
	prof, _ := runtime.LookupProfile(runtime.ProfileAgent1x)
	if hc.Privileged || len(hc.CapAdd) != 0 || !slices.Equal(hc.CapDrop, []string{"ALL"}) || !slices.Contains(hc.SecurityOpt, "no-new-privileges") ||
		hc.Memory != prof.MemoryBytes || hc.NanoCpus != prof.NanoCPUs || hc.PidsLimit == nil || *hc.PidsLimit != prof.PIDs ||
		hc.NetworkMode != "none" || hc.PidMode != "" || len(hc.Binds) != 0 || len(ins.Mounts) != 0 ||
		hc.RestartPolicy.Name != runtime.RestartNever {
		t.Errorf("the agent's lockdown as the engine has it: %+v", ins.HostConfig)
	}
	st := p.status("bot")
	if a := st.Agent.Status; a.State != resources.AgentReady || a.Agents != (resources.AgentCounts{Desired: 1, Ready: 1}) || a.Deployment != 1 || a.Drift != "" {
		t.Errorf("status after deploy: %+v", a)
	}
	if len(st.Running) != 1 || st.Running[0].Deployment != 1 || st.Running[0].State != "running" {
		t.Errorf("running: %+v", st.Running)
	}

	// Logs: the value the agent prints arrives masked (followed until the
	// line, then stopped; and read whole).
	found := errors.New("found")
	fctx, cancel := context.WithTimeout(ctx, time.Minute) // a bound on a stream that never shows it
	defer cancel()
	err := p.c.AgentLogs(fctx, p.org, "bot", client.LogOptions{Follow: true}, func(l resources.AgentLogLine) error {
		// BOTKIT_TEST_PRINT's value, API_KEY, is a value of the set too.
		if l.Text == "value of ****: ****" {
			return found
		}
		return nil
	})
	if !errors.Is(err, found) {
		t.Errorf("the followed logs never showed the masked value: %v", err)
	}
	// A platform that stops ends its followers' streams (serve stops
	// them when it drains), whatever the agents do.
	first := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var once sync.Once
		done <- p.c.AgentLogs(ctx, p.org, "bot", client.LogOptions{Follow: true}, func(resources.AgentLogLine) error {
			once.Do(func() { close(first) })
			return nil
		})
	}()
	testenv.Within(t, "the first followed line", first)
	p.srv.StopStreams()
	if err := testenv.Within(t, "the end of the followed stream", done); err != nil {
		t.Errorf("the followed stream ended with %v", err)
	}

	var lines []string
	if err := p.c.AgentLogs(ctx, p.org, "bot", client.LogOptions{Tail: 100}, func(l resources.AgentLogLine) error {
		if l.Agent != c1.Name {
			t.Errorf("line %q of agent %q, want %s", l.Text, l.Agent, c1.Name)
		}
		lines = append(lines, l.Text)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(lines, "value of ****: ****") || !slices.Contains(lines, "ready") {
		t.Errorf("logs: %q", lines)
	}

	// A secret write changes no running agent: the status shows the drift.
	p.setSecret(resources.Patch{Set: map[string]string{"NEW_KEY": "n"}})
	st = p.status("bot")
	if want := "secret set bot-secrets is at version 2; deployment 1 runs version 1: botkit deploy to apply"; st.Agent.Status.Drift != want {
		t.Errorf("drift: %q, want %q", st.Agent.Status.Drift, want)
	}
	if c := p.only("bot", 1); c.ID != c1.ID || !slices.Equal(p.envKeys(c.ID), []string{"API_KEY", "BOTKIT_TEST_PRINT", "OTHER", "PORT"}) {
		t.Errorf("the running agent changed with the secret write")
	}

	// Redeploy: the new keys, the old container gone.
	d2 := p.deploy("bot")
	if d2.Number != 2 || d2.Result != resources.DeploymentServing || d2.SecretSetVersion != 2 {
		t.Fatalf("deployment 2: %+v", d2)
	}
	c2 := p.only("bot", 2)
	if got, want := p.envKeys(c2.ID), []string{"API_KEY", "BOTKIT_TEST_PRINT", "NEW_KEY", "OTHER", "PORT"}; !slices.Equal(got, want) {
		t.Errorf("deployment 2's environment: %v, want %v", got, want)
	}
	if st := p.status("bot").Agent.Status; st.Drift != "" || st.Deployment != 2 {
		t.Errorf("status after the redeploy: %+v", st)
	}

	// Rollback: deployment 1's digest and secret set version.
	rb, err := p.c.RollbackAgent(ctx, p.org, "bot", resources.RollbackRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if rb.Number != 3 || rb.RollbackOf != 1 || rb.SecretSetVersion != 1 || rb.Source != "rollback" {
		t.Errorf("rollback: %+v", rb)
	}
	if rb, err = p.c.WaitRollout(ctx, p.org, "bot", rb.Number, nil); err != nil || rb.Result != resources.DeploymentServing {
		t.Fatalf("rollback's rollout: %+v %v", rb, err)
	}
	c3 := p.only("bot", 3)
	if got, want := p.envKeys(c3.ID), []string{"API_KEY", "BOTKIT_TEST_PRINT", "OTHER", "PORT"}; !slices.Equal(got, want) {
		t.Errorf("the rolled back environment: %v, want %v", got, want)
	}

	// A deployment whose agent crashes fails with the reason and its last
	// lines, masked; the serving one serves on, untouched.
	p.setSecret(resources.Patch{Set: map[string]string{"BOTKIT_TEST_EXIT": "3"}})
	d4 := p.deploy("bot")
	if d4.Result != resources.DeploymentFailed || !strings.Contains(d4.Message, "exited with code 3") ||
		!strings.Contains(d4.Message, "value of ****: ****") || !strings.Contains(d4.Message, "exiting with 3") {
		t.Errorf("crashing deployment: %+v", d4)
	}
	if c := p.only("bot", 3); c.ID != c3.ID || c.State != runtime.StateRunning {
		t.Errorf("the serving agent after a failed deployment: %+v", c)
	}
	st = p.status("bot")
	if a := st.Agent.Status; a.State != resources.AgentReady || a.Deployment != 3 || !strings.Contains(a.Message, "deployment 4 failed") {
		t.Errorf("status after a failed deployment: %+v", a)
	}
	p.setSecret(resources.Patch{Remove: []string{"BOTKIT_TEST_EXIT"}})

	// Refused credentials: a failed deployment, nothing else changed.
	p.setCredentials("wrong-password")
	d5, err := p.c.Deploy(ctx, p.org, "bot", resources.DeployRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d5.Result != resources.DeploymentFailed || !strings.Contains(d5.Message, string(runtime.ReasonUnauthorized)) || d5.ImageDigest != "" {
		t.Errorf("deployment with refused credentials: %+v", d5)
	}
	if c := p.only("bot", 3); c.ID != c3.ID {
		t.Errorf("the serving agent changed after refused credentials")
	}
	p.setCredentials(agentsRegPass)

	// Scale: up to 2 (the reconciler starts one), then down to 1.
	if _, err := p.c.PatchAgent(ctx, p.org, "bot", resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 2, MaxAgents: 3}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "two agents ready", func() bool {
		a := p.status("bot").Agent.Status
		return a.State == resources.AgentReady && a.Agents == resources.AgentCounts{Desired: 2, Ready: 2}
	})
	if got := p.containers("bot"); len(got) != 1 || len(got[3]) != 2 {
		t.Errorf("scaled to 2: %v", describeContainers(got))
	}
	if _, err := p.c.PatchAgent(ctx, p.org, "bot", resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 1}}); err != nil {
		t.Fatal(err)
	}
	if c := p.only("bot", 3); c.ID != c3.ID {
		t.Errorf("scaling down removed the first agent, not the last")
	}

	// A rollout interrupted between its agents' start and its promotion
	// (the platform stops there): the next platform's reconcile leaves
	// exactly the serving deployment's agents.
	p.stopped = make(chan struct{})
	p.interrupt.Store(true)
	if d, err := p.c.Deploy(ctx, p.org, "bot", resources.DeployRequest{}); err != nil || d.Result != resources.DeploymentRollingOut || d.Number != 6 {
		t.Fatalf("the interrupted deploy: %+v %v", d, err)
	}
	testenv.Within(t, "the rollout's stop", p.stopped)
	if got := p.containers("bot"); len(got[3]) != 1 || len(got[6]) != 1 {
		t.Fatalf("at the interruption: %v, want deployment 3's agent and deployment 6's", describeContainers(got))
	}
	p.srv.Close()
	// Worse: the start was cut between the container's creation and its
	// start (deployment 6's container created, never started).
	for _, c := range p.containers("bot")[6] {
		if err := env.rt.Remove(ctx, c.ID, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	var created struct {
		ID string `json:"Id"`
	}
	owner6 := runtime.Owner{Platform: c1.Owner.Platform, Organization: p.org, Region: "us-west", Agent: "bot", Deployment: 6}
	if err := env.e.Client.Do(ctx, http.MethodPost, "/containers/create", nil, map[string]any{"Image": env.image.Pinned(),
		"Labels": owner6.Labels(0), "HostConfig": map[string]any{"NetworkMode": "none", "CapDrop": []string{"ALL"}, "SecurityOpt": []string{"no-new-privileges"}}}, &created); err != nil {
		t.Fatal(err)
	}
	p.open()
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute) // a bound on a rollout that never ends
	defer cancel()
	d6, err := p.c.WaitRollout(wctx, p.org, "bot", 6, nil)
	if err != nil || d6.Result != resources.DeploymentServing {
		t.Fatalf("deployment 6 after the restart: %+v %v", d6, err)
	}
	c6 := p.only("bot", 6)
	if c6.ID == created.ID {
		t.Errorf("the container never started serves")
	}
	if got, want := p.envKeys(c6.ID), []string{"API_KEY", "BOTKIT_TEST_PRINT", "NEW_KEY", "OTHER", "PORT"}; !slices.Equal(got, want) {
		t.Errorf("deployment 6's environment: %v, want %v", got, want)
	}
	list, err := p.c.Deployments(ctx, p.org, "bot")
	if err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, d := range list {
		results = append(results, d.Result)
	}
	if want := []string{"serving", "failed", "failed", "superseded", "superseded", "superseded"}; !slices.Equal(results, want) {
		t.Errorf("deployments, newest first: %v, want %v", results, want)
	}

	// A dry run resolves what a deployment would run and writes nothing.
	dry, err := p.c.Deploy(ctx, p.org, "bot", resources.DeployRequest{DryRun: true})
	if err != nil || dry.Number != 7 || dry.ImageDigest != env.image.Digest || dry.Result != resources.DeploymentRollingOut {
		t.Errorf("dry run: %+v %v", dry, err)
	}
	if _, err := p.c.Deployment(ctx, p.org, "bot", 7); codeOf(err) != resources.CodeNotFound {
		t.Errorf("the dry run recorded a deployment: %v", err)
	}

	// Restart: a rollout of what deployment 6 runs; fresh agents serve,
	// then the old one stops.
	ra, err := p.c.RestartAgent(ctx, p.org, "bot")
	if err != nil || ra.Status == nil || ra.Status.Rollout != 7 {
		t.Fatalf("restart: %+v %v", ra.Status, err)
	}
	d7, err := p.c.WaitRollout(ctx, p.org, "bot", 7, nil)
	if err != nil || d7.Result != resources.DeploymentServing || d7.Source != "restart" || d7.RollbackOf != 6 || d7.ImageDigest != d6.ImageDigest || d7.SecretSetVersion != d6.SecretSetVersion {
		t.Fatalf("the restart's deployment: %+v %v", d7, err)
	}
	if c := p.only("bot", 7); c.ID == c6.ID || c.State != runtime.StateRunning {
		t.Errorf("after restart: %+v (before: %s)", c, c6.ID)
	}

	// Scaled to zero: nothing runs, and the status says so.
	if _, err := p.c.PatchAgent(ctx, p.org, "bot", resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 0}}); err != nil {
		t.Fatal(err)
	}
	p.none("bot", "scaled to zero")
	if a := p.status("bot").Agent.Status; a.State != resources.AgentReady || a.Agents.Desired != 0 || !strings.Contains(a.Message, "scaled to zero") {
		t.Errorf("status scaled to zero: %+v", a)
	}

	// Another organization sees nothing.
	if _, err := p.other.Agent(ctx, p.org, "bot"); codeOf(err) != resources.CodeNotFound {
		t.Errorf("another organization's GET: %v", err)
	}
	if err := p.other.AgentLogs(ctx, p.org, "bot", client.LogOptions{}, func(resources.AgentLogLine) error { return nil }); codeOf(err) != resources.CodeNotFound {
		t.Errorf("another organization's logs: %v", err)
	}

	// Delete: no container is left.
	if _, err := p.c.DeleteAgent(ctx, p.org, "bot"); err != nil {
		t.Fatal(err)
	}
	p.none("bot", "after delete")

	// The canary: never in the server log nor in the data directory.
	p.srv.Close()
	if strings.Contains(p.log.String(), agentsCanary) {
		t.Errorf("the server log holds the canary value")
	}
	if !strings.Contains(p.log.String(), "deployment failed") {
		t.Errorf("the server log says nothing of the failed deployment:\n%s", p.log.String())
	}
	dirs := []string{p.dataDir}
	if db.postgres {
		dirs = append(dirs, pg.Cluster(t).Dir())
	}
	for _, dir := range dirs {
		grepTree(t, dir, agentsCanary)
	}
}

// grepTree fails the test when a file below dir holds s.
func grepTree(t *testing.T, dir, s string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil // a file gone meanwhile (a database's temporary file)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		br := bufio.NewReaderSize(f, 1<<20)
		data, err := io.ReadAll(br)
		if err == nil && bytes.Contains(data, []byte(s)) {
			t.Errorf("%s holds the canary value", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func codeOf(err error) string {
	var re *resources.Error
	if errors.As(err, &re) {
		return re.Code
	}
	return ""
}

// putPullSecret writes the organization's image pull secret "reg" for the
// test registry at host, with its credentials.
func putPullSecret(t *testing.T, c *client.Client, org, host string) {
	t.Helper()
	creds := agentsRegUser + ":" + agentsRegPass
	if _, _, err := c.Merge(context.Background(), org, "reg", resources.Patch{Kind: resources.KindImagePullSecret, Host: host, Credentials: &creds}, ""); err != nil {
		t.Fatal(err)
	}
}

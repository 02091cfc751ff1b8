package docker_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
)

const (
	regUser = "bot"
	regPass = "registry-pass-4711"
	canary  = "canary-value-8d1f"
)

// env is one engine, one registry with the test agent images, and the
// runtime under test; the subtests of TestEngine share it.
type env struct {
	e      *dockertest.Engine
	rt     *docker.Runtime
	creds  *runtime.Credentials
	plain  dockertest.Image
	health dockertest.Image
	host   string
}

func newEnv(t *testing.T) *env {
	e := dockertest.Start(t)
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), regUser, regPass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	v := &env{e: e, host: host, creds: &runtime.Credentials{Registry: host, Username: regUser, Password: regPass}}
	v.plain = e.PushAgent(t, host, "acme/agent:1", regUser, regPass, dockertest.ImageOptions{})
	v.health = e.PushAgent(t, host, "acme/agent-health:1", regUser, regPass, dockertest.ImageOptions{Healthcheck: true})
	if v.rt, err = docker.NewRuntime(e.Host); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.rt.Close)
	// Pulled by digest (no tag), so that each subtest can run alone.
	for _, img := range []dockertest.Image{v.plain, v.health} {
		if err := v.rt.Pull(ctxFor(t), img.Pinned(), v.creds); err != nil {
			t.Fatalf("pull %s: %v", img.Pinned(), err)
		}
	}
	return v
}

// foreign creates a container the platform does not own.
func (v *env) foreign(t *testing.T, name string) string {
	t.Helper()
	var c struct {
		ID string `json:"Id"`
	}
	if err := v.e.Client.Do(ctxFor(t), http.MethodPost, "/containers/create", url.Values{"name": {name}},
		map[string]any{"Image": v.plain.Pinned(), "Labels": map[string]string{"team": "other"}, "HostConfig": map[string]any{"NetworkMode": "none"}}, &c); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func owner(agent string, deployment int) runtime.Owner {
	return runtime.Owner{Organization: "acme", Region: "local", Agent: agent, Deployment: deployment}
}

func profile1x(t *testing.T) runtime.Profile {
	p, ok := runtime.LookupProfile(runtime.ProfileAgent1x)
	if !ok {
		t.Fatal("no agent-1x profile")
	}
	return p
}

// settleNow ends the settle at once: the agents' state is looked at again
// straight away.
func settleNow(context.Context) error { return nil }

// settleAfterExit ends the settle once every agent of sel has exited, so
// that a crash is seen whatever the interleaving of the start and the exit.
func settleAfterExit(rt runtime.Runtime, sel runtime.Selector) func(context.Context) error {
	return func(ctx context.Context) error {
		for {
			agents, err := rt.List(ctx, sel)
			if err != nil {
				return err
			}
			exited := 0
			for _, a := range agents {
				if a.State == runtime.StateExited {
					exited++
				}
			}
			if exited == len(agents) {
				return nil
			}
			if err := runtime.Sleep(50 * time.Millisecond)(ctx); err != nil {
				return err
			}
		}
	}
}

// start starts agents and waits until they are ready.
func (v *env) start(t *testing.T, spec runtime.StartSpec) []runtime.Agent {
	t.Helper()
	ctx := ctxFor(t)
	if spec.Image == "" {
		spec.Image = v.plain.Pinned()
	}
	if spec.Profile.Name == "" {
		spec.Profile = profile1x(t)
	}
	if spec.Network == "" {
		spec.Network = "none"
	}
	if spec.Restart.Name == "" {
		spec.Restart = runtime.RestartPolicy{Name: runtime.RestartNever}
	}
	started, err := v.rt.Start(ctx, spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if len(started) != spec.Count {
		t.Fatalf("Start returned %d agents, want %d", len(started), spec.Count)
	}
	ready, err := runtime.WaitReady(ctx, v.rt, runtime.ForOwner(spec.Owner), spec.Count, runtime.Readiness{Settle: settleNow, Then: &runtime.DefaultRestart})
	if err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	return ready
}

// waitLine follows an agent's log until a line contains s.
func (v *env) waitLine(t *testing.T, a runtime.Agent, since time.Time, s string) {
	t.Helper()
	ctx := ctxFor(t)
	found := errors.New("found")
	err := v.rt.Logs(ctx, []runtime.Agent{a}, runtime.LogOptions{Follow: true, Since: since}, func(l runtime.LogLine) error {
		if strings.Contains(l.Text, s) {
			return found
		}
		return nil
	})
	if err != found {
		t.Fatalf("agent %s never wrote %q (logs: %v)", a.Name, s, err)
	}
}

func (v *env) lines(t *testing.T, a runtime.Agent, opts runtime.LogOptions) []runtime.LogLine {
	t.Helper()
	var out []runtime.LogLine
	if err := v.rt.Logs(ctxFor(t), []runtime.Agent{a}, opts, func(l runtime.LogLine) error {
		out = append(out, l)
		return nil
	}); err != nil {
		t.Fatalf("Logs: %v", err)
	}
	return out
}

func texts(lines []runtime.LogLine) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.Text)
	}
	return out
}

// inspected is what the engine's inspect says of a container's lockdown.
type inspected struct {
	Config struct {
		Env    []string
		Labels map[string]string
	}
	HostConfig struct {
		Privileged      bool
		CapAdd          []string
		CapDrop         []string
		SecurityOpt     []string
		Memory          int64
		MemorySwap      int64
		NanoCpus        int64
		PidsLimit       *int64
		NetworkMode     string
		PidMode         string
		IpcMode         string
		UTSMode         string
		UsernsMode      string
		Binds           []string
		Mounts          []any
		PublishAllPorts bool
		RestartPolicy   struct {
			Name              string
			MaximumRetryCount int
		}
	}
	Mounts []any
}

func (v *env) inspect(t *testing.T, id string) inspected {
	t.Helper()
	var c inspected
	if err := v.e.Client.Do(ctxFor(t), http.MethodGet, "/containers/"+id+"/json", nil, nil, &c); err != nil {
		t.Fatalf("inspect %s: %v", id, err)
	}
	return c
}

func TestEngine(t *testing.T) {
	v := newEnv(t)

	t.Run("Pull", func(t *testing.T) {
		ctx := ctxFor(t)
		// The engine holds no login: without credentials the registry
		// refuses. (The tag: the engine has the image by digest already,
		// and does not ask the registry again for a digest it has.)
		if err := v.rt.Pull(ctx, v.plain.Ref, nil); runtime.ReasonOf(err) != runtime.ReasonUnauthorized {
			t.Errorf("pull without credentials: %v, want %s", err, runtime.ReasonUnauthorized)
		}
		wrong := *v.creds
		wrong.Password = "wrong"
		err := v.rt.Pull(ctx, v.plain.Ref, &wrong)
		if runtime.ReasonOf(err) != runtime.ReasonUnauthorized {
			t.Errorf("pull with a wrong password: %v, want %s", err, runtime.ReasonUnauthorized)
		}
		if err != nil && strings.Contains(err.Error(), "wrong") {
			t.Errorf("the error shows the password: %v", err)
		}
		if err := v.rt.Pull(ctx, v.host+"/acme/nothere:1", v.creds); runtime.ReasonOf(err) != runtime.ReasonImageNotFound {
			t.Errorf("pull of a missing image: %v, want %s", err, runtime.ReasonImageNotFound)
		}
		if _, err := v.rt.ImageDigest(ctx, v.plain.Ref); runtime.ReasonOf(err) != runtime.ReasonImageNotFound {
			t.Errorf("digest of an image not pulled: %v, want %s", err, runtime.ReasonImageNotFound)
		}
		for _, img := range []dockertest.Image{v.plain, v.health} {
			if err := v.rt.Pull(ctx, img.Ref, v.creds); err != nil {
				t.Fatalf("pull %s: %v", img.Ref, err)
			}
			d, err := v.rt.ImageDigest(ctx, img.Ref)
			if err != nil || d != img.Digest {
				t.Errorf("ImageDigest(%s) = %q, %v; want the pushed %s", img.Ref, d, err, img.Digest)
			}
			if err := v.rt.Pull(ctx, img.Pinned(), v.creds); err != nil {
				t.Errorf("pull %s: %v", img.Pinned(), err)
			}
		}
	})

	t.Run("StartEnvLockdown", func(t *testing.T) {
		o := owner("support", 1)
		agents := v.start(t, runtime.StartSpec{Owner: o, Count: 3,
			Env: map[string]string{"API_KEY": canary, "OTHER": "x", "BOTKIT_TEST_PRINT": "API_KEY"}})
		p := profile1x(t)
		for i, a := range agents {
			if a.State != runtime.StateRunning || a.Owner != o || a.Index != i {
				t.Errorf("agent %d: %+v", i, a)
			}
			v.waitLine(t, a, time.Time{}, "ready")
			var names []string
			var echoed bool
			for _, l := range v.lines(t, a, runtime.LogOptions{}) {
				if rest, ok := strings.CutPrefix(l.Text, "env: "); ok {
					for _, n := range strings.Split(rest, ",") {
						if n != "PATH" && n != "HOSTNAME" && n != "HOME" {
							names = append(names, n)
						}
					}
				}
				echoed = echoed || l.Text == "value of API_KEY: "+canary
				if l.Agent.ID != a.ID || l.Agent.Name != a.Name {
					t.Errorf("line %q tagged with %s, want %s", l.Text, l.Agent.Name, a.Name)
				}
			}
			if want := []string{"API_KEY", "BOTKIT_TEST_PRINT", "OTHER", "PORT"}; !slices.Equal(names, want) {
				t.Errorf("agent %s sees the variables %v, want %v", a.Name, names, want)
			}
			if !echoed {
				t.Errorf("agent %s did not see API_KEY's value", a.Name)
			}

			c := v.inspect(t, a.ID)
			hc := c.HostConfig
			if hc.Privileged || len(hc.CapAdd) != 0 || !slices.Equal(hc.CapDrop, []string{"ALL"}) {
				t.Errorf("privileges: privileged %v, cap add %v, cap drop %v", hc.Privileged, hc.CapAdd, hc.CapDrop)
			}
			if !slices.Contains(hc.SecurityOpt, "no-new-privileges") {
				t.Errorf("security options %v lack no-new-privileges", hc.SecurityOpt)
			}
			if hc.Memory != p.MemoryBytes || hc.MemorySwap != p.MemoryBytes || hc.NanoCpus != p.NanoCPUs || hc.PidsLimit == nil || *hc.PidsLimit != p.PIDs {
				t.Errorf("limits: memory %d swap %d cpus %d pids %v; want the profile %+v", hc.Memory, hc.MemorySwap, hc.NanoCpus, hc.PidsLimit, p)
			}
			if hc.NetworkMode != "none" || hc.PidMode != "" || hc.IpcMode != "private" || hc.UTSMode != "" || hc.UsernsMode != "" {
				t.Errorf("namespaces: network %q pid %q ipc %q uts %q userns %q", hc.NetworkMode, hc.PidMode, hc.IpcMode, hc.UTSMode, hc.UsernsMode)
			}
			if len(hc.Binds) != 0 || len(hc.Mounts) != 0 || len(c.Mounts) != 0 || hc.PublishAllPorts {
				t.Errorf("mounts: binds %v, mounts %v %v, publish all %v", hc.Binds, hc.Mounts, c.Mounts, hc.PublishAllPorts)
			}
			// Ready: the agent has its policy (it started with "no").
			if hc.RestartPolicy.Name != runtime.RestartUnlessStopped {
				t.Errorf("restart policy %q after ready, want %q", hc.RestartPolicy.Name, runtime.RestartUnlessStopped)
			}
			for k, want := range o.Labels(i) {
				if c.Config.Labels[k] != want {
					t.Errorf("label %s = %q, want %q", k, c.Config.Labels[k], want)
				}
			}
		}
	})

	// Two platforms starting on one engine at once may both make the
	// agents' network: the engine's duplicate check does not hold against
	// creates at the same moment. An agent still starts on the one every
	// platform keeps. (The engine kept the container's network by name and
	// resolved it again at start: "network … is ambiguous".)
	t.Run("DuplicateNetworks", func(t *testing.T) {
		ctx := ctxFor(t)
		const name = "botkit-agents-dup"
		var list []struct{ ID, Name string }
		for range 5 {
			var wg sync.WaitGroup
			for range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_ = v.e.Client.Do(ctx, http.MethodPost, "/networks/create", nil, map[string]any{"Name": name, "CheckDuplicate": true}, nil) // error ignored: the engine's duplicate check refuses some
				}()
			}
			wg.Wait()
			list = nil
			if err := v.e.Client.Do(ctx, http.MethodGet, "/networks", url.Values{"filters": {`{"name":["` + name + `"]}`}}, nil, &list); err != nil {
				t.Fatal(err)
			}
			if len(list) >= 2 {
				break
			}
		}
		if len(list) < 2 {
			t.Fatalf("the engine made %d networks of the name from concurrent creates, want two or more to test with", len(list))
		}
		o := owner("dupnet", 1)
		started, err := v.rt.Start(ctx, runtime.StartSpec{Owner: o, Count: 1, Image: v.plain.Pinned(), Profile: profile1x(t),
			Restart: runtime.RestartPolicy{Name: runtime.RestartNever}, Network: name})
		if err != nil {
			t.Fatalf("Start on a network of a name two networks have: %v", err)
		}
		t.Cleanup(func() {
			for _, a := range started {
				_ = v.rt.Remove(context.Background(), a.ID, time.Second) // error ignored: cleanup
			}
			for _, n := range list {
				_ = v.e.Client.Do(context.Background(), http.MethodDelete, "/networks/"+n.ID, nil, nil, nil) // error ignored: cleanup
			}
		})
		if len(started) != 1 || started[0].State != runtime.StateRunning || started[0].Endpoint == "" {
			t.Errorf("the agent on the duplicated network: %+v", started)
		}
	})

	t.Run("ListOnlyOurs", func(t *testing.T) {
		ctx := ctxFor(t)
		// A container the platform does not own, and an agent of another
		// organization with the same name.
		foreign := v.foreign(t, "not-ours")
		ours := v.start(t, runtime.StartSpec{Owner: owner("listed", 1), Count: 2})
		other := runtime.Owner{Organization: "globex", Region: "local", Agent: "listed", Deployment: 1}
		theirs := v.start(t, runtime.StartSpec{Owner: other, Count: 1})

		ids := func(agents []runtime.Agent) []string {
			var out []string
			for _, a := range agents {
				out = append(out, a.ID)
			}
			slices.Sort(out)
			return out
		}
		mine, err := v.rt.List(ctx, runtime.ForOwner(owner("listed", 0)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(mine), ids(ours)) {
			t.Errorf("acme's listed agents: %v, want %v", ids(mine), ids(ours))
		}
		all, err := v.rt.List(ctx, runtime.Selector{})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range append(ours, theirs...) {
			if !slices.Contains(ids(all), want.ID) {
				t.Errorf("the platform's agents lack %s", want.Name)
			}
		}
		if slices.Contains(ids(all), foreign) {
			t.Errorf("the platform lists a container without its labels")
		}
		// Removing globex's agent leaves acme's and the other container.
		if err := v.rt.Remove(ctx, theirs[0].ID, time.Second); err != nil {
			t.Fatal(err)
		}
		if mine, err := v.rt.List(ctx, runtime.ForOwner(owner("listed", 0))); err != nil || len(mine) != 2 {
			t.Errorf("acme's agents after removing globex's: %d, %v", len(mine), err)
		}
		if err := v.e.Client.Do(ctx, http.MethodGet, "/containers/"+foreign+"/json", nil, nil, nil); err != nil {
			t.Errorf("the foreign container: %v", err)
		}
	})

	t.Run("Logs", func(t *testing.T) {
		ctx := ctxFor(t)
		a := v.start(t, runtime.StartSpec{Owner: owner("logs", 1), Count: 1, Env: map[string]string{"BOTKIT_TEST_LINES": "5"}})[0]
		v.waitLine(t, a, time.Time{}, "ready")
		if got, want := texts(v.lines(t, a, runtime.LogOptions{Tail: 3})), []string{"line 4", "line 5", "ready"}; !slices.Equal(got, want) {
			t.Errorf("tail 3: %q, want %q", got, want)
		}

		// stdout and stderr are separate pipes (their order is not kept):
		// each line says which it came from.
		e := v.start(t, runtime.StartSpec{Owner: owner("stderr", 1), Count: 1, Env: map[string]string{"BOTKIT_TEST_STDERR": "to stderr"}})[0]
		v.waitLine(t, e, time.Time{}, "to stderr")
		v.waitLine(t, e, time.Time{}, "ready")
		for _, l := range v.lines(t, e, runtime.LogOptions{}) {
			if want := runtime.Stdout; l.Text == "to stderr" {
				want = runtime.Stderr
				if l.Stream != want {
					t.Errorf("%q on %s, want %s", l.Text, l.Stream, want)
				}
			} else if l.Stream != want {
				t.Errorf("%q on %s, want %s", l.Text, l.Stream, want)
			}
			if l.Time.IsZero() {
				t.Errorf("%q has no time", l.Text)
			}
		}

		// Restart: the agent runs again; since its new start, one run's lines.
		if err := v.rt.Restart(ctx, a.ID, time.Second); err != nil {
			t.Fatal(err)
		}
		after, err := v.rt.List(ctx, runtime.ForOwner(owner("logs", 1)))
		if err != nil || len(after) != 1 {
			t.Fatalf("after restart: %v, %v", after, err)
		}
		if after[0].State != runtime.StateRunning || !after[0].StartedAt.After(a.StartedAt) {
			t.Fatalf("after restart: state %s, started %v (before %v)", after[0].State, after[0].StartedAt, a.StartedAt)
		}
		// The boundary between the runs: just after the first run's last
		// line (the engine stamps a line when it reads it, which may be
		// before it records the second run's start).
		var boundary time.Time
		for _, l := range v.lines(t, a, runtime.LogOptions{}) {
			if l.Text == "stopping" {
				boundary = l.Time.Add(time.Nanosecond)
			}
		}
		if boundary.IsZero() {
			t.Fatal("the first run wrote no \"stopping\" line on SIGTERM")
		}
		v.waitLine(t, a, boundary, "ready")
		count := func(lines []runtime.LogLine) int {
			n := 0
			for _, l := range lines {
				if l.Text == "agent started" {
					n++
				}
			}
			return n
		}
		if n := count(v.lines(t, a, runtime.LogOptions{})); n != 2 {
			t.Errorf("all lines: %d starts, want 2", n)
		}
		since := v.lines(t, a, runtime.LogOptions{Since: boundary})
		if n := count(since); n != 1 {
			t.Errorf("since the restart: %d starts, want 1 (%q)", n, texts(since))
		}
		if got := texts(since); slices.Contains(got, "stopping") {
			t.Errorf("since the restart: the first run's stop line is there: %q", got)
		}

		// Follow: two ticking agents, each line tagged with its agent.
		tickers := v.start(t, runtime.StartSpec{Owner: owner("ticker", 1), Count: 2, Env: map[string]string{"BOTKIT_TEST_TICK": "1"}})
		seen := map[string]bool{}
		enough := errors.New("enough")
		err = v.rt.Logs(ctx, tickers, runtime.LogOptions{Follow: true}, func(l runtime.LogLine) error {
			if strings.HasPrefix(l.Text, "tick ") {
				seen[l.Agent.Name] = true
			}
			if len(seen) == 2 {
				return enough
			}
			return nil
		})
		if err != enough {
			t.Errorf("follow: %v; ticks seen from %v", err, seen)
		}
		for _, tk := range tickers {
			if !seen[tk.Name] {
				t.Errorf("follow: no tick from %s", tk.Name)
			}
		}
		// Following ends with its context.
		fctx, cancel := context.WithCancel(ctx)
		err = v.rt.Logs(fctx, tickers[:1], runtime.LogOptions{Follow: true, Tail: 1}, func(l runtime.LogLine) error {
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("follow after cancel: %v, want context.Canceled", err)
		}
	})

	t.Run("Crash", func(t *testing.T) {
		ctx := ctxFor(t)
		o := owner("crashy", 1)
		if _, err := v.rt.Start(ctx, runtime.StartSpec{Owner: o, Count: 1, Image: v.plain.Pinned(), Profile: profile1x(t), Network: "none",
			Restart: runtime.RestartPolicy{Name: runtime.RestartNever}, Env: map[string]string{"BOTKIT_TEST_EXIT": "1", "BOTKIT_TEST_LINES": "2"}}); err != nil {
			t.Fatal(err)
		}
		_, err := runtime.WaitReady(ctx, v.rt, runtime.ForOwner(o), 1, runtime.Readiness{Settle: settleAfterExit(v.rt, runtime.ForOwner(o))})
		var re *runtime.Error
		if !errors.As(err, &re) || re.Reason != runtime.ReasonCrashed {
			t.Fatalf("WaitReady of a crashing agent: %v, want %s", err, runtime.ReasonCrashed)
		}
		if re.ExitCode != 1 || len(re.LastLines) < 3 || !slices.Equal(re.LastLines[len(re.LastLines)-3:], []string{"line 1", "line 2", "exiting with 1"}) {
			t.Errorf("crash: exit %d, last lines %q", re.ExitCode, re.LastLines)
		}
	})

	t.Run("OOM", func(t *testing.T) {
		ctx := ctxFor(t)
		o := owner("hungry", 1)
		small := runtime.Profile{Name: "test-small", NanoCPUs: 500_000_000, MemoryBytes: 32 << 20, PIDs: 64}
		if _, err := v.rt.Start(ctx, runtime.StartSpec{Owner: o, Count: 1, Image: v.plain.Pinned(), Profile: small, Network: "none",
			Restart: runtime.RestartPolicy{Name: runtime.RestartNever}, Env: map[string]string{"BOTKIT_TEST_ALLOC_MB": "256"}}); err != nil {
			t.Fatal(err)
		}
		_, err := runtime.WaitReady(ctx, v.rt, runtime.ForOwner(o), 1, runtime.Readiness{Settle: settleAfterExit(v.rt, runtime.ForOwner(o))})
		var re *runtime.Error
		if !errors.As(err, &re) || re.Reason != runtime.ReasonOOMKilled {
			t.Fatalf("WaitReady of an agent past its memory: %v, want %s", err, runtime.ReasonOOMKilled)
		}
		if !slices.Contains(re.LastLines, "allocating 256 MiB") || slices.Contains(re.LastLines, "allocated 256 MiB") {
			t.Errorf("OOM: last lines %q", re.LastLines)
		}
	})

	t.Run("Healthcheck", func(t *testing.T) {
		ctx := ctxFor(t)
		a := v.start(t, runtime.StartSpec{Owner: owner("healthy", 1), Count: 1, Image: v.health.Pinned()})[0]
		if a.Health != runtime.HealthHealthy {
			t.Errorf("ready agent's health %q, want healthy", a.Health)
		}
		o := owner("sick", 1)
		if _, err := v.rt.Start(ctx, runtime.StartSpec{Owner: o, Count: 1, Image: v.health.Pinned(), Profile: profile1x(t), Network: "none",
			Restart: runtime.RestartPolicy{Name: runtime.RestartNever}, Env: map[string]string{"BOTKIT_TEST_UNHEALTHY": "1"}}); err != nil {
			t.Fatal(err)
		}
		_, err := runtime.WaitReady(ctx, v.rt, runtime.ForOwner(o), 1, runtime.Readiness{Settle: settleNow})
		if runtime.ReasonOf(err) != runtime.ReasonUnhealthy {
			t.Errorf("WaitReady of an unhealthy agent: %v, want %s", err, runtime.ReasonUnhealthy)
		}
	})

	t.Run("RemoveLeavesNothing", func(t *testing.T) {
		ctx := ctxFor(t)
		foreign := v.foreign(t, "not-ours-either")
		v.start(t, runtime.StartSpec{Owner: owner("removed", 1), Count: 2})
		all, err := v.rt.List(ctx, runtime.Selector{})
		if err != nil || len(all) < 2 {
			t.Fatalf("the platform's agents: %d, %v", len(all), err)
		}
		for _, a := range all {
			if err := v.rt.Remove(ctx, a.ID, time.Second); err != nil {
				t.Errorf("Remove %s: %v", a.Name, err)
			}
		}
		if err := v.rt.Remove(ctx, all[0].ID, time.Second); err != nil {
			t.Errorf("Remove of a removed agent: %v", err)
		}
		if left, err := v.rt.List(ctx, runtime.Selector{}); err != nil || len(left) != 0 {
			t.Errorf("after Remove: %d agents, %v", len(left), err)
		}
		// The engine itself: no container with the platform's label, and
		// the other container untouched.
		var list []struct {
			ID     string `json:"Id"`
			Labels map[string]string
		}
		if err := v.e.Client.Do(ctx, http.MethodGet, "/containers/json", url.Values{"all": {"1"}}, nil, &list); err != nil {
			t.Fatal(err)
		}
		kept := false
		for _, c := range list {
			if _, ok := c.Labels[runtime.LabelManaged]; ok {
				t.Errorf("container %s with the platform's label is left", c.ID)
			}
			kept = kept || c.ID == foreign
		}
		if !kept {
			t.Error("removing the platform's agents removed a container it does not own")
		}
	})

	// Last: an engine that stops answering (SIGSTOP) is given up on by
	// every call, after its bound, naming the engine and the call.
	t.Run("Frozen", func(t *testing.T) {
		a := v.start(t, runtime.StartSpec{Owner: owner("frozen", 1), Count: 1})[0]
		rt, err := docker.NewRuntime(v.e.Host)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		rt.Timeouts = docker.Timeouts{Quick: time.Second, Call: 2 * time.Second, Answer: 2 * time.Second, StreamIdle: 2 * time.Second, Pull: 4 * time.Second}
		if err := rt.Ping(ctxFor(t)); err != nil {
			t.Fatal(err)
		}
		v.e.Freeze(t)
		spec := runtime.StartSpec{Owner: owner("frozen", 2), Count: 1, Image: v.plain.Pinned(), Profile: profile1x(t), Network: "none"}
		for name, call := range map[string]func(context.Context) error{
			"Ping":   rt.Ping,
			"List":   func(ctx context.Context) error { _, err := rt.List(ctx, runtime.Selector{}); return err },
			"Start":  func(ctx context.Context) error { _, err := rt.Start(ctx, spec); return err },
			"Remove": func(ctx context.Context) error { return rt.Remove(ctx, a.ID, time.Second) },
			"Logs": func(ctx context.Context) error {
				return rt.Logs(ctx, []runtime.Agent{a}, runtime.LogOptions{}, func(runtime.LogLine) error { return nil })
			},
			"Pull": func(ctx context.Context) error { return rt.Pull(ctx, v.plain.Ref, v.creds) },
		} {
			done := make(chan error, 1)
			go func() { done <- call(context.Background()) }()
			err := testenv.Within(t, name+" on a frozen engine", done)
			if runtime.ReasonOf(err) != runtime.ReasonUnreachable {
				t.Errorf("%s on a frozen engine: %v, want %s", name, err, runtime.ReasonUnreachable)
			} else if msg := err.Error(); !strings.Contains(msg, v.e.Host) || !strings.Contains(msg, "no answer within") {
				t.Errorf("%s on a frozen engine: %q names neither the engine nor what it waited for", name, msg)
			}
		}
	})
}

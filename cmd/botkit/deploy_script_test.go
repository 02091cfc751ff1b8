package main

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// TestDeploy runs the deploy scenarios (testdata/deploy) on the embedded
// platform, which runs agents on the engine DOCKER_HOST names: a private
// Docker Engine, with the test agent image in a real docker-registry that
// only the image pull secret's credentials open.
func TestDeploy(t *testing.T) {
	testscript.Run(t, deployParams(t, false))
}

// TestDeployRemote runs the same scenarios against the real
// botkit-platform serve --runtime us-west=docker://SOCKET.
func TestDeployRemote(t *testing.T) {
	platformBinary(t)
	testscript.Run(t, deployParams(t, true))
}

func deployParams(t *testing.T, remote bool) testscript.Params {
	dockertest.Need(t)
	registrytest.Need(t)
	engine := dockertest.Start(t)
	reg, err := registrytest.Start(t.TempDir(), "robot", canary)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	host := strings.TrimPrefix(reg.URL, "http://")
	img1 := engine.PushAgent(t, host, "acme/voice:1", "robot", canary, dockertest.ImageOptions{})
	img2 := engine.PushAgent(t, host, "acme/voice:2", "robot", canary, dockertest.ImageOptions{Healthcheck: true})
	crash := engine.PushAgent(t, host, "acme/voice:crash", "robot", canary, dockertest.ImageOptions{Exit: 3})

	p := params(t, "testdata/deploy", false)
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		for k, v := range map[string]string{
			"REGISTRY_HOST": host, "IMAGE1": img1.Ref, "DIGEST1": img1.Digest, "IMAGE2": img2.Ref, "DIGEST2": img2.Digest,
			"DOCKER_HOST": engine.Host, "ENGINE_HOST": engine.Host, "IMAGE_CRASH": crash.Ref,
		} {
			env.Setenv(k, v)
		}
		if remote {
			socket := strings.TrimPrefix(engine.Host, "unix://")
			rp, err := startPlatform(t, env.WorkDir, filepath.Join(env.WorkDir, "platform"), "acme",
				"--runtime", "us-west=docker://"+socket, "--agent-settle", "500ms")
			if err != nil {
				return err
			}
			env.Defer(rp.stop)
			env.Setenv("BOTKIT_API_URL", rp.url)
			env.Setenv("BOTKIT_TOKEN", rp.token)
			env.Setenv("ORG", "acme")
			env.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock") // the CLI never reaches the engine itself
		}
		return nil
	}
	cond := p.Condition
	p.Condition = func(c string) (bool, error) {
		switch c {
		case "remote":
			return remote, nil
		case "embedded":
			return !remote, nil
		}
		return cond(c)
	}
	// containers AGENT N: the engine runs N containers of agent AGENT
	// (every state), the platform's labels say, once the platform's
	// controller has acted (a served platform acts beside the requests:
	// waited for, a minute at most).
	p.Cmds["containers"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: containers AGENT N")
		}
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		q := url.Values{"all": {"1"}, "filters": {`{"label":["` + runtime.LabelAgent + `=` + args[0] + `"]}`}}
		for deadline := time.Now().Add(time.Minute); ; {
			var list []struct {
				ID string `json:"Id"`
			}
			ts.Check(engine.Client.Do(context.Background(), http.MethodGet, "/containers/json", q, nil, &list))
			if len(list) == want {
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("the engine has %d containers of agent %s, want %d", len(list), args[0], want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// running AGENT N: wait (a minute at most) until the engine runs
	// exactly N containers of agent AGENT (of whichever platform).
	p.Cmds["running"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: running AGENT N")
		}
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		for deadline := time.Now().Add(time.Minute); ; {
			if got := len(agentContainers(ts, engine, args[0], "running")); got == want {
				return
			} else if time.Now().After(deadline) {
				ts.Fatalf("the engine runs %d containers of agent %s, want %d", got, args[0], want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// enginekill AGENT: kill one running container of agent AGENT through
	// the engine's API (as docker kill does: SIGKILL, exit 137), and wait
	// until the engine no longer runs it.
	p.Cmds["enginekill"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: enginekill AGENT")
		}
		ids := agentContainers(ts, engine, args[0], "running")
		if len(ids) == 0 {
			ts.Fatalf("no running container of agent %s to kill", args[0])
		}
		ctx := context.Background()
		ts.Check(engine.Client.Do(ctx, http.MethodPost, "/containers/"+ids[0]+"/kill", nil, nil, nil))
		for deadline := time.Now().Add(time.Minute); slices.Contains(agentContainers(ts, engine, args[0], "running"), ids[0]); {
			if time.Now().After(deadline) {
				ts.Fatalf("container %s still runs a minute after its kill", ids[0])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// waitcontainer AGENT DEPLOYMENT STATE: wait (a minute at most) until
	// the engine has a container of that deployment of agent AGENT in
	// STATE (created, running, exited...).
	p.Cmds["waitcontainer"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: waitcontainer AGENT DEPLOYMENT STATE")
		}
		q := url.Values{"all": {"1"}, "filters": {`{"label":["` + runtime.LabelAgent + `=` + args[0] + `","` + runtime.LabelDeployment + `=` + args[1] + `"],"status":["` + args[2] + `"]}`}}
		for deadline := time.Now().Add(time.Minute); ; {
			var list []struct {
				ID string `json:"Id"`
			}
			ts.Check(engine.Client.Do(context.Background(), http.MethodGet, "/containers/json", q, nil, &list))
			if len(list) > 0 {
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("no %s container of deployment %s of agent %s after a minute", args[2], args[1], args[0])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return p
}

// agentContainers returns the IDs of the engine's containers of agent
// (every platform's) in state ("": every state).
func agentContainers(ts *testscript.TestScript, engine *dockertest.Engine, agent, state string) []string {
	filters := `{"label":["` + runtime.LabelAgent + `=` + agent + `"]`
	if state != "" {
		filters += `,"status":["` + state + `"]`
	}
	q := url.Values{"all": {"1"}, "filters": {filters + "}"}}
	var list []struct {
		ID string `json:"Id"`
	}
	ts.Check(engine.Client.Do(context.Background(), http.MethodGet, "/containers/json", q, nil, &list))
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = c.ID
	}
	return ids
}

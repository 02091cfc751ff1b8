package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// sessionCanary is a secret value the session's agents run with.
const sessionCanary = "canary-serve-session-7c2e"

// The real binary killed with SIGKILL while two sessions are active: their
// agents run on and their sessions go on (the stand-in's /bot is not
// ended by its caller going away, as the base image's is not); a new serve
// on the same data directory adopts them — active, their agents neither
// removed nor counted idle, the pool refilled beside them, the proxy
// reaching them — and records their ends: a crash (failed, with how its
// agent ended) and a stop through the API (ended). The secret value and
// the public key are in no log line, answer or file of the data directory.
func TestServeKilledMidSession(t *testing.T) {
	e, host, img := engineWithAgent(t, "registry-pass-s9", dockertest.ImageOptions{Standin: true})
	rt, err := docker.NewRuntime(e.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	dir := t.TempDir()
	tok := newOrg(t, dir, "acme")
	serve := func() (*server, *client.Client) {
		s := startServer(t, dir, "--runtime", "us-west=docker://"+strings.TrimPrefix(e.Host, "unix://"),
			"--agent-settle", "300ms", "--allow-private-registries")
		c, err := client.New(client.Options{BaseURL: s.url, Token: tok})
		if err != nil {
			t.Fatal(err)
		}
		return s, c
	}
	ctx := context.Background()
	s, c := serve()
	if _, _, err := c.Merge(ctx, "acme", "bot-secrets", resources.Patch{Set: map[string]string{"API_KEY": sessionCanary, standinapi.PrintEnv: "API_KEY"}}, ""); err != nil {
		t.Fatal(err)
	}
	creds := "bot:registry-pass-s9"
	if _, _, err := c.Merge(ctx, "acme", "reg", resources.Patch{Kind: resources.KindImagePullSecret, Host: host, Credentials: &creds}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitAll(ctx, "acme", []string{"bot-secrets", "reg"}); err != nil {
		t.Fatal(err)
	}
	a := resources.Agent{Metadata: resources.ObjectMeta{Name: "bot"}, Spec: resources.AgentSpec{Image: img.Ref, ImagePullSecret: "reg",
		SecretSet: "bot-secrets", Scaling: &resources.AgentScaling{MinAgents: 1, MaxAgents: 3}}}
	d, err := c.Deploy(ctx, "acme", "bot", resources.DeployRequest{Agent: &a})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = c.WaitRollout(ctx, "acme", "bot", d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		t.Fatalf("rollout: %+v %v", d, err)
	}
	k, err := c.CreatePublicKey(ctx, "acme", resources.PublicKeyRequest{Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	public := func(base, method, path, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+k.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), sessionCanary) || strings.Contains(string(b), k.Key) {
			t.Errorf("%s %s: the answer holds a secret", method, path)
		}
		return resp.StatusCode, b
	}
	var ids []string
	for i := range 2 {
		code, b := public(s.url, http.MethodPost, "/v1/public/bot/start", fmt.Sprintf(`{"body":{"call":%d}}`, i))
		var out resources.SessionStarted
		if err := json.Unmarshal(b, &out); code != http.StatusOK || err != nil {
			t.Fatalf("start: %d %s", code, b)
		}
		ids = append(ids, out.SessionID)
	}
	// The agent of each session, as the stand-ins recorded them.
	agentOf := map[string]runtime.Agent{}
	testenv.Eventually(t, "the agents of both sessions", func() bool {
		cs, err := rt.List(ctx, runtime.Selector{runtime.LabelOrganization: "acme", runtime.LabelAgent: "bot"})
		if err != nil {
			return false
		}
		for _, x := range cs {
			recs, err := (dockertest.Standin{Endpoint: x.Endpoint}).Sessions(ctx)
			if err != nil {
				continue
			}
			for _, r := range recs {
				if r.Kind == standinapi.KindBot {
					agentOf[r.ID] = x
				}
			}
		}
		return len(agentOf) == 2
	})
	for _, id := range ids {
		testenv.Eventually(t, "session "+id+" active", func() bool {
			ss, err := c.Session(ctx, "acme", "bot", id)
			return err == nil && ss.State == resources.SessionActive
		})
	}

	s.kill9()
	// The sessions go on without the platform: their agents run, their
	// /bot still open.
	for _, id := range ids {
		st := dockertest.Standin{Endpoint: agentOf[id].Endpoint}
		recs, err := st.Sessions(ctx)
		if err != nil {
			t.Fatalf("the agent of %s after the platform's kill: %v", id, err)
		}
		if i := slices.IndexFunc(recs, func(r standinapi.Session) bool { return r.ID == id }); i < 0 || recs[i].State != standinapi.StateActive {
			t.Errorf("session %s on its agent after the platform's kill: %+v", id, recs)
		}
	}

	s2, c2 := serve()
	for _, id := range ids {
		if ss, err := c2.Session(ctx, "acme", "bot", id); err != nil || ss.State != resources.SessionActive {
			t.Errorf("session %s after the restart: %+v %v", id, ss, err)
		}
	}
	// Adopted: both agents in a session, one idle beside them.
	testenv.Eventually(t, "the pool refilled beside the adopted sessions", func() bool {
		st, err := c2.AgentStatus(ctx, "acme", "bot")
		return err == nil && st.Agent.Status.Pool != nil && *st.Agent.Status.Pool == resources.AgentPool{InSession: 2, Idle: 1, Max: 3}
	})
	cs, err := rt.List(ctx, runtime.Selector{runtime.LabelOrganization: "acme", runtime.LabelAgent: "bot"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if !slices.ContainsFunc(cs, func(x runtime.Agent) bool { return x.ID == agentOf[id].ID && x.State == runtime.StateRunning }) {
			t.Errorf("the agent of session %s does not run after the restart", id)
		}
	}
	if len(cs) != 3 {
		t.Errorf("%d agents after the restart, want 3 (2 in a session, 1 idle)", len(cs))
	}
	// The new platform's proxy reaches an adopted session's agent.
	if code, b := public(s2.url, http.MethodPost, "/v1/public/bot/sessions/"+ids[0]+"/api/offer", `{"sdp":"x","type":"offer","pc_id":"pc-9"}`); code != http.StatusOK || !strings.Contains(string(b), "pc-9") {
		t.Errorf("offer to an adopted session: %d %s", code, b)
	}

	// The first session's agent crashes: failed, with how it ended.
	if err := (dockertest.Standin{Endpoint: agentOf[ids[0]].Endpoint}).Crash(ctx, 5); err != nil {
		t.Logf("crash: %v", err) // the agent may be gone before its answer
	}
	var ss resources.Session
	testenv.Eventually(t, "the crashed session failed", func() bool {
		ss, err = c2.Session(ctx, "acme", "bot", ids[0])
		return err == nil && ss.State == resources.SessionFailed
	})
	if !strings.Contains(ss.EndReason, "exited 5") || ss.EndedAt == nil || strings.Contains(ss.EndReason, sessionCanary) {
		t.Errorf("the crashed session: %+v", ss)
	}
	// The second is stopped through the API: ended, its agent removed.
	if ss, err := c2.StopSession(ctx, "acme", "bot", ids[1]); err != nil || ss.State != resources.SessionEnded || !strings.Contains(ss.EndReason, "stopped by") {
		t.Errorf("stop of an adopted session: %+v %v", ss, err)
	}
	testenv.Eventually(t, "the adopted agents removed, one idle left", func() bool {
		cs, err := rt.List(ctx, runtime.Selector{runtime.LabelOrganization: "acme", runtime.LabelAgent: "bot"})
		if err != nil || len(cs) != 1 {
			return false
		}
		return cs[0].ID != agentOf[ids[0]].ID && cs[0].ID != agentOf[ids[1]].ID
	})
	testenv.Eventually(t, "the pool: one idle agent", func() bool {
		st, err := c2.AgentStatus(ctx, "acme", "bot")
		return err == nil && st.Agent.Status.Pool != nil && *st.Agent.Status.Pool == resources.AgentPool{Idle: 1, Max: 3}
	})

	for _, srv := range []*server{s, s2} {
		if l := srv.log(); strings.Contains(l, sessionCanary) || strings.Contains(l, k.Key) {
			t.Errorf("a server log holds a secret:\n%s", l)
		}
	}
	s2.stop()
	err = filepath.WalkDir(dir, func(path string, de fs.DirEntry, err error) error {
		if err != nil || !de.Type().IsRegular() {
			return nil // a file gone meanwhile
		}
		b, err := os.ReadFile(path)
		if err == nil && (strings.Contains(string(b), sessionCanary) || strings.Contains(string(b), k.Key)) {
			t.Errorf("%s holds a secret", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

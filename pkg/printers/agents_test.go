package printers

import (
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

func agentFixtures() []resources.Agent {
	return []resources.Agent{
		{
			TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindAgent},
			Metadata: resources.ObjectMeta{Name: "support-bot", Organization: "acme", Region: "us-west", Labels: map[string]string{"team": "voice"},
				CreationTimestamp: ago(3 * time.Hour)},
			Spec: resources.AgentSpec{Image: "registry.example.com/acme/support-bot:0.1", ImagePullSecret: "ghcr-creds", SecretSet: "support-bot-secrets",
				Scaling: &resources.AgentScaling{MinAgents: 1, MaxAgents: 5}, Profile: "agent-1x"},
			Status: &resources.AgentStatus{State: resources.AgentReady, Deployment: 3, Agents: resources.AgentCounts{Desired: 1, Ready: 1},
				ImageDigest: "sha256:abc", SecretSetVersion: 7, Pool: &resources.AgentPool{InSession: 1, Idle: 2, Max: 5}},
		},
		{
			TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindAgent},
			Metadata: resources.ObjectMeta{Name: "crashy", Organization: "acme", Region: "eu-central", CreationTimestamp: ago(2 * time.Minute)},
			Spec:     resources.AgentSpec{Image: "registry.example.com/acme/crashy:1"},
			Status: &resources.AgentStatus{State: resources.AgentFailed, Agents: resources.AgentCounts{Desired: 1},
				Message: "exited 1\nlast line ****"},
		},
	}
}

// The agents' rows, in every format: table and wide columns, agent/NAME,
// a List in json, and yaml in the fields' order (apiVersion, kind, items;
// an item's metadata before its spec).
func TestPrintAgents(t *testing.T) {
	agents := agentFixtures()
	for _, tc := range []struct {
		format string
		want   string
	}{
		{FormatTable, `NAME          REGION       STATE    AGENTS   DEPLOYMENT   IMAGE                                       AGE
support-bot   us-west      ready    1/1      3            registry.example.com/acme/support-bot:0.1   3h
crashy        eu-central   failed   0/1      -            registry.example.com/acme/crashy:1          2m
`},
		{FormatName, "agent/support-bot\nagent/crashy\n"},
	} {
		ios, _, out, _ := iostreams.Test()
		f := NewFlags()
		f.Output, f.Now = tc.format, func() time.Time { return now }
		if err := f.PrintAgents(ios, agents); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("-o %s:\n%s\nwant:\n%s", tc.format, out, tc.want)
		}
	}

	ios, _, out, _ := iostreams.Test()
	f := NewFlags()
	f.Output, f.Now = FormatWide, func() time.Time { return now }
	if err := f.PrintAgents(ios, agents); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasSuffix(lines[0], "AGE   SESSIONS   ORGANIZATION   PROFILE    SECRET SET            IMAGE PULL SECRET   DIGEST       LABELS       MESSAGE") ||
		!strings.HasSuffix(lines[1], "3h    1          acme           agent-1x   support-bot-secrets   ghcr-creds          sha256:abc   team=voice   -") ||
		!strings.HasSuffix(lines[2], "exited 1") {
		t.Errorf("-o wide: a failure's reason is its first line, without its log lines:\n%s", out)
	}

	ios, _, out, _ = iostreams.Test()
	f = NewFlags()
	f.Output = FormatYAML
	if err := f.PrintAgents(ios, agents[1:]); err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: botkit.dev/v1
kind: List
items:
- apiVersion: botkit.dev/v1
  kind: Agent
  metadata:
    name: crashy
    organization: acme
    region: eu-central
    creationTimestamp: "2025-06-01T11:58:00Z"
  spec:
    image: registry.example.com/acme/crashy:1
  status:
    state: failed
    agents:
      desired: 1
      ready: 0
    message: |-
      exited 1
      last line ****
`
	if out.String() != want {
		t.Errorf("-o yaml:\n%s\nwant:\n%s", out, want)
	}

	// An empty list: "No resources found" on stderr in the row formats,
	// an empty List in json.
	ios, _, out, errOut := iostreams.Test()
	if err := NewFlags().PrintAgents(ios, nil); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || strings.TrimSpace(errOut.String()) != NoResourcesMessage {
		t.Errorf("empty table: stdout %q, stderr %q", out, errOut)
	}
	ios, _, out, _ = iostreams.Test()
	f = NewFlags()
	f.Output = FormatJSON
	if err := f.PrintAgents(ios, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"kind": "List"`) || !strings.Contains(out.String(), `"items": []`) {
		t.Errorf("empty -o json: %s", out)
	}
}

func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"r.example/a:2": "2", "python": "latest", "localhost:5000/bot:v1.2": "v1.2",
		"r.example/a@sha256:" + strings.Repeat("a", 64): "-", "r.example/a:7@sha256:" + strings.Repeat("a", 64): "7", "Bad Ref": "-",
	} {
		if got := ImageTag(image); got != want {
			t.Errorf("ImageTag(%q) = %q, want %q", image, got, want)
		}
	}
}

func TestPrintDeployments(t *testing.T) {
	ds := []resources.Deployment{
		{Number: 2, At: now.Add(-time.Minute), Actor: "token:ci", Image: "r.example/a:2", ImageDigest: "sha256:222", SecretSet: "s",
			SecretSetVersion: 4, Profile: "agent-1x", Source: "rollback", RollbackOf: 1, Result: resources.DeploymentFailed, Message: "OOMKilled\nline"},
		{Number: 1, At: now.Add(-48 * time.Hour), Actor: "local", Image: "r.example/a:1", ImageDigest: "sha256:111", Profile: "agent-1x",
			Source: "deploy", Result: resources.DeploymentSuperseded},
	}
	ios, _, out, _ := iostreams.Test()
	f := NewFlags()
	f.Now = func() time.Time { return now }
	if err := f.PrintDeployments(ios, ds); err != nil {
		t.Fatal(err)
	}
	want := `DEPLOYMENT   AGE   ACTOR      SOURCE     TAG   IMAGE DIGEST   SECRET SET VERSION   RESULT
2            1m    token:ci   rollback   2     sha256:222     4                    failed
1            2d    local      deploy     1     sha256:111     -                    superseded
`
	if out.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", out, want)
	}
	ios, _, out, _ = iostreams.Test()
	f.Output = FormatWide
	if err := f.PrintDeployments(ios, ds); err != nil {
		t.Fatal(err)
	}
	if l := strings.Split(out.String(), "\n")[1]; !strings.HasSuffix(l, "r.example/a:2   s            agent-1x   1             OOMKilled") {
		t.Errorf("wide row: %q", l)
	}
}

// The status view: the agent, the serving deployment, the latest one that
// failed with its reason and log lines, the drift line, each running agent.
func TestPrintAgentStatus(t *testing.T) {
	a := agentFixtures()[0]
	a.Status.Drift = "secret set support-bot-secrets is at version 9; deployment 3 runs version 7: botkit deploy to apply"
	r := resources.AgentStatusReport{
		Agent: a,
		Deployment: &resources.Deployment{Number: 4, At: now.Add(-time.Minute), Actor: "local", Result: resources.DeploymentFailed,
			Message: "agent exited 1\n" + resources.LastLogLines + "\npanic: \x1b[31mboom\nAPI_KEY=****"},
		Running: []resources.RunningAgent{{Name: "support-bot-3-x1", ID: "0123456789abcdef", Deployment: 3, State: "running", Health: "healthy",
			StartedAt: now.Add(-10 * time.Minute), Restarts: 1, LastExit: "killed (exit 137) at 2026-01-02T03:04:05Z"}},
	}
	ios, _, out, _ := iostreams.Test()
	f := NewFlags().WithFormats(FormatTable, FormatJSON, FormatYAML)
	f.Now = func() time.Time { return now }
	if err := f.PrintAgentStatus(ios, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"State:                ready\n",
		"Agents:               3 ready (1 in a session, 2 idle), max 5\n",
		"Serving deployment:   3 (digest sha256:abc, secret set version 7)\n",
		"Latest deployment:    4 failed, 1m ago by local: agent exited 1\n",
		"Drift:                secret set support-bot-secrets is at version 9; deployment 3 runs version 7: botkit deploy to apply\n",
		"AGENT              CONTAINER      DEPLOYMENT   STATE     HEALTH    RESTARTS   STARTED   LAST EXIT\n",
		"support-bot-3-x1   0123456789ab   3            running   healthy   1          10m ago   killed (exit 137) at 2026-01-02T03:04:05Z\n",
		"Deployment 4's last log lines:\n  panic:  [31mboom\n  API_KEY=****\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status view lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("a terminal escape from the platform reached the terminal:\n%q", out)
	}
	if n := strings.Count(out.String(), "last log lines"); n != 1 {
		t.Errorf("the status view says \"last log lines\" %d times:\n%s", n, out)
	}
	ios, _, out, _ = iostreams.Test()
	f.Output = FormatYAML
	if err := f.PrintAgentStatus(ios, r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "agent:\n  apiVersion: botkit.dev/v1\n  kind: Agent\n  metadata:\n") || !strings.Contains(out.String(), "\nlatestDeployment:\n  number: 4\n") {
		t.Errorf("-o yaml keeps the report's order:\n%s", out)
	}
}

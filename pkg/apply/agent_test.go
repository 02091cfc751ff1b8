package apply

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// An Agent manifest loads into resources.Agent with every spec field; an
// agent may share its name with a secret set (agents have a namespace of
// their own).
func TestLoadAgent(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "agent.yaml", `apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: support-bot, region: us-west, labels: {team: voice}}
spec:
  image: registry.example.com/acme/support-bot:0.1
  imagePullSecret: ghcr-creds
  secretSet: support-bot
  scaling: {minAgents: 0, maxAgents: 5}
  profile: agent-2x
---
apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: support-bot, region: us-west}
spec: {data: {A: {fromEnv: A}}}
`)
	write(t, dir, "agent.json", `{"apiVersion":"botkit.dev/v1","kind":"Agent","metadata":{"name":"json-bot"},"spec":{"image":"r.example/a@sha256:`+sha+`","scaling":{"minAgents":2}}}`)
	res, err := Load(context.Background(), Options{Paths: []string{dir}, Organization: "acme",
		Resolve: ResolveOptions{LookupEnv: env(map[string]string{"A": "a"})}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 1 || len(res.Groups[0].Documents) != 3 {
		t.Fatalf("groups: %+v", res.Groups)
	}
	var refs []string
	for _, d := range res.Groups[0].Documents {
		refs = append(refs, d.Ref())
	}
	if want := []string{"agent/json-bot", "agent/support-bot", "secretset/support-bot"}; !slices.Equal(refs, want) {
		t.Fatalf("refs %v, want %v", refs, want)
	}
	a := res.Groups[0].FindKind(resources.KindAgent, "support-bot").Object.Agent
	want := resources.AgentSpec{Image: "registry.example.com/acme/support-bot:0.1", ImagePullSecret: "ghcr-creds", SecretSet: "support-bot",
		Scaling: &resources.AgentScaling{MinAgents: 0, MaxAgents: 5}, Profile: "agent-2x"}
	if a.Spec.Image != want.Image || a.Spec.ImagePullSecret != want.ImagePullSecret || a.Spec.SecretSet != want.SecretSet ||
		a.Spec.Profile != want.Profile || *a.Spec.Scaling != *want.Scaling || a.Metadata.Region != "us-west" || a.Metadata.Labels["team"] != "voice" {
		t.Fatalf("agent %+v, spec %+v", a, a.Spec)
	}
	if s := res.Groups[0].FindKind(resources.KindAgent, "json-bot").Object.Agent.Spec; s.Scaling == nil || s.Scaling.MinAgents != 2 {
		t.Fatalf("json agent spec %+v", s)
	}
	if res.Groups[0].Find("support-bot").Kind() != resources.KindSecretSet {
		t.Fatal("Find: want the secret set")
	}
}

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// Every bad field of an Agent is a problem at its file:line naming the
// field.
func TestLoadAgentProblems(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "agents.yaml", `apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: no-tag}
spec:
  image: registry.example.com/acme/bot
---
apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: bad-scaling}
spec:
  image: r.example/bot:1
  scaling:
    minAgents: 6
    maxAgents: 2
---
apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: bad-types}
spec:
  image: r.example/bot:1
  scaling:
    minAgents: "one"
    maxAgents: 1.5
  replicas: 3
---
apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: bad-profile}
spec:
  image: r.example/bot:1
  profile: huge
---
apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: no-image}
spec:
  secretSet: Not_A_Name
---
apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: bad-ref}
spec:
  image: r.example/bot:1
  secretSet: not_a_name
---
apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: with-status}
spec: {image: r.example/bot:1}
status: {state: ready}
---
apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: twice}
spec: {image: r.example/bot:1}
---
apiVersion: botkit.dev/v1
kind: Agent
metadata: {name: twice}
spec: {image: r.example/bot:2}
`)
	_, err := Load(context.Background(), Options{Paths: []string{p}, Organization: "acme"})
	got := problems(t, err)
	f := filepath.Clean(p)
	want := []string{
		f + ":5: spec.image: registry.example.com/acme/bot has no tag or digest: name the version to run (registry.example.com/acme/bot:TAG or registry.example.com/acme/bot@sha256:DIGEST)",
		f + ":13: spec.scaling.minAgents: 6 is more than maxAgents (2)",
		f + ":22: spec.scaling.minAgents: want a whole number, got a string",
		f + ":23: spec.scaling.maxAgents: want a whole number, got a number",
		f + ":24: unknown field \"replicas\" in spec (valid: image, imagePullSecret, secretSet, scaling, profile, maxSessionDuration)",
		f + ":31: spec.profile: unknown profile \"huge\" (valid: agent-1x, agent-2x)",
		f + ":37: spec.image is required",
		f + ":44: spec.secretSet: name \"not_a_name\": only letters, digits and hyphens are allowed",
		f + ":50: status: output only (the platform sets it); remove it from the manifest",
		f + ":59: agent/twice is also defined at " + f + ":54 (an agent's name is unique in its organization)",
	}
	if len(got) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d", join2(got), len(want))
	}
	for i := range want {
		if len(got[i]) < len(want[i]) || got[i][:len(want[i])] != want[i] {
			t.Errorf("problem %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

func join2(lines []string) string {
	out := ""
	for _, l := range lines {
		out += "  " + l + "\n"
	}
	return out
}

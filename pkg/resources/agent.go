package resources

import (
	"strings"
	"time"
)

// Agents (docs/deploy.md): the bots the secrets are for, run by the platform on a
// container engine. An Agent names an image, the image pull secret it is
// pulled with and the secret set whose values become its environment; each
// deployment pins the image's digest and the set's version, and the
// platform runs exactly that until the next deployment.

// KindAgent is the kind of an Agent.
const KindAgent = "Agent"

// The states of an Agent's status.
const (
	// AgentDeploying: a deployment is rolling out (the previous one, if
	// any, still serves).
	AgentDeploying = "deploying"
	// AgentReady: the serving deployment runs its desired agents (0 when
	// scaled to zero).
	AgentReady = "ready"
	// AgentDegraded: the serving deployment runs fewer agents than desired.
	AgentDegraded = "degraded"
	// AgentFailed: the latest deployment failed and none serves.
	AgentFailed = "failed"
	// AgentStopped: no deployment serves (none made yet, or the engine
	// has none of its agents).
	AgentStopped = "stopped"
)

// The results of a deployment.
const (
	// DeploymentRollingOut: its agents are starting; it serves once they
	// are ready and settled.
	DeploymentRollingOut = "rolling-out"
	// DeploymentServing: the agent's current deployment.
	DeploymentServing = "serving"
	// DeploymentSuperseded: it served, until a later deployment did.
	DeploymentSuperseded = "superseded"
	// DeploymentFailed: its agents never came up (Message says why); the
	// deployment serving before it kept serving.
	DeploymentFailed = "failed"
)

// AgentScaling bounds how many agents of the serving deployment run.
type AgentScaling struct {
	MinAgents int `json:"minAgents"`
	MaxAgents int `json:"maxAgents,omitempty"`
}

// AgentSpec is what an Agent runs. Image must carry a tag or a digest;
// ImagePullSecret and SecretSet name objects of the same organization and
// region. Profile is one of the runtime's profiles (agent-1x, agent-2x;
// default agent-1x).
type AgentSpec struct {
	Image           string        `json:"image"`
	ImagePullSecret string        `json:"imagePullSecret,omitempty"`
	SecretSet       string        `json:"secretSet,omitempty"`
	Scaling         *AgentScaling `json:"scaling,omitempty"`
	Profile         string        `json:"profile,omitempty"`
	// MaxSessionDuration is a session's longest duration in seconds (60
	// to 14400; 0: the platform's, two hours): the agent is told, and
	// stopped when it passes.
	MaxSessionDuration int `json:"maxSessionDuration,omitempty"`
}

// AgentCounts is how many agents the serving deployment wants and has ready.
type AgentCounts struct {
	Desired int `json:"desired"`
	Ready   int `json:"ready"`
}

// AgentStatus is an Agent's state (output only).
type AgentStatus struct {
	State string `json:"state"`
	// Deployment is the number of the serving deployment (0: none).
	Deployment int64       `json:"deployment,omitempty"`
	Agents     AgentCounts `json:"agents"`
	// Image, ImageDigest and SecretSetVersion are the serving
	// deployment's: what runs (the spec's image is what the next
	// deployment runs).
	Image            string `json:"image,omitempty"`
	ImageDigest      string `json:"imageDigest,omitempty"`
	SecretSetVersion int64  `json:"secretSetVersion,omitempty"`
	// Rollout is the number of the deployment rolling out (0: none).
	Rollout int64 `json:"rollout,omitempty"`
	// Message says why, when the state is not ready; it never holds a
	// value (log lines in it are masked).
	Message string `json:"message,omitempty"`
	// Pool is how the agents are used: in a session, idle, the most.
	Pool *AgentPool `json:"pool,omitempty"`
	// Drift says that the secret set moved past the serving deployment's
	// version ("" when it did not): "secret set S is at version 9;
	// deployment 3 runs version 7: botkit deploy to apply".
	Drift string `json:"drift,omitempty"`
}

// Agent is an agent as the API reads and writes it.
type Agent struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta   `json:"metadata"`
	Spec     AgentSpec    `json:"spec"`
	Status   *AgentStatus `json:"status,omitempty"`
}

// AgentList is GET /v1/organizations/{org}/agents.
type AgentList struct {
	TypeMeta `json:",inline"`
	Items    []Agent `json:"items"`
}

// Deployment is one immutable deployment of an agent: what it ran with.
type Deployment struct {
	Number int64     `json:"number"`
	At     time.Time `json:"createdAt"`
	Actor  string    `json:"actor"`
	// Image is the reference as given; ImageDigest what it resolved to
	// (through the registry, with the pull secret's credentials), as
	// "sha256:…": the agents run Image's repository at that digest.
	Image            string `json:"image"`
	ImageDigest      string `json:"imageDigest"`
	ImagePullSecret  string `json:"imagePullSecret,omitempty"`
	SecretSet        string `json:"secretSet,omitempty"`
	SecretSetVersion int64  `json:"secretSetVersion,omitempty"`
	Profile          string `json:"profile"`
	// Source is what made it: deploy, apply, rollback.
	Source string `json:"source"`
	// RollbackOf is the deployment a rollback copied (0: not a rollback).
	RollbackOf int64 `json:"rollbackOf,omitempty"`
	// Result is DeploymentRollingOut, DeploymentServing,
	// DeploymentSuperseded or DeploymentFailed; Message says why it failed
	// (reason, then LastLogLines and the agents' last log lines, one a
	// line, values masked).
	Result     string     `json:"result"`
	Message    string     `json:"message,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// LastLogLines is the line of a failed deployment's message after which
// come its agents' last log lines.
const LastLogLines = "last log lines:"

// DeploymentList is GET .../agents/{name}/deployments, newest first.
type DeploymentList struct {
	Items []Deployment `json:"items"`
}

// DeployRequest is the body of POST .../agents/{name}/deployments: a new
// deployment of the agent's spec as it is (Image, when set, replaces the
// spec's image first, as `botkit deploy --image`). With DryRun nothing is
// written: the answer is the deployment that would be made.
type DeployRequest struct {
	Image  string `json:"image,omitempty"`
	DryRun bool   `json:"dryRun,omitempty"`
	// Agent, when given, is the agent written with the deployment in one
	// transaction (created if missing; its metadata.resourceVersion, when
	// given, a precondition): a deploy that is refused changes nothing.
	Agent *Agent `json:"agent,omitempty"`
}

// RollbackRequest is the body of POST .../agents/{name}/rollback: a new
// deployment with deployment To's image digest and secret set version (0:
// the one before the serving deployment).
type RollbackRequest struct {
	To int64 `json:"to,omitempty"`
}

// RunningAgent is one agent (container) of an Agent, as status shows it.
type RunningAgent struct {
	Name       string `json:"name"`
	ID         string `json:"id"`
	Deployment int64  `json:"deployment"`
	State      string `json:"state"`
	Health     string `json:"health,omitempty"`
	// Restarts counts the engine's restarts of this agent and the agents
	// it replaced; LastExit says how the last of them ended ("" if none).
	Restarts  int       `json:"restarts"`
	StartedAt time.Time `json:"startedAt"`
	LastExit  string    `json:"lastExit,omitempty"`
}

// AgentStatusReport is GET .../agents/{name}/status: the agent, its latest
// deployment and every agent running for it.
type AgentStatusReport struct {
	Agent      Agent          `json:"agent"`
	Deployment *Deployment    `json:"latestDeployment,omitempty"`
	Running    []RunningAgent `json:"running"`
}

// AgentLogLine is one line of GET .../agents/{name}/logs (a stream of
// JSON lines, application/x-ndjson): the agent (container) that wrote it,
// and the text with every value of the agent's secret set masked.
type AgentLogLine struct {
	Agent  string    `json:"agent"`
	Stream string    `json:"stream"`
	Time   time.Time `json:"time"`
	Text   string    `json:"text"`
}

// MaskedValue replaces every secret value in agents' log lines and failure
// messages.
const MaskedValue = "****"

// LocalOnlyEnvHeading starts the section of a project's .env.example whose
// keys only a local run reads (the development runner's Daily transport
// creates its rooms with DAILY_API_KEY; a deployed bot gets its room from
// the platform). The keys after the line that starts with it are optional
// to preflight; botkit create writes the section last.
const LocalOnlyEnvHeading = "# Local run only"

// AgentPatch is the body of PATCH /v1/organizations/{org}/agents/{name}:
// what changes without a new deployment. Scaling replaces the spec's
// scaling (`cloud agents scale`); Labels, when given, replace the labels.
type AgentPatch struct {
	Scaling *AgentScaling     `json:"scaling,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
}

// DigestOf returns the digest of a reference pinned by digest
// (REPOSITORY@sha256:… → sha256:…), or ref itself when it has no "@".
func DigestOf(ref string) string {
	if i := strings.LastIndexByte(ref, '@'); i >= 0 {
		return ref[i+1:]
	}
	return ref
}

// Package runtime is what the platform drives to run agents: a small
// interface over a container engine (start the agents of a deployment, list
// the platform's agents by label, stop and remove, restart, logs, pull with
// per-call credentials), the profiles that size an agent, the labels that
// mark what the platform owns, the readiness of a rollout, and the typed
// errors an engine's failures become. It knows no engine: the Docker Engine
// implementation is pkg/platform/runtime/docker.
package runtime

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Runtime runs agents on one container engine (one region's).
type Runtime interface {
	// Pull fetches an image from its registry with the credentials given
	// (nil: anonymous). The engine keeps no login: every pull carries its
	// own. A refused login is an *Error with ReasonUnauthorized, a missing
	// image ReasonImageNotFound. An engine that already has a digest does
	// not ask the registry again, whatever the credentials: whoever may run
	// an image must be checked against its registry with their own
	// credentials before (as deployments resolve their digest).
	Pull(ctx context.Context, image string, creds *Credentials) error
	// ImageDigest returns the digest ("sha256:…") of a pulled image, as the
	// registry knows it (ReasonImageNotFound if the engine has no such image
	// pulled from a registry).
	ImageDigest(ctx context.Context, image string) (string, error)
	// Start creates and starts spec.Count agents, indexes spec.FirstIndex
	// and on, at once. It returns the agents started; on an error, those
	// started before it (the caller removes what it no longer wants, by
	// their labels).
	Start(ctx context.Context, spec StartSpec) ([]Agent, error)
	// List returns the platform's agents whose labels match sel (only
	// containers with LabelManaged; any state), by name.
	List(ctx context.Context, sel Selector) ([]Agent, error)
	// Remove stops an agent (SIGTERM, then SIGKILL after grace) and
	// removes its container. An agent already gone is not an error.
	Remove(ctx context.Context, id string, grace time.Duration) error
	// Restart stops an agent (as Remove) and starts it again.
	Restart(ctx context.Context, id string, grace time.Duration) error
	// SetRestartPolicy changes a running agent's restart policy (a rollout
	// starts agents with RestartNever, so that a crash stays visible with
	// its exit code, and gives them their policy once ready).
	SetRestartPolicy(ctx context.Context, id string, p RestartPolicy) error
	// Logs writes the log lines of the agents given to fn, in order per
	// agent, each tagged with its agent. With Follow it returns when ctx
	// ends or every agent has stopped; fn's error stops it.
	Logs(ctx context.Context, agents []Agent, opts LogOptions, fn func(LogLine) error) error
	// Events calls fn with each event of the platform's agents (every
	// container with LabelManaged) from now on, until ctx ends or the
	// engine's stream breaks (its error): what wakes the platform's
	// controller when an agent dies, is killed for memory or starts.
	Events(ctx context.Context, fn func(Event)) error
	// Platform returns the OS and architecture of the engine's machine,
	// as image platforms name them: "linux/amd64", "linux/arm64".
	Platform(ctx context.Context) (string, error)
	// EnsureNetwork makes the network name if the engine has none of that
	// name: a network its agents and the platform share (on one engine a
	// bridge network; on a cluster of engines an overlay), labelled
	// LabelManaged, with no ports published on the hosts. A network of
	// that name that exists already is used as it is, whoever made it (an
	// operator's). "host", "none" and another container's namespace are
	// refused.
	EnsureNetwork(ctx context.Context, name string) error
}

// Event is what the engine says happened to one of the platform's agents.
type Event struct {
	ID     string
	Owner  Owner // from the agent's labels
	Action string
}

// The agents' network and port.
const (
	// DefaultNetwork is the network the platform makes for its agents when
	// the operator names none.
	DefaultNetwork = "botkit-agents"
	// DefaultPort is the port agents listen on (Pipecat Cloud's base
	// image's default), given to them as PORT.
	DefaultPort = 8080
)

// Credentials log in to one registry host for one call.
type Credentials struct {
	// Registry is the registry's host[:port] ("ghcr.io", "127.0.0.1:5000").
	Registry string
	Username string
	Password string
}

// Owner says whose an agent is; it becomes the container's labels.
type Owner struct {
	// Platform is the identity of the platform that made the agent (""
	// for none): a platform touches only its own containers, so that two
	// platforms on one engine leave each other's alone.
	Platform     string
	Organization string
	Region       string
	Agent        string
	Deployment   int
}

// The labels of the containers the platform owns. The platform touches only
// containers with LabelManaged.
const (
	LabelManaged      = "dev.botkit.managed"
	LabelPlatform     = "dev.botkit.platform"
	LabelOrganization = "dev.botkit.organization"
	LabelRegion       = "dev.botkit.region"
	LabelAgent        = "dev.botkit.agent"
	LabelDeployment   = "dev.botkit.deployment"
	LabelIndex        = "dev.botkit.index"
	// LabelReplaced counts the agents that ran in this one's place and
	// stopped (died, killed, killed for memory) before it; LabelLastExit
	// says how the last of them ended. An agent's history is on the engine,
	// with the agent, whichever platform process looks.
	LabelReplaced = "dev.botkit.replaced"
	LabelLastExit = "dev.botkit.last-exit"
	// LabelPort is the port the agent was told to listen on (PORT).
	LabelPort = "dev.botkit.port"
)

// Labels returns the labels of the index'th agent of o's deployment.
func (o Owner) Labels(index int) map[string]string {
	l := map[string]string{
		LabelManaged:      "true",
		LabelOrganization: o.Organization,
		LabelRegion:       o.Region,
		LabelAgent:        o.Agent,
		LabelDeployment:   strconv.Itoa(o.Deployment),
		LabelIndex:        strconv.Itoa(index),
	}
	if o.Platform != "" {
		l[LabelPlatform] = o.Platform
	}
	return l
}

// Selector matches the labels of the platform's agents: every key given
// must have the value given. The empty selector matches every agent of the
// platform (LabelManaged is always implied).
type Selector map[string]string

// ForOwner selects the agents of an organization's agent in a region, of
// one deployment when o.Deployment is not 0.
func ForOwner(o Owner) Selector {
	s := Selector{LabelOrganization: o.Organization, LabelRegion: o.Region, LabelAgent: o.Agent}
	if o.Platform != "" {
		s[LabelPlatform] = o.Platform
	}
	if o.Deployment != 0 {
		s[LabelDeployment] = strconv.Itoa(o.Deployment)
	}
	return s
}

// Filters returns the selector as "key=value" label filters, sorted, with
// LabelManaged first.
func (s Selector) Filters() []string {
	out := []string{LabelManaged + "=true"}
	keys := make([]string, 0, len(s))
	for k := range s {
		if k != LabelManaged {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+s[k])
	}
	return out
}

// Matches reports whether labels carry every label of s and LabelManaged.
func (s Selector) Matches(labels map[string]string) bool {
	if labels[LabelManaged] != "true" {
		return false
	}
	for k, v := range s {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// Restart policies (the engine restarts an agent that exits).
const (
	RestartNever         = "no"
	RestartOnFailure     = "on-failure"
	RestartAlways        = "always"
	RestartUnlessStopped = "unless-stopped"
)

// RestartPolicy says when the engine starts an exited agent again.
type RestartPolicy struct {
	Name string // RestartNever, RestartOnFailure, RestartAlways, RestartUnlessStopped
	// MaxRetries bounds RestartOnFailure (0: no bound).
	MaxRetries int
}

// DefaultRestart is an agent's policy: started again whenever it exits,
// until the platform stops it.
var DefaultRestart = RestartPolicy{Name: RestartUnlessStopped}

// StartSpec is what the agents of one deployment run with.
type StartSpec struct {
	Owner Owner
	// Image is pinned by digest: REPOSITORY@sha256:… (a tag may precede
	// the digest). A reference without a digest is refused.
	Image string
	// Env is the agents' environment (the secret set's values).
	Env map[string]string
	// Profile limits CPU, memory and processes.
	Profile Profile
	Restart RestartPolicy
	// Network is the engine network the agents join: "" is the engine's
	// default; "host", and another container's namespace, are refused.
	// Agents are reached at their address on it (Agent.Endpoint): the
	// platform's own network (DefaultNetwork, see EnsureNetwork) or the
	// operator's.
	Network string
	// Port is the port the agents listen on, given to them as PORT, which
	// wins over a PORT of Env (0: DefaultPort).
	Port int
	// Count agents are started, with indexes FirstIndex, FirstIndex+1, …
	Count      int
	FirstIndex int
	// Labels are labels the agents carry besides their owner's (which
	// they cannot change): LabelReplaced, LabelLastExit.
	Labels map[string]string
	// User is the user the agents run as, UID or UID:GID ("": the image's
	// USER).
	User string
}

// State is an agent's container state as the engine reports it.
type State string

// The states an engine reports.
const (
	StateCreated    State = "created"
	StateRunning    State = "running"
	StateRestarting State = "restarting"
	StatePaused     State = "paused"
	StateExited     State = "exited"
	StateRemoving   State = "removing"
	StateDead       State = "dead"
)

// Health is the state of an image's HEALTHCHECK ("" when it has none).
type Health string

// The health states.
const (
	HealthNone      Health = ""
	HealthStarting  Health = "starting"
	HealthHealthy   Health = "healthy"
	HealthUnhealthy Health = "unhealthy"
)

// Agent is one running (or exited) agent: a container the platform owns.
type Agent struct {
	ID     string
	Name   string // the container's name, which log lines carry
	Labels map[string]string
	Owner  Owner
	Index  int
	Image  string
	State  State
	// Restarts counts the engine's restarts of the container.
	Restarts   int
	StartedAt  time.Time
	FinishedAt time.Time
	// ExitCode and OOMKilled describe the last exit.
	ExitCode  int
	OOMKilled bool
	Health    Health
	// Restart is the policy the engine holds for the agent.
	Restart RestartPolicy
	// Endpoint is where the platform reaches the agent: host:port on the
	// agents' network (the address the engine gave it there and its
	// PORT), "" when it has none (not running, or on no network the
	// platform shares). It is an address, not a container's: a runtime
	// over a cluster of engines gives its task's address on the overlay
	// network. Nothing is published on a host's ports.
	Endpoint string
	// Unconfined says how the container escapes the lockdown every agent
	// runs under (privileged, a capability added, a host mount or
	// namespace, no no-new-privileges): "" when it does not. The platform
	// never makes such a container: whatever its labels say, it is no
	// agent of the platform's.
	Unconfined string
}

// OwnerOf reads an Owner and index back from an agent's labels.
func OwnerOf(labels map[string]string) (Owner, int) {
	dep, _ := strconv.Atoi(labels[LabelDeployment]) // 0 when not a number: not ours to interpret
	idx, _ := strconv.Atoi(labels[LabelIndex])      // idem
	return Owner{
		Platform:     labels[LabelPlatform],
		Organization: labels[LabelOrganization],
		Region:       labels[LabelRegion],
		Agent:        labels[LabelAgent],
		Deployment:   dep,
	}, idx
}

// LogOptions chooses the lines Logs writes.
type LogOptions struct {
	Follow bool
	// Since: only lines written at or after it (zero: from the start).
	Since time.Time
	// Tail: only the last Tail lines of each agent (0: all).
	Tail int
}

// Stream names the output a log line came from.
type Stream string

// The streams of a log line.
const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// MaxLogLine is the most of one log line a runtime keeps: a longer line
// is cut (LogLine.Size says how long it was) and the stream goes on.
const MaxLogLine = 1 << 20

// LogLine is one line an agent wrote (one line, however the engine split
// it).
type LogLine struct {
	Agent  Agent
	Stream Stream
	// Time is when the engine read the line's start.
	Time time.Time
	Text string // without its line end; at most MaxLogLine bytes
	// Size is the length of the line the agent wrote when Text holds only
	// its first MaxLogLine bytes (0: Text is the whole line).
	Size int
}

// CutMarker is what is shown after the text of a line that was cut.
func (l LogLine) CutMarker() string {
	if l.Size == 0 {
		return ""
	}
	return fmt.Sprintf(cutMarker, l.Size)
}

const cutMarker = " … [line cut: %d bytes]"

// SplitCut splits a line as shown (Text, then CutMarker) into its text and
// its marker ("" for a whole line): the end of the text of a cut line may
// hold the start of a value, which masking must see.
func SplitCut(s string) (text, marker string) {
	i := strings.LastIndex(s, " … [line cut: ")
	if i < 0 {
		return s, ""
	}
	var n int
	if _, err := fmt.Sscanf(s[i:], cutMarker, &n); err != nil || fmt.Sprintf(cutMarker, n) != s[i:] {
		return s, ""
	}
	return s[:i], s[i:]
}

// String is the line as shown to a user: the agent's name, then the text.
func (l LogLine) String() string { return l.Agent.Name + " | " + l.Text + l.CutMarker() }

package store

import (
	"context"
	"time"
)

// Agent is an Agent row (docs/deploy.md). Agents have a namespace of their own:
// an Agent and a SecretSet may share a name.
type Agent struct {
	ID      int64
	OrgID   int64
	OrgName string // filled by lookups
	Name    string
	Region  string
	Labels  map[string]string
	// Spec is the agent's spec as JSON (resources.AgentSpec), opaque to the
	// store.
	Spec []byte
	// Version is the resourceVersion (Tx.NextVersion): it changes on every
	// write of the row. Generation counts the writes of Spec or Labels.
	Version    int64
	Generation int64
	// Serving is the number of the serving deployment (0: none); Latest
	// the number of the newest deployment (0: none made).
	Serving   int64
	Latest    int64
	Managed   bool
	ApplySet  string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Deployment is one deployment of an agent: immutable but for its Result,
// Message and FinishedAt, which the rollout sets once.
type Deployment struct {
	AgentID          int64
	Number           int64 // 1, 2, … per agent
	At               time.Time
	Actor            string
	Source           string // deploy, apply, rollback
	RollbackOf       int64
	Image            string
	ImageDigest      string // REPOSITORY@sha256:… is what runs
	ImagePullSecret  string
	SecretSetName    string
	SecretSetVersion int64
	// SecretSetCreated is when the secret set it pinned was created (Unix
	// nanoseconds): with its name, the set's identity. A set deleted and
	// created again under the name is another set, whose versions are not
	// the ones pinned. 0: none pinned (no set, or a deployment recorded
	// before identities were).
	SecretSetCreated int64
	Profile          string
	Result           string // resources.Deployment* results
	Message          string
	FinishedAt       *time.Time
}

// AgentTx is the agents' part of a write transaction (Tx embeds it).
type AgentTx interface {
	// Agent returns the organization's agent name (ErrNotFound).
	Agent(ctx context.Context, orgID int64, name string) (Agent, error)
	// PutAgent inserts (ID 0; ErrExists when the organization has an
	// agent of that name) or updates an agent row and returns its ID.
	PutAgent(ctx context.Context, a Agent) (int64, error)
	// DeleteAgent deletes an agent, its deployments and its sessions.
	DeleteAgent(ctx context.Context, id int64) error
	// AppliedAgents is AppliedObjects for agents.
	AppliedAgents(ctx context.Context, orgID int64, applySet string) ([]Agent, error)
	// PutDeployment inserts a deployment (ErrExists when the agent has one
	// with that number).
	PutDeployment(ctx context.Context, d Deployment) error
	// Deployment returns one deployment of an agent (ErrNotFound).
	Deployment(ctx context.Context, agentID, number int64) (Deployment, error)
	// FinishDeployment sets a deployment's result, message and finish time
	// (ErrNotFound).
	FinishDeployment(ctx context.Context, agentID, number int64, result, message string, at time.Time) error
}

// AgentStore is the agents' part of the Store (Store embeds it).
type AgentStore interface {
	Agent(ctx context.Context, orgID int64, name string) (Agent, error)
	// Agents returns the organization's agents in name order, of one
	// region when region is not "".
	Agents(ctx context.Context, orgID int64, region string) ([]Agent, error)
	// RegionAgents returns every organization's agents of a region (what
	// a reconciler of the region looks after), OrgName filled.
	RegionAgents(ctx context.Context, region string) ([]Agent, error)
	// Deployments returns up to limit deployments of the agent numbered
	// below before (0: the newest), newest first.
	Deployments(ctx context.Context, agentID, before int64, limit int) ([]Deployment, error)
	Deployment(ctx context.Context, agentID, number int64) (Deployment, error)
	// AcquireLease takes or renews the lease name for holder until ttl
	// from now on the database's clock, and reports whether holder has it:
	// false while another holder's lease runs. Several platform replicas
	// reconcile a region only under its lease.
	AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	// ReleaseLease gives the lease up if holder has it.
	ReleaseLease(ctx context.Context, name, holder string) error
}

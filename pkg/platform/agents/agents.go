// Package agents runs the platform's agents (docs/deploy.md): the reconciler
// that makes each region's container engine run what the store says — a
// rolling-out deployment's agents started, looked at once per pass, failed
// or promoted; the serving deployment's agents kept at their count; every
// other container of the platform removed —, the agents' status as the
// engine shows it, and their logs with every secret value masked. Values
// are decrypted here only, and handed only to the engine. It knows nothing
// of HTTP (pkg/platform/runtime is its engine).
package agents

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/encryption"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// DefaultLeaseTTL is how long a replica's hold on a region's reconcile
// lease lasts without renewal: another replica takes the region over once
// it runs out.
const DefaultLeaseTTL = 10 * time.Second

// DefaultGrace is how long a stopped agent gets between SIGTERM and SIGKILL.
const DefaultGrace = 10 * time.Second

// LeaseName is the store lease under which region is reconciled.
func LeaseName(region string) string { return "reconcile/" + region }

// Options configure a Reconciler.
type Options struct {
	Store  store.Store
	Sealer *encryption.Sealer
	// Runtimes are the engines agents run on, by region; a region without
	// one runs no agent (its deploys are refused with NoRuntime's words).
	Runtimes map[string]runtime.Runtime
	// NoRuntime says why a region has no runtime and how to give it one
	// (nil: the words of botkit-platform serve's --runtime flag).
	NoRuntime func(region string) string
	// EngineDown says that region's engine does not answer and what to do
	// (nil: the platform's words; the embedded platform says to start
	// Docker).
	EngineDown func(region string) string
	// Network is the network agents join ("": the engine's default).
	Network string
	// Settle is how long a rolling-out deployment's agents must have run,
	// ready, before it serves (0: runtime.DefaultSettle).
	Settle time.Duration
	// Grace is how long a stopped agent gets to exit (0: DefaultGrace).
	Grace time.Duration
	// LeaseTTL is the region lease's time to live (0: DefaultLeaseTTL);
	// Holder names this process in it ("": a random name).
	LeaseTTL time.Duration
	Holder   string
	// PassLock, when set, is what makes this process a region's
	// controller instead of the store's lease: the processes that share
	// one embedded data directory take turns (the one holding it drives
	// the region until it closes), and a lock that ends with its process
	// holds up nobody after a kill -9. It returns the lock's release, or
	// ctx's error while it waits.
	PassLock func(ctx context.Context, region string) (release func(), err error)
	// Resync is how often the controller of a region looks at all of it
	// when nothing woke it (0: DefaultResync): the safety net for what no
	// write or engine event announced (a write through another replica).
	Resync time.Duration
	// Platform is this platform's identity, which every container it makes
	// carries (runtime.LabelPlatform): it touches no other platform's
	// containers ("" in tests of one platform only: no identity label).
	Platform string
	// Caller speaks the agent side of the session contract (nil: no
	// session is started; rollouts do not ask /readyz).
	Caller Caller
	// ClaimTimeout bounds a start's wait for an agent (0:
	// DefaultClaimTimeout); IdleWindow is how long an agent started for a
	// session stays idle above minAgents (0: DefaultIdleWindow).
	ClaimTimeout time.Duration
	IdleWindow   time.Duration
	// AgentEnv, when set, returns the variables the platform gives every
	// agent of org's agent named agent beside its secret set's values
	// (ICE_CONFIG_URL): they win over a value of the same name, and are
	// masked in its logs as the values are.
	AgentEnv func(org, agent string) map[string]string
	// Logger receives the reconciler's events (never a value).
	Logger *slog.Logger
	// AfterStart, when set, is called by a pass right after it started a
	// rolling-out deployment's agents, before it looks at them; its error
	// ends the pass there, as if the platform had stopped at that point
	// (tests interrupt a rollout with it).
	AfterStart func(ctx context.Context, org, agent string, deployment int64) error
}

// DefaultResync is how often a region's controller looks at all of it
// when nothing woke it.
const DefaultResync = time.Second

// Reconciler is the agents' controller: one worker per region drives the
// engine toward what the store says, woken by writes (Enqueue), by the
// engine's own events (an agent died) and by a periodic resync. Reads never
// act on the engine.
type Reconciler struct {
	opts   Options
	st     store.Store
	log    *slog.Logger
	queues map[string]*queue // by region with a runtime
	ops    *ops
	// foreign remembers the containers of other platforms already warned
	// about.
	foreign sync.Map
	// lastErr is, by agent, the last pass's error as logged ("" none).
	lastErr sync.Map
	// unconfined remembers the containers that escape the agents'
	// lockdown already warned about.
	unconfined sync.Map
	// notes remembers, by agent, the last problem a pass logged: a
	// problem is logged once, when it changes (see noteResult).
	notes   sync.Map
	touched atomic.Bool
	// calls are the sessions this process holds open; sessions counts
	// their watchers.
	calls    calls
	sessions sync.WaitGroup
	// endpoints are the addresses of the agents in a session this process
	// knows, by container ID (until the session ends).
	endpoints sync.Map
	// pool are the idle agents this process knows (see idlePool); looks
	// is the one look at a deployment's idle agents that the starts
	// waiting for one share.
	pool  *idlePool
	looks sharedLooks
	// asks are the agents a look is asking whether they take a session,
	// by container ID.
	asks sync.Map
	// running ends with Run's context: a pull under way ends with the
	// controller (the next holder pulls again).
	running context.Context
}

// New returns the reconciler of opts.
func New(opts Options) *Reconciler {
	if opts.Settle <= 0 {
		opts.Settle = runtime.DefaultSettle
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	if opts.Holder == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b) // error ignored: crypto/rand.Read never fails (Go 1.24+)
		opts.Holder = "platform-" + hex.EncodeToString(b)
	}
	if opts.NoRuntime == nil {
		opts.NoRuntime = func(region string) string {
			return fmt.Sprintf("region %s has no runtime: start botkit-platform serve with --runtime %s=docker:///var/run/docker.sock", region, region)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Resync <= 0 {
		opts.Resync = DefaultResync
	}
	if opts.ClaimTimeout <= 0 {
		opts.ClaimTimeout = DefaultClaimTimeout
	}
	if opts.IdleWindow <= 0 {
		opts.IdleWindow = DefaultIdleWindow
	}
	r := &Reconciler{opts: opts, st: opts.Store, log: log, queues: map[string]*queue{}, ops: newOps(), pool: newIdlePool()}
	for region, rt := range opts.Runtimes {
		if rt != nil {
			r.queues[region] = newQueue()
		}
	}
	return r
}

// HasRuntime reports whether region runs agents.
func (r *Reconciler) HasRuntime(region string) bool {
	return r != nil && r.opts.Runtimes[region] != nil
}

// NoRuntime is the error of an operation that needs region's runtime when
// it has none: unprocessable, saying how to add one.
func (r *Reconciler) NoRuntime(region string) *resources.Error {
	msg := fmt.Sprintf("region %s has no runtime: start botkit-platform serve with --runtime %s=docker:///var/run/docker.sock", region, region)
	if r != nil {
		msg = r.opts.NoRuntime(region)
	}
	return resources.Errorf(resources.CodeUnprocessable, "%s", msg)
}

// CheckEngine returns nil when region's engine answers, else the
// unprocessable error that refuses a deploy: a deployment made now would
// wait for an engine that may never come.
func (r *Reconciler) CheckEngine(ctx context.Context, region string) error {
	rt := r.runtimeOf(region)
	if rt == nil {
		return r.NoRuntime(region)
	}
	ctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	_, err := rt.List(ctx, runtime.Selector{runtime.LabelRegion: region, runtime.LabelAgent: ""})
	if runtime.ReasonOf(err) != runtime.ReasonUnreachable {
		return nil // answered (an error of another kind is the rollout's to report)
	}
	if r.opts.EngineDown != nil {
		return resources.Errorf(resources.CodeUnprocessable, "%s", r.opts.EngineDown(region))
	}
	return resources.Errorf(resources.CodeUnprocessable, "the container engine of region %s does not answer: nothing was deployed; deploy again once it is up", region)
}

// EngineDownMessage is what a read shows when region's engine does not
// answer (err: how it failed).
func (r *Reconciler) EngineDownMessage(region string, err error) string {
	if r.opts.EngineDown != nil {
		return r.opts.EngineDown(region)
	}
	return fmt.Sprintf("the container engine of region %s does not answer (%v): what the store says is shown", region, err)
}

// Regions returns the regions with a runtime.
func (r *Reconciler) Regions() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, region := range resources.Regions() {
		if r.opts.Runtimes[region] != nil {
			out = append(out, region)
		}
	}
	return out
}

func (r *Reconciler) runtimeOf(region string) runtime.Runtime {
	if r == nil {
		return nil
	}
	return r.opts.Runtimes[region]
}

// SpecOf decodes an agent row's spec.
func SpecOf(a store.Agent) (resources.AgentSpec, error) {
	var spec resources.AgentSpec
	if err := json.Unmarshal(a.Spec, &spec); err != nil {
		return spec, fmt.Errorf("agent %s: its stored spec does not decode: %w", a.Name, err)
	}
	return spec, nil
}

// ownerOf is the Owner of agent a's containers on this platform.
func (r *Reconciler) ownerOf(a store.Agent) runtime.Owner {
	return runtime.Owner{Platform: r.opts.Platform, Organization: a.OrgName, Region: a.Region, Agent: a.Name}
}

// depOwner is the Owner of agent a's deployment number's agents.
func (r *Reconciler) depOwner(a store.Agent, number int64) runtime.Owner {
	o := r.ownerOf(a)
	o.Deployment = int(number)
	return o
}

// lookTimeout bounds a read's look at the engine (status, lists): a read
// answers with what the store says when the engine does not.
const lookTimeout = 3 * time.Second

// containers lists agent a's containers, by deployment number, leaving out
// those being removed.
func (r *Reconciler) containers(ctx context.Context, rt runtime.Runtime, a store.Agent) (map[int64][]runtime.Agent, error) {
	cs, err := r.list(ctx, rt, runtime.ForOwner(r.ownerOf(a)))
	if err != nil {
		return nil, err
	}
	out := map[int64][]runtime.Agent{}
	for _, c := range cs {
		if r.ops.removing(c.ID) {
			continue
		}
		out[int64(c.Owner.Deployment)] = append(out[int64(c.Owner.Deployment)], c)
	}
	return out, nil
}

// list is rt.List without the containers that escape the lockdown every
// agent runs under (runtime.Agent.Unconfined): the platform never made
// them, whatever their labels say, so they are never counted, shown,
// adopted nor removed — their owner is warned once in the log.
func (r *Reconciler) list(ctx context.Context, rt runtime.Runtime, sel runtime.Selector) ([]runtime.Agent, error) {
	cs, err := rt.List(ctx, sel)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(cs, func(c runtime.Agent) bool {
		if c.Unconfined == "" {
			return false
		}
		if _, seen := r.unconfined.LoadOrStore(c.ID, true); !seen {
			r.log.Warn("leaving alone a container with the platform's labels that no agent runs as", "container", c.Name, "why", c.Unconfined)
		}
		return true
	}), nil
}

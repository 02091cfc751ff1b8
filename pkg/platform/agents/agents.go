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
	"errors"
	"fmt"
	"log/slog"
	"sync"
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
	// PassLock, when set, is taken by every pass over a region instead of
	// the store's lease: the processes that share one embedded data
	// directory take turns (a pass waits for another's), and a lock that
	// ends with its process holds up nobody after a kill -9. It returns
	// the lock's release, or ctx's error while it waits.
	PassLock func(ctx context.Context, region string) (release func(), err error)
	// SkipEmptyRegions: ReconcileAll leaves the regions without agents
	// alone (their engine is not asked for containers to remove).
	SkipEmptyRegions bool
	// Logger receives the reconciler's events (never a value).
	Logger *slog.Logger
	// AfterStart, when set, is called by a pass right after it started a
	// rolling-out deployment's agents, before it looks at them; its error
	// ends the pass there, as if the platform had stopped at that point
	// (tests interrupt a rollout with it).
	AfterStart func(ctx context.Context, org, agent string, deployment int64) error
}

// Reconciler makes the engines run what the store says.
type Reconciler struct {
	opts   Options
	st     store.Store
	log    *slog.Logger
	locks  sync.Map // region → *regionLock
	closed chan struct{}
}

type regionLock struct {
	mu      sync.Mutex
	renewed time.Time // when this process last got the lease
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
	return &Reconciler{opts: opts, st: opts.Store, log: log, closed: make(chan struct{})}
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
	_, err := rt.List(ctx, runtime.Selector{runtime.LabelRegion: region, runtime.LabelAgent: ""})
	if runtime.ReasonOf(err) != runtime.ReasonUnreachable {
		return nil // answered (an error of another kind is the rollout's to report)
	}
	if r.opts.EngineDown != nil {
		return resources.Errorf(resources.CodeUnprocessable, "%s", r.opts.EngineDown(region))
	}
	return resources.Errorf(resources.CodeUnprocessable, "the container engine of region %s does not answer: nothing was deployed; deploy again once it is up", region)
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

// Close gives up this process's region leases (another replica takes the
// regions over at once) and stops the background passes.
func (r *Reconciler) Close() {
	if r == nil {
		return
	}
	select {
	case <-r.closed:
		return
	default:
		close(r.closed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if r.opts.PassLock != nil {
		return // no lease taken
	}
	for _, region := range r.Regions() {
		if v, ok := r.locks.Load(region); ok {
			l := v.(*regionLock)
			l.mu.Lock()
			l.renewed = time.Time{}
			l.mu.Unlock()
		}
		if err := r.st.ReleaseLease(ctx, LeaseName(region), r.opts.Holder); err != nil {
			r.log.Warn("releasing the reconcile lease", "region", region, "error", err.Error())
		}
	}
}

// lock serializes this process's passes over region and takes (or renews)
// the region's lease; ok is false when another replica holds it (this one
// then only reads).
func (r *Reconciler) lock(ctx context.Context, region string) (unlock func(), ok bool, err error) {
	select {
	case <-r.closed:
		return nil, false, nil // closed: another replica reconciles
	default:
	}
	v, _ := r.locks.LoadOrStore(region, &regionLock{})
	l := v.(*regionLock)
	l.mu.Lock()
	if r.opts.PassLock != nil {
		release, err := r.opts.PassLock(ctx, region)
		if err != nil {
			l.mu.Unlock()
			return nil, false, err
		}
		return func() { release(); l.mu.Unlock() }, true, nil
	}
	// Renewed within a third of its time to live: still ours.
	if !l.renewed.IsZero() && time.Since(l.renewed) < r.opts.LeaseTTL/3 {
		return l.mu.Unlock, true, nil
	}
	got, err := r.st.AcquireLease(ctx, LeaseName(region), r.opts.Holder, r.opts.LeaseTTL)
	if err != nil || !got {
		l.renewed = time.Time{}
		l.mu.Unlock()
		return nil, false, err
	}
	l.renewed = time.Now()
	return l.mu.Unlock, true, nil
}

// Reconcile runs one pass over agent a (a row as read; it is read again
// under the lock). A replica without the region's lease does nothing.
func (r *Reconciler) Reconcile(ctx context.Context, a store.Agent) error {
	rt := r.runtimeOf(a.Region)
	if rt == nil {
		return nil
	}
	unlock, ok, err := r.lock(ctx, a.Region)
	if err != nil || !ok {
		return err
	}
	defer unlock()
	cur, err := r.st.Agent(ctx, a.OrgID, a.Name)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted meanwhile: the region's pass removes its containers
	}
	if err != nil {
		return err
	}
	cur.OrgName = a.OrgName
	if err := r.pass(ctx, rt, cur); err != nil {
		r.log.Warn("reconcile", "org", a.OrgName, "agent", a.Name, "error", err.Error())
		return err
	}
	return nil
}

// ReconcileRegion runs one pass over every agent of region and removes the
// containers of agents that no longer exist. A replica without the
// region's lease does nothing.
func (r *Reconciler) ReconcileRegion(ctx context.Context, region string) error {
	rt := r.runtimeOf(region)
	if rt == nil {
		return nil
	}
	unlock, ok, err := r.lock(ctx, region)
	if err != nil || !ok {
		return err
	}
	defer unlock()
	list, err := r.st.RegionAgents(ctx, region)
	if err != nil {
		return err
	}
	known := map[[2]string]bool{}
	var errs []error
	for _, a := range list {
		known[[2]string{a.OrgName, a.Name}] = true
		if err := r.pass(ctx, rt, a); err != nil {
			r.log.Warn("reconcile", "org", a.OrgName, "agent", a.Name, "error", err.Error())
			errs = append(errs, fmt.Errorf("agent %s/%s: %w", a.OrgName, a.Name, err))
		}
	}
	cs, err := rt.List(ctx, runtime.Selector{runtime.LabelRegion: region})
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, c := range cs {
		if !known[[2]string{c.Owner.Organization, c.Owner.Agent}] {
			r.log.Info("removing the container of a deleted agent", "org", c.Owner.Organization, "agent", c.Owner.Agent, "container", c.Name)
			if err := rt.Remove(ctx, c.ID, r.opts.Grace); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// ReconcileAll reconciles every region with a runtime (at platform start).
func (r *Reconciler) ReconcileAll(ctx context.Context) error {
	var errs []error
	for _, region := range r.Regions() {
		if r.opts.SkipEmptyRegions {
			list, err := r.st.RegionAgents(ctx, region)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if len(list) == 0 {
				continue
			}
		}
		if err := r.ReconcileRegion(ctx, region); err != nil {
			errs = append(errs, fmt.Errorf("region %s: %w", region, err))
		}
	}
	return errors.Join(errs...)
}

// Run reconciles every region each interval until ctx ends or Close
// (botkit-platform serve's background pass).
func (r *Reconciler) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.closed:
			return
		case <-t.C:
		}
		if err := r.ReconcileAll(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("reconcile pass", "error", err.Error())
		}
	}
}

// SpecOf decodes an agent row's spec.
func SpecOf(a store.Agent) (resources.AgentSpec, error) {
	var spec resources.AgentSpec
	if err := json.Unmarshal(a.Spec, &spec); err != nil {
		return spec, fmt.Errorf("agent %s: its stored spec does not decode: %w", a.Name, err)
	}
	return spec, nil
}

func ownerOf(a store.Agent) runtime.Owner {
	return runtime.Owner{Organization: a.OrgName, Region: a.Region, Agent: a.Name}
}

// containers lists agent a's containers, by deployment number.
func containers(ctx context.Context, rt runtime.Runtime, a store.Agent) (map[int64][]runtime.Agent, error) {
	cs, err := rt.List(ctx, runtime.ForOwner(ownerOf(a)))
	if err != nil {
		return nil, err
	}
	out := map[int64][]runtime.Agent{}
	for _, c := range cs {
		out[int64(c.Owner.Deployment)] = append(out[int64(c.Owner.Deployment)], c)
	}
	return out, nil
}

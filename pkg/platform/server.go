package platform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/agentcall"
	"github.com/botkit-dev/botkit/pkg/platform/agents"
	"github.com/botkit-dev/botkit/pkg/platform/callpage"
	"github.com/botkit-dev/botkit/pkg/platform/encryption"
	"github.com/botkit-dev/botkit/pkg/platform/httpapi"
	"github.com/botkit-dev/botkit/pkg/platform/provision"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// MasterKeyFile is the name of the generated master key inside
// Options.DataDir.
const MasterKeyFile = "master.key"

// Options configure a platform Server.
type Options struct {
	// Store is the database the platform keeps its state in, opened by the
	// caller (the platform core links no database driver: botkit-platform
	// opens SQLite or PostgreSQL, the CLI's embedded platform SQLite only).
	// The Server owns it from Open on and closes it with Close.
	Store store.Store
	// DataDir is the directory of a store this server has to itself
	// (SQLite): it holds, unless MasterKeyFile is set, the generated master
	// key (master.key) and the tokens' revocation epoch. Empty means a store
	// that several servers share (PostgreSQL replicas): MasterKeyFile is
	// then required, and revocations are read from the store.
	DataDir string
	// MasterKeyFile is the file of the 256-bit key that encrypts values.
	// Empty: DataDir/master.key, generated (0600) on first use.
	MasterKeyFile string
	// Metrics receives the platform's measurements and serves /metrics
	// (nil: nothing is measured and /metrics answers 404).
	Metrics Metrics
	// ProvisionLease is how long a claim on a pending image pull secret
	// lasts without renewal (default 10s): the verifying server renews it
	// while it works, and if that server dies another one takes the object
	// over once the lease ran out.
	ProvisionLease time.Duration
	// AllowPrivateRegistries lets image pull secret checks reach loopback and
	// private addresses. Link-local and cloud metadata addresses stay blocked.
	AllowPrivateRegistries bool
	// RecheckFailedPullSecrets has every image pull secret whose check
	// failed checked again as the server opens, with this server's
	// registry settings (botkit-platform serve: an operator who restarts it
	// with --allow-private-registries sees them checked again).
	RecheckFailedPullSecrets bool
	// NoAuthOrg, when set, serves requests that carry no Authorization
	// header as this organization (created with the default region if
	// missing). The embedded local platform of the CLI uses "local".
	// Requests with a token are still authenticated.
	NoAuthOrg string
	// Logger receives request logs and provisioning events (never bodies or
	// values). Nil discards them.
	Logger *slog.Logger
	// DisableProvisioner leaves objects pending (for tests and tools that
	// only read).
	DisableProvisioner bool
	// LazyProvisioner starts the provisioners at the first write instead of
	// at Open, so that opening costs no provisioning pass. For a short-lived
	// process that calls Drain before Close (the CLI's embedded platform):
	// what earlier processes left pending is provisioned by Drain.
	LazyProvisioner bool
	// PollInterval is how often provisioners look for pending objects when
	// not woken by a write (default 1s).
	PollInterval time.Duration
	// RegistryAttempts is how many times an unreachable registry is tried
	// before the image pull secret is marked failed (default 3), waiting
	// RegistryRetryDelay (default 1s, doubling) in between.
	RegistryAttempts   int
	RegistryRetryDelay time.Duration
	// RegistryTimeout bounds each request to a registry (default 10s).
	RegistryTimeout time.Duration

	// Runtimes are the container engines agents run on, by region
	// (botkit-platform serve --runtime REGION=docker://SOCKET); a region
	// without one refuses deploys with NoRuntime's words (nil: how to add
	// one to serve).
	Runtimes  map[string]runtime.Runtime
	NoRuntime func(region string) string
	// EngineDown says that a region's engine does not answer (nil: the
	// platform's words).
	EngineDown func(region string) string
	// AgentNetwork is the network agents join ("": runtime.DefaultNetwork,
	// a bridge network the platform makes).
	AgentNetwork string
	// AgentUser is the user every agent runs as, UID or UID:GID (see
	// runtime.ParseUser; "": each image's USER).
	AgentUser string
	// AgentSettle is how long a rollout's agents must run, ready, before
	// their deployment serves (0: runtime.DefaultSettle).
	AgentSettle time.Duration
	// ReconcileInterval is how often the controller of each region looks
	// at all of it when nothing woke it (0: agents.DefaultResync). Writes
	// and the engine's events wake it at once.
	ReconcileInterval time.Duration
	// ReconcileHolder names this process in the regions' reconcile leases
	// ("": a random name).
	ReconcileHolder string
	// ReconcileLock, when set, is what makes this process a region's
	// controller instead of the store's lease (agents.Options.PassLock):
	// the embedded platform's file lock, which the processes sharing its
	// data directory take in turn and which ends with a killed process.
	ReconcileLock func(ctx context.Context, region string) (release func(), err error)
	// SessionClaimTimeout bounds how long a session's start waits for an
	// agent (0: agents.DefaultClaimTimeout); SessionIdleWindow is how long
	// an agent started for a session stays idle above minAgents (0:
	// agents.DefaultIdleWindow).
	SessionClaimTimeout time.Duration
	SessionIdleWindow   time.Duration
	// DailyAPIKey is the operator's Daily API key: a session's start may
	// then ask for a Daily room (createDailyRoom). "": none may.
	// DailyAPIURL is Daily's REST API ("": daily.DefaultURL).
	DailyAPIKey string
	DailyAPIURL string
	// ICEServers are the STUN and TURN servers of WebRTC sessions (none
	// by default): in a webrtc session's start answer, and what every
	// agent reads at its ICE_CONFIG_URL. AgentURL is this platform's URL
	// as agents reach it on their network ("": ICE_CONFIG_URL is not set).
	ICEServers []resources.ICEServer
	AgentURL   string
	// AfterAgentsStart is agents.Options.AfterStart (tests: a rollout
	// interrupted between its agents' start and its promotion).
	AfterAgentsStart func(ctx context.Context, org, agent string, deployment int64) error
}

// Server is a platform instance over one store: the service, its HTTP
// handler and the provisioners. Create it with Open, serve Handler, and
// Close it when done. It is safe for concurrent use.
type Server struct {
	opts    Options
	store   store.Store
	svc     *service.Service
	handler http.Handler
	prov    *provision.Provisioner
	agents  *agents.Reconciler

	closeOnce sync.Once
	cancel    context.CancelFunc
	// streams ends the answers that stream (StopStreams).
	streams     context.Context
	stopStreams context.CancelFunc
	wg          sync.WaitGroup
	// stopAgents ends the agents' controller; agentsDone is closed once it
	// has stopped.
	stopAgents context.CancelFunc
	agentsDone chan struct{}
}

// ServingGCPercent is the garbage collector target of a serving process
// (botkit-platform serve, the benchmark's replicas) unless GOGC is set. A
// server's live heap is small (tokens, a connection pool, requests in
// flight) while every request makes garbage: collecting at 5x the live heap
// instead of 2x took a replica's CPU per merge from 66 to 50 µs in
// bench/platform, for a few more MB.
const ServingGCPercent = 400

// HTTPServer is the http.Server that serves h as a serving process does
// (botkit-platform serve, the benchmark's replicas): the timeouts of a
// server facing the network, and errorLog for net/http's own errors (nil:
// the standard logger).
func HTTPServer(h http.Handler, errorLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          errorLog,
	}
}

// ErrMasterKeyRequired is returned by Open for a shared store (no
// Options.DataDir) without Options.MasterKeyFile: a key generated per
// server would make every replica unable to read the others' values.
var ErrMasterKeyRequired = &resources.Error{Code: resources.CodeInvalid, Message: "--master-key-file is required with a PostgreSQL store (every replica must use the same key)"}

// errNoStore is returned by Open without Options.Store.
var errNoStore = errors.New("platform.Open: Options.Store is nil")

// Open opens the platform over opts.Store, loads or generates the master
// key and starts one provisioner per region. The store is closed when Open
// fails, and by Close otherwise.
func Open(ctx context.Context, opts Options) (*Server, error) {
	st := opts.Store
	if st == nil {
		return nil, errNoStore
	}
	if opts.DataDir == "" && opts.MasterKeyFile == "" {
		st.Close()
		return nil, ErrMasterKeyRequired
	}
	keyFile, create := opts.MasterKeyFile, false
	if keyFile == "" {
		keyFile, create = filepath.Join(opts.DataDir, MasterKeyFile), true
	}
	if err := checkPermissions(opts.DataDir, keyFile); err != nil {
		st.Close()
		return nil, err
	}
	sealer, err := encryption.OpenMasterKey(ctx, st, keyFile, create)
	if err != nil {
		st.Close()
		return nil, err
	}
	s := &Server{opts: opts, store: st}
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	var metrics Metrics = noMetrics{}
	if opts.Metrics != nil {
		metrics = opts.Metrics
	}
	s.prov = provision.New(provision.Options{
		Store: st, Sealer: sealer, Metrics: metrics, Logger: opts.Logger,
		Lease: opts.ProvisionLease, PollInterval: opts.PollInterval,
		Attempts: opts.RegistryAttempts, RetryDelay: opts.RegistryRetryDelay, Timeout: opts.RegistryTimeout,
		AllowPrivateRegistries: opts.AllowPrivateRegistries,
	})
	platformID := ""
	if len(opts.Runtimes) > 0 {
		if platformID, err = identity(ctx, st); err != nil {
			st.Close()
			return nil, err
		}
	}
	runtimes := opts.Runtimes
	if opts.AgentUser != "" {
		if _, err := runtime.ParseUser(opts.AgentUser); err != nil {
			st.Close()
			return nil, fmt.Errorf("agent user: %w", err)
		}
		runtimes = make(map[string]runtime.Runtime, len(opts.Runtimes))
		for region, rt := range opts.Runtimes {
			runtimes[region] = runtime.WithUser(rt, opts.AgentUser)
		}
	}
	s.agents = agents.New(agents.Options{Store: st, Sealer: sealer, Runtimes: runtimes, NoRuntime: opts.NoRuntime, EngineDown: opts.EngineDown,
		Network: opts.AgentNetwork, Settle: opts.AgentSettle, Holder: opts.ReconcileHolder, PassLock: opts.ReconcileLock, Logger: opts.Logger,
		Resync: opts.ReconcileInterval, Platform: platformID, AfterStart: opts.AfterAgentsStart,
		Caller: caller{&agentcall.Client{}}, ClaimTimeout: opts.SessionClaimTimeout, IdleWindow: opts.SessionIdleWindow,
		AgentEnv: func(org, agent string) map[string]string { return s.svc.AgentEnv(org, agent) }})
	svc, poll := service.New(ctx, service.Options{Store: st, Sealer: sealer, DataDir: opts.DataDir,
		NoAuthOrg: opts.NoAuthOrg, Wake: s.prov.Wake, CheckImage: s.checkImage, Agents: s.agents, Rooms: s.rooms(opts),
		ICEServers: opts.ICEServers, AgentURL: opts.AgentURL})
	s.svc = svc
	if poll != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			poll(runCtx)
		}()
	}
	if opts.NoAuthOrg != "" {
		if _, err := svc.Admin().EnsureOrg(ctx, opts.NoAuthOrg, resources.DefaultRegion); err != nil {
			s.Close()
			return nil, err
		}
	}
	s.streams, s.stopStreams = context.WithCancel(context.Background())
	s.handler = httpapi.New(httpapi.Options{Service: svc, Metrics: metrics, Logger: opts.Logger, Streams: s.streams, CallPage: callpage.FS()})
	if opts.DisableProvisioner {
		s.prov.Stop()
	} else {
		s.prov.Run(runCtx, &s.wg, opts.LazyProvisioner)
		if opts.RecheckFailedPullSecrets {
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.recheckFailed(runCtx)
			}()
		}
	}
	// The agents' controller runs for the server's life: in the process
	// that holds a region (lease or file lock), it drives the region's
	// engine — first setting right what a platform stopped in the middle
	// of a rollout left.
	var agentsCtx context.Context
	agentsCtx, s.stopAgents = context.WithCancel(context.Background())
	s.agentsDone = make(chan struct{})
	go func() {
		defer close(s.agentsDone)
		s.agents.Run(agentsCtx)
	}()
	return s, nil
}

// Handler returns the HTTP handler of the API (every route of
// api/openapi.yaml, /healthz and /metrics). It can be served by net/http or
// called in-process.
func (s *Server) Handler() http.Handler { return s.handler }

// StopStreams ends the answers that stream without an end (the agents'
// followed logs), those under way and those to come: a serving process
// calls it when it starts to drain, so that its followers do not hold the
// shutdown up. Close calls it too.
func (s *Server) StopStreams() {
	if s.stopStreams != nil {
		s.stopStreams()
	}
}

// Quiesce waits until the agents' controller has done what this
// process's writes asked of the engine, or ctx ends (the embedded platform
// calls it before Close: a command leaves the engine as its writes asked).
func (s *Server) Quiesce(ctx context.Context) { s.agents.Quiesce(ctx) }

// recheckFailed has the image pull secrets whose check failed checked
// again, and logs how many.
func (s *Server) recheckFailed(ctx context.Context) {
	n, err := s.svc.RecheckFailedPullSecrets(ctx)
	if s.opts.Logger == nil || ctx.Err() != nil {
		return
	}
	if err != nil {
		s.opts.Logger.Warn("checking failed image pull secrets again", "error", err.Error())
	} else if n > 0 {
		s.opts.Logger.Info("checking failed image pull secrets again", "count", n)
	}
}

// settingPlatformID is the store setting that holds the platform's
// identity.
const settingPlatformID = "platform-id"

// identity returns the platform's identity, made once per store: every
// container the platform makes carries it, and it touches no other.
func identity(ctx context.Context, st store.Store) (string, error) {
	if v, err := st.Setting(ctx, settingPlatformID); err != nil || v != nil {
		return string(v), err
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b) // error ignored: crypto/rand.Read never fails (Go 1.24+)
	v, err := st.InitSetting(ctx, settingPlatformID, []byte(hex.EncodeToString(b)))
	return string(v), err
}

// Admin returns the administration functions over the same store.
func (s *Server) Admin() *service.Admin { return s.svc.Admin() }

// Drain provisions what is pending now, in every region, and waits for it:
// secret sets become ready, image pull secrets are verified (those already
// being verified included). It returns when that is done or ctx ends; what
// is unfinished then stays pending for the next run. The embedded platform
// of the CLI drains before Close, so that what a command wrote (or an
// earlier, killed command left pending) does not stay pending.
func (s *Server) Drain(ctx context.Context) error {
	if s.opts.DisableProvisioner {
		return nil
	}
	return s.prov.Drain(ctx)
}

// Close stops the provisioners, waits for queued writes and closes the
// database. Call it after the HTTP server stopped.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.StopStreams()
		if s.prov != nil {
			s.prov.Stop() // no provisioner starts after this
		}
		s.cancel()
		s.wg.Wait()
		if s.stopAgents != nil {
			s.stopAgents() // leases given up: another replica takes the regions over at once
			<-s.agentsDone
		}
		err = s.store.Close()
	})
	return err
}

// checkImage is the service's ImageChecker: the provisioner's registry
// client, with its address guard.
func (s *Server) checkImage(ctx context.Context, c service.ImageCheck) service.ImageResult {
	r := s.prov.CheckImage(ctx, provision.ImageCheck{Base: c.Base, Repository: c.Repository, Reference: c.Reference, Credentials: c.Credentials})
	return service.ImageResult{Outcome: imageOutcomes[r.Outcome], Digest: r.Digest, Platforms: r.Platforms, Message: r.Message}
}

// imageOutcomes maps the provisioner's outcomes to the service's (an
// unmapped one is "", which the service reports with its message).
var imageOutcomes = map[string]string{
	provision.ImageFound:        service.ImageFound,
	provision.ImageUnauthorized: service.ImageUnauthorized,
	provision.ImageNotFound:     service.ImageNotFound,
	provision.ImageUnreachable:  service.ImageUnreachable,
}

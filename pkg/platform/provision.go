package platform

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// provisioner moves pending objects to ready or failed: one worker per
// region. Secret sets become ready at once (in batches); image pull secrets
// are verified against their registry, up to 4 at a time per region.
type provisioner struct {
	s        *Server
	wakeCh   map[string]chan struct{}
	client   *http.Client
	inflight sync.Map     // object ID → struct{}
	busy     atomic.Int64 // verifications started and not finished
}

func newProvisioner(s *Server) *provisioner {
	p := &provisioner{s: s, wakeCh: map[string]chan struct{}{},
		client: newGuardedClient(s.opts.AllowPrivateRegistries, s.opts.RegistryTimeout)}
	for _, r := range resources.Regions() {
		p.wakeCh[r] = make(chan struct{}, 1)
	}
	return p
}

// wake tells region's worker that something is pending.
func (p *provisioner) wake(region string) {
	if ch, ok := p.wakeCh[region]; ok {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

const pendingBatch = 500

// provisionDebounce is how long a woken provisioner waits for more writes
// before its pass.
const provisionDebounce = 25 * time.Millisecond

func (p *provisioner) run(ctx context.Context, region string) {
	ticker := time.NewTicker(p.s.opts.PollInterval)
	defer ticker.Stop()
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		more := p.pass(ctx, region, sem, &wg)
		if more {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wakeCh[region]:
			// Coalesce a burst of writes into one pass.
			select {
			case <-ctx.Done():
				return
			case <-time.After(provisionDebounce):
			}
		case <-ticker.C:
		}
	}
}

// pass marks the region's pending secret sets ready (for a secret set there
// is nothing to provision beyond the durable write) and starts the
// verification of pending image pull secrets. It reports whether more image
// pull secrets may be waiting.
func (p *provisioner) pass(ctx context.Context, region string, sem chan struct{}, wg *sync.WaitGroup) bool {
	if ctx.Err() != nil {
		return false
	}
	n, err := p.s.store.MarkPendingReady(ctx, region, resources.KindSecretSet)
	if err != nil {
		if ctx.Err() == nil {
			p.s.log.Error("provisioner: marking secret sets ready failed", "region", region, "error", err.Error())
		}
		return false
	}
	if n > 0 {
		p.s.metrics.provisioned.WithLabelValues(region, resources.KindSecretSet, resources.StateReady).Add(float64(n))
	}
	objs, err := p.s.store.Pending(ctx, region, resources.KindImagePullSecret, pendingBatch)
	if err != nil {
		if ctx.Err() == nil {
			p.s.log.Error("provisioner: listing pending objects failed", "region", region, "error", err.Error())
		}
		return false
	}
	started := 0
	for _, o := range objs {
		if _, busy := p.inflight.LoadOrStore(o.ID, struct{}{}); busy {
			continue
		}
		started++
		p.busy.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer p.busy.Add(-1)
			defer p.inflight.Delete(o.ID)
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			p.verify(ctx, o)
		}()
	}
	return len(objs) == pendingBatch && started > 0
}

// drain runs one pass over every region now and waits until the
// verifications it started, and those already in flight, are done — or ctx
// ends (what is unfinished then stays pending for the next run).
func (p *provisioner) drain(ctx context.Context) error {
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, region := range resources.Regions() {
		for p.pass(ctx, region, sem, &wg) {
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for p.busy.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return ctx.Err()
}

func (p *provisioner) verify(ctx context.Context, o store.Object) {
	res := p.check(ctx, o)
	if ctx.Err() != nil {
		return // shutting down: stays pending, retried after restart
	}
	up := store.StatusUpdate{ObjectID: o.ID, Generation: o.Generation, State: resources.StateReady}
	if !res.ok {
		up.State, up.Message = resources.StateFailed, res.message
	}
	n, err := p.s.store.SetStatus(ctx, []store.StatusUpdate{up})
	if err != nil {
		if ctx.Err() == nil {
			p.s.log.Error("provisioner: recording status failed", "object", o.Name, "error", err.Error())
		}
		return
	}
	if n > 0 {
		p.s.metrics.provisioned.WithLabelValues(o.Region, o.Kind, up.State).Inc()
		p.s.log.Info("provisioned", "kind", o.Kind, "name", o.Name, "region", o.Region, "state", up.State, "message", up.Message)
	}
	p.wake(o.Region) // a newer generation may be waiting
}

func (p *provisioner) check(ctx context.Context, o store.Object) verifyResult {
	org, err := p.orgName(ctx, o.OrgID)
	if err != nil {
		return verifyResult{message: "internal error reading the organization"}
	}
	vals, err := p.s.store.Values(ctx, o.ID)
	if err != nil {
		return verifyResult{message: "internal error reading the credentials"}
	}
	var b64 []byte
	for _, v := range vals {
		if v.Key == credentialsKey {
			if b64, err = p.s.sealer.open(org, o.Region, o.Name, v.Key, v.Ciphertext); err != nil {
				return verifyResult{message: err.Error()}
			}
		}
	}
	if b64 == nil {
		return verifyResult{message: "no credentials stored"}
	}
	delay := p.s.opts.RegistryRetryDelay
	var res verifyResult
	for attempt := 1; attempt <= p.s.opts.RegistryAttempts; attempt++ {
		res = verifyRegistry(ctx, p.client, o.Host, string(b64))
		if res.ok || !res.retryable || attempt == p.s.opts.RegistryAttempts {
			break
		}
		select {
		case <-ctx.Done():
			return res
		case <-time.After(delay):
		}
		delay *= 2
	}
	if !res.ok && res.retryable {
		res.message = fmt.Sprintf("%s (after %d attempts)", res.message, p.s.opts.RegistryAttempts)
	}
	return res
}

func (p *provisioner) orgName(ctx context.Context, id int64) (string, error) {
	orgs, err := p.s.store.Orgs(ctx)
	if err != nil {
		return "", err
	}
	for _, o := range orgs {
		if o.ID == id {
			return o.Name, nil
		}
	}
	return "", fmt.Errorf("organization %d not found", id)
}

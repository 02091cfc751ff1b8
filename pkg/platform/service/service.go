package service

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/botkit-dev/botkit/pkg/platform/agents"
	"github.com/botkit-dev/botkit/pkg/platform/encryption"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/wire"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Options configure a Service.
type Options struct {
	Store  store.Store
	Sealer *encryption.Sealer
	// DataDir is the data directory of a store the platform has to itself
	// (SQLite), where token revocations are announced (TokensEpochFile);
	// empty for a shared store, whose tokens epoch is read instead.
	DataDir string
	// NoAuthOrg, when set, serves callers without a token as this
	// organization (the CLI's embedded platform: "local").
	NoAuthOrg string
	// Wake is called after a write left objects pending in region (the
	// provisioner's wake-up); nil: nobody is told.
	Wake func(region string)
	// CheckImage asks a registry for an image (preflight); nil: images are
	// not checked.
	CheckImage ImageChecker
	// Agents runs the agents (nil: no region has a runtime).
	Agents *agents.Reconciler
	// Rooms makes the sessions' Daily rooms (nil: no Daily API key, a
	// start that asks for a room is refused).
	Rooms Rooms
	// ICEServers are the STUN and TURN servers of WebRTC sessions (the
	// operator's; none by default); AgentURL is where agents reach this
	// platform to read them ("": their ICE_CONFIG_URL is not set).
	ICEServers []resources.ICEServer
	AgentURL   string
}

// Service is the platform's operations: the secret sets and image pull
// secrets of an organization (read, merge, replace, delete, apply, audit),
// authentication, and administration. It knows nothing of HTTP: its errors
// are *resources.Error (or store errors, which AsError maps), and the HTTP
// layer (package httpapi) turns them into statuses.
type Service struct {
	store      store.Store
	sealer     *encryption.Sealer
	tokens     *tokenCache
	admin      *Admin
	noAuthOrg  string
	iceServers []resources.ICEServer
	agentURL   string
	wakeFn     func(string)
	checkImage ImageChecker
	agents     *agents.Reconciler
	rooms      Rooms
	// identities caches decrypted sealing keys: "orgID/keyID" →
	// *sealed.Identity.
	identities sync.Map
}

// New returns the service over opts.Store and, for a shared store (no
// DataDir), the poll of its tokens epoch, for the caller to run in a
// goroutine until its context ends (nil otherwise).
func New(ctx context.Context, opts Options) (s *Service, poll func(ctx context.Context)) {
	s = &Service{store: opts.Store, sealer: opts.Sealer, noAuthOrg: opts.NoAuthOrg, wakeFn: opts.Wake, checkImage: opts.CheckImage, agents: opts.Agents, rooms: opts.Rooms,
		iceServers: opts.ICEServers, agentURL: strings.TrimSuffix(opts.AgentURL, "/")}
	epochPath := ""
	if opts.DataDir != "" {
		epochPath = epochFile(opts.DataDir)
		s.tokens = newTokenCache(epochPath)
	} else {
		e := &storeEpoch{}
		e.refresh(ctx, opts.Store)
		s.tokens = newStoreTokenCache(e)
		poll = func(ctx context.Context) { e.poll(ctx, opts.Store) }
	}
	s.admin = &Admin{store: opts.Store, epochPath: epochPath, onRevoke: s.tokens.clear}
	return s, poll
}

// Admin returns the administration functions over the same store.
func (s *Service) Admin() *Admin { return s.admin }

func (s *Service) wake(region string) {
	if s.wakeFn != nil {
		s.wakeFn(region)
	}
}

// Principal is who makes a request: a token's user in its organization,
// or (with Options.NoAuthOrg) the local user.
type Principal struct {
	org     store.Org
	user    string
	tokenID string
}

// Org is the principal's organization.
func (p Principal) Org() store.Org { return p.org }

// Me is the principal as GET /v1/me shows it.
func (p Principal) Me() resources.Me {
	return resources.Me{User: p.user, TokenID: p.tokenID,
		Organizations: []resources.Organization{{Name: p.org.Name, DefaultRegion: p.org.DefaultRegion}}}
}

func (p Principal) actor() string {
	if p.tokenID == "" {
		return p.user
	}
	return p.user + " (" + p.tokenID + ")"
}

// CheckOrg refuses any organization but the principal's own, as a missing
// one: nothing tells another organization from one that does not exist.
func (p Principal) CheckOrg(org string) error {
	if org != p.org.Name {
		return ErrOrgNotFound(org)
	}
	return nil
}

// Authenticate resolves the caller from the value of an Authorization
// header ("Bearer bkp_…"; empty: no credentials).
func (s *Service) Authenticate(ctx context.Context, authorization string) (Principal, error) {
	if authorization == "" {
		if s.noAuthOrg == "" {
			return Principal{}, ErrUnauthenticated
		}
		org, err := s.store.Org(ctx, s.noAuthOrg)
		if err != nil {
			return Principal{}, err
		}
		return Principal{org: org, user: "local"}, nil
	}
	scheme, tok, ok := strings.Cut(authorization, " ")
	tok = strings.TrimSpace(tok)
	if ok && strings.HasPrefix(tok, PublicKeyPrefix) {
		return Principal{}, errPublicKeyOnPrivateAPI
	}
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(tok, TokenPrefix) || len(tok) > 256 {
		return Principal{}, ErrUnauthenticated
	}
	hash := hashToken(tok)
	t, ep, ok := s.tokens.get(hash)
	if !ok {
		var err error
		t, err = s.store.TokenByHash(ctx, hash)
		if errors.Is(err, store.ErrNotFound) {
			return Principal{}, ErrUnauthenticated
		}
		if err != nil {
			return Principal{}, err
		}
		if subtle.ConstantTimeCompare(t.Hash, hash) != 1 || t.RevokedAt != nil {
			return Principal{}, ErrUnauthenticated
		}
		s.tokens.put(hash, t, ep)
	}
	org := store.Org{ID: t.OrgID, Name: t.OrgName, DefaultRegion: t.OrgRegion}
	return Principal{org: org, user: t.User, tokenID: t.ID}, nil
}

// Regions lists the platform's regions.
func (s *Service) Regions() resources.RegionList {
	var list resources.RegionList
	for _, name := range resources.Regions() {
		list.Items = append(list.Items, resources.Region{Name: name, Default: name == resources.DefaultRegion})
	}
	return list
}

// Get returns the object name of p's organization.
func (s *Service) Get(ctx context.Context, p Principal, name string) (store.Object, error) {
	o, err := s.store.Object(ctx, p.org.ID, name)
	if errors.Is(err, store.ErrNotFound) {
		return o, errObjectNotFound(name)
	}
	return o, err
}

// MaxListLimit is the largest page of a list.
const MaxListLimit = 10000

// ListRequest is a list's query, as GET .../secrets takes it.
type ListRequest struct {
	Region, Kind, LabelSelector string
	Limit                       string // "" = everything
	Continue                    string // the token of the previous page's end
}

// List calls fn with each object of p's organization that the request
// selects, by name, one page's worth; next is the token of the next page
// ("" after the last). The item is reused between calls.
func (s *Service) List(ctx context.Context, p Principal, req ListRequest, fn func(*store.ListItem)) (next string, err error) {
	lq := store.ListQuery{OrgID: p.org.ID, Region: req.Region, Kind: req.Kind}
	if lq.Region != "" {
		if err := resources.ValidateRegion(lq.Region); err != nil {
			return "", errInvalid("region: %v", err)
		}
	}
	if lq.Kind != "" {
		if err := resources.ValidateKind(lq.Kind); err != nil {
			return "", errInvalid("kind: %v", err)
		}
	}
	sel, err := resources.ParseSelector(req.LabelSelector)
	if err != nil {
		return "", errInvalid("labelSelector: %v", err)
	}
	limit := 0
	if v := req.Limit; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxListLimit {
			return "", errInvalid("limit: want a number from 1 to %d", MaxListLimit)
		}
		limit = n
	}
	if c := req.Continue; c != "" {
		// A token is the base64 of the last name of the previous page: it
		// must decode to a valid object name, or it is not one of ours.
		after, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil || resources.ValidateName(string(after)) != nil {
			return "", errInvalid("continue: not a token returned by a previous list")
		}
		lq.After = string(after)
	}
	n := 0
	last := ""
	var labels map[string]string // the item's labels, for a selector
	err = s.store.List(ctx, lq, func(it *store.ListItem) (bool, error) {
		if len(sel) > 0 {
			if labels == nil {
				labels = map[string]string{}
			}
			clear(labels)
			for i := 0; i+1 < len(it.LabelPairs); i += 2 {
				labels[it.LabelPairs[i]] = it.LabelPairs[i+1]
			}
			if !sel.Matches(labels) {
				return true, nil
			}
		}
		if limit > 0 && n == limit {
			next = base64.RawURLEncoding.EncodeToString([]byte(last))
			return false, nil
		}
		fn(it)
		last = it.Name
		n++
		return true, nil
	})
	return next, err
}

// MaxAuditLimit is the most audit records one request returns.
const MaxAuditLimit = 1000

// Audit returns the latest limit ("" = 100) audit records of p's
// organization, newest first.
func (s *Service) Audit(ctx context.Context, p Principal, limit string) ([]resources.AuditEntry, error) {
	n := 100
	if limit != "" {
		v, err := strconv.Atoi(limit)
		if err != nil || v < 1 || v > MaxAuditLimit {
			return nil, errInvalid("limit: want a number from 1 to %d", MaxAuditLimit)
		}
		n = v
	}
	recs, err := s.store.Audit(ctx, p.org.Name, n)
	if err != nil {
		return nil, err
	}
	items := make([]resources.AuditEntry, 0, len(recs))
	for _, a := range recs {
		items = append(items, resources.AuditEntry{Time: a.At, Actor: a.Actor, Action: a.Action, Kind: a.Kind, Name: a.Name, Region: a.Region, Keys: nonNil(a.Keys)})
	}
	return items, nil
}

// Precondition is a write's condition on the object's current version.
type Precondition struct {
	IfMatch     string // If-Match's value: "*" or a list of ETags; "" = none
	IfNoneMatch string // "*" = must not exist; "" = none
}

// Merge merges pt into the object name (PATCH), creating it when missing;
// created tells which.
func (s *Service) Merge(ctx context.Context, p Principal, name string, pt resources.Patch, pc Precondition) (o store.Object, created bool, err error) {
	if pc.IfNoneMatch != "" && strings.TrimSpace(pc.IfNoneMatch) != "*" {
		return o, false, errInvalid("If-None-Match: only * is supported")
	}
	return s.merge(ctx, p, name, pt, precondition{ifMatch: pc.IfMatch, ifNoneMatch: pc.IfNoneMatch})
}

// Replace replaces the object name with in (PUT), or with dryRun only plans
// it.
func (s *Service) Replace(ctx context.Context, p Principal, name string, in resources.Object, ifMatch string, dryRun bool) (store.Object, resources.Plan, bool, error) {
	return s.replace(ctx, p, name, in, ifMatch, dryRun)
}

// Delete deletes the object name and returns it as it was.
func (s *Service) Delete(ctx context.Context, p Principal, name, ifMatch string) (store.Object, error) {
	return s.deleteObject(ctx, p, name, ifMatch)
}

// DeleteKey deletes one key of the secret set name.
func (s *Service) DeleteKey(ctx context.Context, p Principal, name, key string) (store.Object, error) {
	return s.deleteKey(ctx, p, name, key)
}

// Apply applies the objects of req in one transaction (POST .../apply).
func (s *Service) Apply(ctx context.Context, p Principal, req wire.RawApplyRequest) (resources.ApplyResult, error) {
	if req.Objects == nil {
		return resources.ApplyResult{}, errInvalid("objects is required (a list; [] with prune applies no object and prunes)")
	}
	return s.apply(ctx, p, req)
}

// DeleteMany deletes the objects of req in one transaction (POST .../delete).
func (s *Service) DeleteMany(ctx context.Context, p Principal, req resources.DeleteRequest) (resources.DeleteResult, error) {
	if req.Objects == nil {
		return resources.DeleteResult{}, errInvalid("objects is required (a list of the objects to delete)")
	}
	return s.deleteMany(ctx, p, req)
}

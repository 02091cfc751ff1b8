package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// TokenPrefix starts every API token.
const TokenPrefix = "bkp_"

// Admin holds the administration functions: organizations and tokens. The
// botkit-platform admin commands use it through NewAdmin (they need no
// master key and may run while `serve` runs); an in-process embedder gets it
// from Server.Admin.
type Admin struct {
	store     store.Store
	closer    func() error
	epochPath string
	onRevoke  func()
}

// NewAdmin returns the administration functions over st alone: no master
// key, no provisioners, no HTTP. dataDir is the data directory of a store
// the platform has to itself (SQLite), where revocations are announced to
// a running server; empty for a shared store. Close closes st.
func NewAdmin(st store.Store, dataDir string) *Admin {
	a := &Admin{store: st, closer: st.Close}
	if dataDir != "" {
		a.epochPath = filepath.Join(dataDir, TokensEpochFile)
	}
	return a
}

// Close closes an Admin made with NewAdmin, and its store (a no-op for
// Server.Admin).
func (a *Admin) Close() error {
	if a.closer != nil {
		return a.closer()
	}
	return nil
}

// Organization is an organization as the admin functions report it.
type Organization struct {
	Name          string    `json:"name"`
	DefaultRegion string    `json:"defaultRegion"`
	CreatedAt     time.Time `json:"createdAt"`
}

// ErrExists, ErrNotFound and ErrInvalid match (errors.Is) the admin
// functions' errors of each code: an organization that exists, a missing
// organization or token, an invalid name or region.
var (
	ErrExists   error = &resources.Error{Code: resources.CodeConflict}
	ErrNotFound error = &resources.Error{Code: resources.CodeNotFound}
	ErrInvalid  error = &resources.Error{Code: resources.CodeInvalid}
)

// CreateOrg creates organization name with defaultRegion ("" = us-west).
func (a *Admin) CreateOrg(ctx context.Context, name, defaultRegion string) (Organization, error) {
	if err := resources.ValidateName(name); err != nil {
		return Organization{}, errInvalid("organization %v", err)
	}
	if defaultRegion == "" {
		defaultRegion = resources.DefaultRegion
	}
	if err := resources.ValidateRegion(defaultRegion); err != nil {
		return Organization{}, errInvalid("default region: %v", err)
	}
	var o store.Org
	err := a.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		var err error
		o, err = tx.CreateOrg(ctx, store.Org{Name: name, DefaultRegion: defaultRegion})
		return err
	})
	if errors.Is(err, store.ErrExists) {
		return Organization{}, errConflict("organization %q: already exists", name)
	}
	if err != nil {
		return Organization{}, err
	}
	return Organization{Name: o.Name, DefaultRegion: o.DefaultRegion, CreatedAt: o.CreatedAt}, nil
}

// EnsureOrg creates the organization unless it exists and returns it.
func (a *Admin) EnsureOrg(ctx context.Context, name, defaultRegion string) (Organization, error) {
	if o, err := a.store.Org(ctx, name); err == nil {
		return Organization{Name: o.Name, DefaultRegion: o.DefaultRegion, CreatedAt: o.CreatedAt}, nil
	}
	o, err := a.CreateOrg(ctx, name, defaultRegion)
	if errors.Is(err, ErrExists) {
		so, err := a.store.Org(ctx, name)
		return Organization{Name: so.Name, DefaultRegion: so.DefaultRegion, CreatedAt: so.CreatedAt}, err
	}
	return o, err
}

// ListOrgs lists organizations by name.
func (a *Admin) ListOrgs(ctx context.Context) ([]Organization, error) {
	orgs, err := a.store.Orgs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Organization, 0, len(orgs))
	for _, o := range orgs {
		out = append(out, Organization{Name: o.Name, DefaultRegion: o.DefaultRegion, CreatedAt: o.CreatedAt})
	}
	return out, nil
}

// TokenInfo describes a token without its secret.
type TokenInfo struct {
	ID           string     `json:"id"`
	Organization string     `json:"organization"`
	User         string     `json:"user"`
	CreatedAt    time.Time  `json:"createdAt"`
	RevokedAt    *time.Time `json:"revokedAt,omitempty"`
}

func hashToken(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

var tokenEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// CreateToken creates a token of organization org for user ("" = "admin")
// and returns it. The token itself is returned only here: only its SHA-256
// is stored.
func (a *Admin) CreateToken(ctx context.Context, org, user string) (token string, info TokenInfo, err error) {
	if user == "" {
		user = "admin"
	}
	o, err := a.store.Org(ctx, org)
	if errors.Is(err, store.ErrNotFound) {
		return "", info, errNotFound("organization %q: not found (create it with `botkit-platform orgs create %s`)", org, org)
	}
	if err != nil {
		return "", info, err
	}
	secret := make([]byte, 32)
	idb := make([]byte, 6)
	if _, err := rand.Read(secret); err != nil {
		return "", info, err
	}
	if _, err := rand.Read(idb); err != nil {
		return "", info, err
	}
	token = TokenPrefix + strings.ToLower(tokenEncoding.EncodeToString(secret))
	info = TokenInfo{ID: "tok_" + hex.EncodeToString(idb), Organization: o.Name, User: user, CreatedAt: time.Now().UTC()}
	err = a.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		return tx.CreateToken(ctx, store.Token{ID: info.ID, Hash: hashToken(token), OrgID: o.ID, User: user, CreatedAt: info.CreatedAt})
	})
	if err != nil {
		return "", TokenInfo{}, err
	}
	return token, info, nil
}

// RevokeToken revokes a token given its ID (tok_...) or the token itself
// (bkp_...). A revoked token is refused by the very next request.
func (a *Admin) RevokeToken(ctx context.Context, idOrToken string) error {
	id := idOrToken
	if strings.HasPrefix(idOrToken, TokenPrefix) {
		t, err := a.store.TokenByHash(ctx, hashToken(idOrToken))
		if errors.Is(err, store.ErrNotFound) {
			return errNotFound("token: not found")
		}
		if err != nil {
			return err
		}
		id = t.ID
	}
	err := a.store.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.RevokeToken(ctx, id) })
	if errors.Is(err, store.ErrNotFound) {
		return errNotFound("token %q: not found (or already revoked)", id)
	}
	if err != nil {
		return err
	}
	if a.onRevoke != nil {
		a.onRevoke()
	}
	// Tell running servers on a SQLite store to drop their token caches
	// (on PostgreSQL, RevokeToken advanced the store's tokens epoch).
	if a.epochPath == "" {
		return nil
	}
	if err := bumpTokensEpoch(a.epochPath); err != nil {
		return fmt.Errorf("token %s revoked, but running servers may accept it for up to %s: %w", id, tokenTTL, err)
	}
	return nil
}

// ListTokens lists the tokens of organization org.
func (a *Admin) ListTokens(ctx context.Context, org string) ([]TokenInfo, error) {
	o, err := a.store.Org(ctx, org)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNotFound("organization %q: not found", org)
	}
	if err != nil {
		return nil, err
	}
	toks, err := a.store.Tokens(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	out := make([]TokenInfo, 0, len(toks))
	for _, t := range toks {
		out = append(out, TokenInfo{ID: t.ID, Organization: t.OrgName, User: t.User, CreatedAt: t.CreatedAt, RevokedAt: t.RevokedAt})
	}
	return out, nil
}

// SetHistoryLimit sets how many versions the objects of organization org
// keep (MinHistoryLimit to MaxHistoryLimit). Older versions go at each
// object's next write.
func (a *Admin) SetHistoryLimit(ctx context.Context, org string, limit int) error {
	if limit < MinHistoryLimit || limit > MaxHistoryLimit {
		return errInvalid("history limit %d: want a number from %d to %d", limit, MinHistoryLimit, MaxHistoryLimit)
	}
	o, err := a.store.Org(ctx, org)
	if errors.Is(err, store.ErrNotFound) {
		return errNotFound("organization %q: not found", org)
	}
	if err != nil {
		return err
	}
	return a.store.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.SetHistoryLimit(ctx, o.ID, limit) })
}

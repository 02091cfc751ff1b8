package service

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// PublicKeyPrefix starts every public key: an organization's key for the
// public session API (pk_…), never an API token.
const PublicKeyPrefix = "pk_"

// publicKeyShown is how many characters of a key after its prefix are
// kept and shown to tell keys apart (pk_ab12cd…): 30 of its 256 random bits.
const publicKeyShown = 6

// ErrPublicKeyUnauthenticated answers a public API request without a
// valid public key.
var ErrPublicKeyUnauthenticated = &resources.Error{Code: resources.CodeUnauthenticated,
	Message: "missing, unknown or deleted public key (send Authorization: Bearer pk_…)"}

// errPublicKeyOnPrivateAPI answers a public key sent to the private API.
var errPublicKeyOnPrivateAPI = &resources.Error{Code: resources.CodeUnauthenticated,
	Message: "a public key (pk_…) only starts and reaches sessions; this API takes an API token"}

// PublicPrincipal is who calls the public session API: a public key of an
// organization.
type PublicPrincipal struct {
	org     store.Org
	keyID   string
	origins []string
}

// Org is the key's organization.
func (p PublicPrincipal) Org() store.Org { return p.org }

// KeyID is the key's ID (key_…), never the key.
func (p PublicPrincipal) KeyID() string { return p.keyID }

// AllowedOrigins are the origins browsers may call the public API from
// with this key (none: same-origin only).
func (p PublicPrincipal) AllowedOrigins() []string { return slices.Clone(p.origins) }

// AllowsOrigin reports whether origin (a request's Origin header) is one
// of the key's allowed origins.
func (p PublicPrincipal) AllowsOrigin(origin string) bool {
	return origin != "" && slices.Contains(p.origins, strings.ToLower(origin))
}

// AuthenticatePublicKey resolves the caller of the public session API from
// its key (raw: the bearer credential, pk_…). An unknown or deleted key,
// or anything else (an API token included), is ErrPublicKeyUnauthenticated.
// Lookups are not cached: a deleted key is refused by the next request on
// every replica (PublicSessionEndpoint reads the key with the session).
func (s *Service) AuthenticatePublicKey(ctx context.Context, raw string) (PublicPrincipal, error) {
	if !strings.HasPrefix(raw, PublicKeyPrefix) || len(raw) > 256 {
		return PublicPrincipal{}, ErrPublicKeyUnauthenticated
	}
	hash := hashToken(raw)
	k, err := s.store.PublicKeyByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return PublicPrincipal{}, ErrPublicKeyUnauthenticated
	}
	if err != nil {
		return PublicPrincipal{}, err
	}
	if subtle.ConstantTimeCompare(k.Hash, hash) != 1 || k.DeletedAt != nil {
		return PublicPrincipal{}, ErrPublicKeyUnauthenticated
	}
	return principalOf(k), nil
}

// principalOf is the caller that key k authenticates.
func principalOf(k store.PublicKey) PublicPrincipal {
	return PublicPrincipal{org: store.Org{ID: k.OrgID, Name: k.OrgName, DefaultRegion: k.OrgRegion}, keyID: k.ID, origins: k.AllowedOrigins}
}

// CreatePublicKey makes a public key of p's organization and returns it:
// the key is in the answer this once (only its SHA-256 is stored).
func (s *Service) CreatePublicKey(ctx context.Context, p Principal, req resources.PublicKeyRequest) (resources.CreatedPublicKey, error) {
	if err := checkPublicKeyName(req.Name); err != nil {
		return resources.CreatedPublicKey{}, err
	}
	origins, err := checkOrigins(req.AllowedOrigins)
	if err != nil {
		return resources.CreatedPublicKey{}, err
	}
	secret := make([]byte, 32)
	idb := make([]byte, 6)
	_, _ = rand.Read(secret) // errors ignored: crypto/rand.Read never fails (Go 1.24+)
	_, _ = rand.Read(idb)
	key := PublicKeyPrefix + strings.ToLower(tokenEncoding.EncodeToString(secret))
	k := store.PublicKey{ID: "key_" + hex.EncodeToString(idb), OrgID: p.org.ID, Name: req.Name, Hash: hashToken(key),
		Prefix: key[:len(PublicKeyPrefix)+publicKeyShown], AllowedOrigins: origins, CreatedAt: time.Now().UTC(), CreatedBy: p.actor()}
	err = s.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		if err := tx.CreatePublicKey(ctx, k); err != nil {
			return err
		}
		return tx.Audit(ctx, store.AuditRecord{At: k.CreatedAt, Org: p.org.Name, Actor: p.actor(), Action: "create",
			Kind: resources.KindPublicKey, Name: k.ID, Region: p.org.DefaultRegion})
	})
	if err != nil {
		return resources.CreatedPublicKey{}, err
	}
	return resources.CreatedPublicKey{PublicKey: publicKeyInfo(k), Key: key}, nil
}

// PublicKeys lists p's organization's public keys (never a key), oldest
// first.
func (s *Service) PublicKeys(ctx context.Context, p Principal) (resources.PublicKeyList, error) {
	ks, err := s.store.PublicKeys(ctx, p.org.ID)
	if err != nil {
		return resources.PublicKeyList{}, err
	}
	list := resources.PublicKeyList{Items: make([]resources.PublicKey, 0, len(ks))}
	for _, k := range ks {
		list.Items = append(list.Items, publicKeyInfo(k))
	}
	return list, nil
}

// DeletePublicKey deletes p's organization's public key id and returns it:
// from the commit on, the key authenticates nothing, on every replica.
func (s *Service) DeletePublicKey(ctx context.Context, p Principal, id string) (resources.PublicKey, error) {
	ks, err := s.store.PublicKeys(ctx, p.org.ID)
	if err != nil {
		return resources.PublicKey{}, err
	}
	i := slices.IndexFunc(ks, func(k store.PublicKey) bool { return k.ID == id })
	if i < 0 {
		return resources.PublicKey{}, errPublicKeyNotFound(id)
	}
	err = s.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		now := time.Now().UTC()
		if err := tx.DeletePublicKey(ctx, p.org.ID, id, now); err != nil {
			return err
		}
		return tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: "delete",
			Kind: resources.KindPublicKey, Name: id, Region: p.org.DefaultRegion})
	})
	if errors.Is(err, store.ErrNotFound) {
		return resources.PublicKey{}, errPublicKeyNotFound(id) // deleted meanwhile
	}
	if err != nil {
		return resources.PublicKey{}, err
	}
	return publicKeyInfo(ks[i]), nil
}

func errPublicKeyNotFound(id string) *resources.Error {
	return errNotFound("public key %q not found", id)
}

func publicKeyInfo(k store.PublicKey) resources.PublicKey {
	origins := k.AllowedOrigins
	if origins == nil {
		origins = []string{}
	}
	return resources.PublicKey{ID: k.ID, Name: k.Name, Prefix: k.Prefix, AllowedOrigins: origins, CreatedAt: k.CreatedAt, CreatedBy: k.CreatedBy}
}

func checkPublicKeyName(name string) error {
	if len(name) > resources.MaxPublicKeyName {
		return errInvalid("name: at most %d characters", resources.MaxPublicKeyName)
	}
	if strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return errInvalid("name: only printable characters")
	}
	return nil
}

// checkOrigins returns the allowed origins in their canonical form
// (lower-case scheme and host), without repeats, in the order given. An
// origin is scheme://host[:port] with scheme http or https: no path, no
// query, no user, no wildcard.
func checkOrigins(origins []string) ([]string, error) {
	if len(origins) > resources.MaxPublicKeyOrigins {
		return nil, errInvalid("allowedOrigins: at most %d origins", resources.MaxPublicKeyOrigins)
	}
	out := make([]string, 0, len(origins))
	for i, o := range origins {
		c, ok := canonicalOrigin(o)
		if !ok {
			return nil, errInvalid("allowedOrigins[%d]: %q is not an origin: want scheme://host[:port] with scheme http or https, nothing after the host", i, truncate(o, resources.MaxOriginLength))
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func canonicalOrigin(o string) (string, bool) {
	if len(o) > resources.MaxOriginLength {
		return "", false
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") ||
		u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" ||
		strings.ContainsAny(o, "*?#") || strings.HasSuffix(o, ":") || u.Hostname() == "" {
		return "", false
	}
	c := strings.ToLower(u.Scheme + "://" + u.Host)
	if !strings.EqualFold(c, o) {
		return "", false
	}
	return c, true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Package store defines the persistence interface of the platform. It knows
// nothing of HTTP, validation or encryption: values reach it already
// encrypted. The interface is deliberately narrow (no SQL leaks through it) so
// that a PostgreSQL implementation can sit beside the SQLite one in
// store/sqlite.
package store

import (
	"context"
	"errors"
	"time"
)

// Errors returned by every implementation.
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already exists")
)

// Org is an organization.
type Org struct {
	ID            int64
	Name          string
	DefaultRegion string
	CreatedAt     time.Time
}

// Token is an API token. Only the SHA-256 of the secret is kept.
type Token struct {
	ID        string // public identifier, e.g. "tok_3f9a..."; not secret
	Hash      []byte // SHA-256 of the full token
	OrgID     int64
	OrgName   string // filled by lookups
	OrgRegion string // the organization's default region, filled by lookups
	User      string
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Object is a SecretSet or ImagePullSecret row, without values.
type Object struct {
	ID         int64
	OrgID      int64
	Name       string
	Kind       string
	Region     string
	Labels     map[string]string
	Keys       map[string]int // key name → plaintext value size in bytes
	Host       string         // ImagePullSecret: normalized registry base URL
	Username   string         // ImagePullSecret
	Version    int64          // resourceVersion: changes on every spec/metadata write
	Generation int64          // bumped on every write; provisioning results carry it
	State      string
	Message    string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// Managed is true when the last write of the object's spec or metadata
	// came from apply (POST .../apply); an imperative write (PATCH, PUT,
	// DELETE of a key) sets it false. Only managed objects can be pruned.
	Managed bool
	// ApplySet is the apply set the last apply wrote the object under ("" =
	// none). Imperative writes clear it.
	ApplySet string
}

// Value is one encrypted value of an object.
type Value struct {
	Key        string
	Size       int
	Ciphertext []byte
}

// StatusUpdate is a provisioning result for one generation of an object.
type StatusUpdate struct {
	ObjectID   int64
	Generation int64
	State      string
	Message    string
}

// AuditRecord records who changed which keys of what. Never a value.
type AuditRecord struct {
	At     time.Time
	Org    string
	Actor  string
	Action string // e.g. merge, replace, delete, delete-key
	Kind   string
	Name   string
	Region string
	Keys   []string
}

// ListItem is an object as List reports it. Its Labels and Keys maps are
// nil (and its ID, OrgID and Generation zero): the labels are in LabelPairs
// (key, value, key, value, ... in key order) and the key names in KeyNames
// (sorted), which is all a listing needs. A ListItem and its slices are
// reused: they are valid only during the call of the List callback.
type ListItem struct {
	Object
	LabelPairs []string
	KeyNames   []string
}

// ListQuery selects objects of one organization, ordered by name.
type ListQuery struct {
	OrgID  int64
	Region string // "" = all
	Kind   string // "" = all
	After  string // return names strictly greater than this
}

// Tx is a write transaction. Everything done through one Tx commits or rolls
// back together. Implementations may batch several Tx into one database
// commit (group commit); each keeps its own all-or-nothing semantics.
type Tx interface {
	Org(ctx context.Context, name string) (Org, error)
	CreateOrg(ctx context.Context, o Org) (Org, error)
	CreateToken(ctx context.Context, t Token) error
	RevokeToken(ctx context.Context, id string) error

	Object(ctx context.Context, orgID int64, name string) (Object, error)
	Values(ctx context.Context, objectID int64) ([]Value, error)
	// PutObject inserts (ID 0) or updates an object row and returns its ID.
	PutObject(ctx context.Context, o Object) (int64, error)
	PutValues(ctx context.Context, objectID int64, vals []Value) error
	DeleteValues(ctx context.Context, objectID int64, keys []string) error
	DeleteObject(ctx context.Context, objectID int64) error
	// AppliedObjects returns the objects of the organization with Managed
	// true and exactly this ApplySet ("" matches only objects applied
	// without an apply set), in name order, as this transaction sees them.
	AppliedObjects(ctx context.Context, orgID int64, applySet string) ([]Object, error)
	// NextVersion returns a new store-wide unique, increasing version number.
	NextVersion(ctx context.Context) (int64, error)
	Audit(ctx context.Context, r AuditRecord) error
}

// Store is the platform's persistence.
type Store interface {
	// Update runs fn in a write transaction and returns once the transaction
	// is durably committed (or fn's error, after rolling back fn's writes).
	Update(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error

	Org(ctx context.Context, name string) (Org, error)
	Orgs(ctx context.Context) ([]Org, error)
	TokenByHash(ctx context.Context, hash []byte) (Token, error)
	Tokens(ctx context.Context, orgID int64) ([]Token, error)

	Object(ctx context.Context, orgID int64, name string) (Object, error)
	Values(ctx context.Context, objectID int64) ([]Value, error)
	// List calls fn for each matching object in name order until fn returns
	// false or an error.
	List(ctx context.Context, q ListQuery, fn func(*ListItem) (bool, error)) error
	// Pending returns up to limit objects of region and kind in state
	// pending, in write order, without their Labels and Keys.
	Pending(ctx context.Context, region, kind string, limit int) ([]Object, error)
	// MarkPendingReady makes every pending object of region and kind ready
	// in one write and returns how many it changed.
	MarkPendingReady(ctx context.Context, region, kind string) (int, error)
	// SetStatus records provisioning results, each only if its object still
	// has the generation it was computed for; it returns how many applied.
	SetStatus(ctx context.Context, updates []StatusUpdate) (int, error)
	Audit(ctx context.Context, org string, limit int) ([]AuditRecord, error)

	Close() error
}

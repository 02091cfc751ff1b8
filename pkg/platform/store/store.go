// Package store defines the persistence interface of the platform. It knows
// nothing of HTTP, validation or encryption: values reach it already
// encrypted. The interface is deliberately narrow (no SQL leaks through it):
// store/sqlite and store/postgres implement it, and store/storetest holds the
// contract tests both pass.
package store

import (
	"context"
	"errors"
	"time"
)

// CredentialsKey is the value key under which an image pull secret's
// base64 "user:pass" is stored (encrypted, as every value).
const CredentialsKey = "credentials"

// Errors returned by every implementation.
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already exists")
	// ErrUnavailable wraps errors of a database that cannot be reached
	// (down, restarting, refusing connections): the request may succeed
	// when retried later.
	ErrUnavailable = errors.New("database unavailable")
	// ErrBusy is returned by a write that waited its store's bound for
	// the lock another process holds on the database (SQLite), and got
	// nothing written.
	ErrBusy = errors.New("the database is locked by another process")
	// ErrStorageFull wraps the error of a write the database refused
	// because its disk is full (SQLite's SQLITE_FULL, PostgreSQL's
	// disk_full): nothing of the write was kept, and it may succeed once
	// space is freed.
	ErrStorageFull = errors.New("the database's storage is full")
)

type busyBoundKey struct{}

// WithBusyBound bounds how long the writes made with ctx wait for a lock
// another process holds on the database (SQLite), when d is shorter than
// the store's own bound. What may be done later passes a short bound, so
// that it never keeps a command waiting.
func WithBusyBound(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, busyBoundKey{}, d)
}

// BusyBound returns the bound WithBusyBound set on ctx.
func BusyBound(ctx context.Context) (time.Duration, bool) {
	d, ok := ctx.Value(busyBoundKey{}).(time.Duration)
	return d, ok
}

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
	ID     int64
	OrgID  int64
	Name   string
	Kind   string
	Region string
	Labels map[string]string
	Keys   map[string]int // key name → plaintext value size in bytes
	// Digests are keyed digests of a SecretSet's values (key name →
	// digest), computed by the service and opaque to the store, which
	// keeps them with the key list: a write compares a new value with the
	// stored one without reading or decrypting it. A key may have none
	// (written before digests existed); nil when no key has one.
	Digests    map[string][]byte
	Host       string // ImagePullSecret: normalized registry base URL
	Username   string // ImagePullSecret
	Version    int64  // resourceVersion: changes on every spec/metadata write
	Generation int64  // bumped on every write; provisioning results carry it
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

// SampledValue is a stored value with the organization, region and object
// names its ciphertext is bound to (see Store.SampleValue).
type SampledValue struct {
	Org, Region, Name string
	Value             Value
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
	AgentTx
	PublicKeyTx
	SessionTx

	Org(ctx context.Context, name string) (Org, error)
	CreateOrg(ctx context.Context, o Org) (Org, error)
	// CreateToken stores t; a non-nil t.RevokedAt stores it revoked (migrations).
	CreateToken(ctx context.Context, t Token) error
	// RevokeToken revokes a token and advances the tokens epoch (see
	// Store.TokensEpoch) in the same transaction.
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
	// NextVersion returns a new store-wide unique version number, greater
	// than every version this transaction read and every version this
	// store handed out before.
	NextVersion(ctx context.Context) (int64, error)
	// AdvanceVersion makes every later NextVersion of this store, and of
	// stores opened on the database later, return more than v (used when
	// importing objects that carry their versions).
	AdvanceVersion(ctx context.Context, v int64) error
	Audit(ctx context.Context, r AuditRecord) error

	// PutVersion stores one version of an object's contents: its header,
	// the values the write set (v.Values, encrypted as stored) and the
	// keys it removed (v.Removed). Only those are stored: the version's
	// other keys keep the values of the version before it, which the
	// store reads back when the version is read (the object's first
	// version sets all its values). A version that exists is an error
	// (the store's unique constraint on object and version).
	PutVersion(ctx context.Context, v Version) error
	// PurgeVersions removes the versions of the object older than the
	// newest history limit of its organization, latest being the newest.
	PurgeVersions(ctx context.Context, orgID, objectID, latest int64) error
	// Version returns one version of the object with its values, as this
	// transaction sees it (ErrNotFound: purged or never written).
	Version(ctx context.Context, objectID, version int64) (Version, error)
	// SetHistoryLimit sets how many versions the organization's objects
	// keep (older ones go at each object's next write).
	SetHistoryLimit(ctx context.Context, orgID int64, limit int) error

	// SealingKeys returns the organization's sealing key pairs, retired
	// ones included, oldest first.
	SealingKeys(ctx context.Context, orgID int64) ([]SealingKey, error)
	// PutSealingKey adds a key pair (ErrExists: the organization has one
	// with that Seq or that ID already).
	PutSealingKey(ctx context.Context, k SealingKey) error
	// RetireSealingKey marks the key pair retired at `at` (ErrNotFound:
	// the organization has no key with that ID).
	RetireSealingKey(ctx context.Context, orgID int64, id string, at time.Time) error
}

// SealingKey is one of an organization's sealing key pairs: sealed values
// (values in git that only the platform can read) are encrypted to its
// public part. The newest key that is not retired is the current one.
type SealingKey struct {
	OrgID     int64
	Seq       int64  // 1, 2, ...: the order in which the organization got its keys
	ID        string // derived from Recipient (pkg/sealed.KeyID)
	Recipient string // the public part: an age X25519 recipient
	Identity  []byte // the private part, encrypted under the master key
	CreatedAt time.Time
	RetiredAt *time.Time
}

// Version is one version of an object's contents: what a write left. Its
// number is the object's generation after that write.
type Version struct {
	ObjectID int64
	Version  int64
	At       time.Time
	Actor    string
	Source   string // the operation that wrote it: set, unset, apply, rollback, ...
	// The key names the write added, changed and removed (never values).
	Added, Changed, Removed []string
	Labels                  map[string]string
	Keys                    map[string]int // key name → value size
	Host, Username          string         // an ImagePullSecret's
	// Values are the version's encrypted values: all of them as
	// Tx.Version reads them (Store.Versions and Store.Version read
	// headers); the ones the write set as PutVersion takes them.
	Values []Value
}

// Store is the platform's persistence.
type Store interface {
	AgentStore
	PublicKeyStore
	SessionStore

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
	// ClaimPending claims up to limit pending objects of region and kind
	// for holder, in write order, without their Labels and Keys. An object
	// is claimable when no claim holds its current generation or the claim's
	// lease ran out, so several processes sharing the database each get
	// different objects, and the objects of a process that died are claimed
	// again once its lease expires. The lease is measured on the
	// database's clock.
	ClaimPending(ctx context.Context, region, kind, holder string, lease time.Duration, limit int) ([]Object, error)
	// RenewClaims extends holder's claims on the objects ids that are still
	// pending by lease.
	RenewClaims(ctx context.Context, holder string, ids []int64, lease time.Duration) error
	// SetStatus records provisioning results, each only if its object still
	// has the generation it was computed for; it returns how many applied.
	SetStatus(ctx context.Context, updates []StatusUpdate) (int, error)
	Audit(ctx context.Context, org string, limit int) ([]AuditRecord, error)
	// Versions returns up to limit versions of the object older than
	// before (0: the newest), newest first, without values.
	Versions(ctx context.Context, objectID, before int64, limit int) ([]Version, error)
	// Version returns one version of the object without its values.
	Version(ctx context.Context, objectID, version int64) (Version, error)
	// HistoryLimit returns how many versions the organization's objects keep.
	HistoryLimit(ctx context.Context, orgID int64) (int, error)
	// SealingKeys returns the organization's sealing key pairs, retired
	// ones included, oldest first.
	SealingKeys(ctx context.Context, orgID int64) ([]SealingKey, error)
	// TokensEpoch returns a number that changes whenever a token is revoked:
	// a process caching token lookups drops its cache when it changes.
	TokensEpoch(ctx context.Context) (int64, error)
	// Setting returns the value of the platform setting name, or nil when
	// it is unset.
	Setting(ctx context.Context, name string) ([]byte, error)
	// InitSetting sets name to value unless it is set, and returns the value
	// it holds afterwards: value, or the one an earlier call (of any server
	// sharing the store) stored.
	InitSetting(ctx context.Context, name string, value []byte) ([]byte, error)
	// SampleValue returns one stored value with the names that bind its
	// ciphertext (ok is false when the store holds none).
	SampleValue(ctx context.Context) (v SampledValue, ok bool, err error)

	Close() error
}

// ObjectKey names an object: its organization and name.
type ObjectKey struct {
	OrgID int64
	Name  string
}

// Compare orders keys by organization, then name (bytewise).
func (k ObjectKey) Compare(o ObjectKey) int {
	switch {
	case k.OrgID < o.OrgID:
		return -1
	case k.OrgID > o.OrgID:
		return 1
	case k.Name < o.Name:
		return -1
	case k.Name > o.Name:
		return 1
	}
	return 0
}

type objectsKey struct{}

// WithObjects declares, for the Update called with the returned context,
// the objects its function reads with Tx.Object. It is a hint: a store
// that runs concurrent updates in one transaction (store/postgres) reads
// and locks the declared objects of a whole batch up front, in key order,
// which saves a round trip per update and keeps batches of several
// processes from deadlocking. An update that reads other objects, or none
// of these, is still correct. The SQLite store ignores it.
func WithObjects(ctx context.Context, keys ...ObjectKey) context.Context {
	return context.WithValue(ctx, objectsKey{}, keys)
}

// ObjectsOf returns the objects declared with WithObjects.
func ObjectsOf(ctx context.Context) []ObjectKey {
	keys, _ := ctx.Value(objectsKey{}).([]ObjectKey)
	return keys
}

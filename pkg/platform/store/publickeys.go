package store

import (
	"context"
	"time"
)

// PublicKey is one of an organization's public keys (pk_…): what a client
// of the public session API authenticates with. Only the SHA-256 of the key
// is kept, with a short prefix of it to tell keys apart.
type PublicKey struct {
	ID             string // public identifier, e.g. "key_3f9a…"; not secret
	OrgID          int64
	OrgName        string // filled by lookups
	OrgRegion      string // the organization's default region, filled by lookups
	Name           string // an optional label
	Hash           []byte // SHA-256 of the full key
	Prefix         string // the key's first characters, for display (not secret)
	AllowedOrigins []string
	CreatedAt      time.Time
	CreatedBy      string
	DeletedAt      *time.Time
}

// PublicKeyTx is the public keys' part of a write transaction.
type PublicKeyTx interface {
	// CreatePublicKey stores k (ErrExists: its ID or hash is taken).
	CreatePublicKey(ctx context.Context, k PublicKey) error
	// DeletePublicKey marks the organization's key id deleted at `at`
	// (ErrNotFound: no such key of that organization, or deleted already).
	// A deleted key authenticates nothing; its row stays, without use.
	DeletePublicKey(ctx context.Context, orgID int64, id string, at time.Time) error
}

// PublicKeyStore is the public keys' part of the store's reads.
type PublicKeyStore interface {
	// PublicKeyByHash returns the key whose hash is hash, deleted or not
	// (ErrNotFound: none).
	PublicKeyByHash(ctx context.Context, hash []byte) (PublicKey, error)
	// PublicKeySession returns, in one read, the key whose hash is hash
	// (deleted or not) and the session sessionID of the key's
	// organization: ErrNotFound when either is missing (PublicKeyByHash
	// tells which). It is what a request to a session costs.
	PublicKeySession(ctx context.Context, hash []byte, sessionID string) (PublicKey, Session, error)
	// PublicKeys returns the organization's keys that are not deleted,
	// oldest first.
	PublicKeys(ctx context.Context, orgID int64) ([]PublicKey, error)
}

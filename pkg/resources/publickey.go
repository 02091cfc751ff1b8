package resources

import "time"

// Wire types of an organization's public keys: POST, GET
// /v1/organizations/{org}/keys and DELETE /v1/organizations/{org}/keys/{id}.

// KindPublicKey is the kind of a public key in audit records.
const KindPublicKey = "PublicKey"

// Limits of a public key's request.
const (
	MaxPublicKeyName    = 63
	MaxPublicKeyOrigins = 32
	MaxOriginLength     = 253
)

// PublicKeyRequest is the body of POST /v1/organizations/{org}/keys.
type PublicKeyRequest struct {
	Name           string   `json:"name,omitempty"`
	AllowedOrigins []string `json:"allowedOrigins,omitempty"`
}

// PublicKey describes a public key without the key: its ID, label, the
// key's first characters (Prefix, to tell keys apart) and the origins
// browsers may call the public API from with it.
type PublicKey struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Prefix         string    `json:"prefix"`
	AllowedOrigins []string  `json:"allowedOrigins"`
	CreatedAt      time.Time `json:"createdAt"`
	CreatedBy      string    `json:"createdBy"`
}

// CreatedPublicKey is the answer of POST /v1/organizations/{org}/keys: the
// key itself, shown this once (only its hash is kept).
type CreatedPublicKey struct {
	PublicKey
	Key string `json:"key"`
}

// PublicKeyList is the body of GET /v1/organizations/{org}/keys.
type PublicKeyList struct {
	Items []PublicKey `json:"items"`
}

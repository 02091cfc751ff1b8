package resources

import "time"

// Wire types of sealed values (pkg/sealed):
// GET /v1/organizations/{org}/sealing-key and POST /v1/organizations/{org}/reseal.

// Kinds of the sealing answers.
const (
	KindSealingKey   = "SealingKey"
	KindResealResult = "ResealResult"
)

// SealingKey is an organization's public sealing key: botkit seal encrypts
// values to Recipient. Keys lists every key the platform holds for the
// organization, oldest first: sealed values name the key they were sealed
// to, and every key not retired still decrypts.
type SealingKey struct {
	TypeMeta  `json:",inline"`
	Metadata  SealingKeyMeta   `json:"metadata"`
	KeyID     string           `json:"keyId"`
	Recipient string           `json:"recipient"`
	Keys      []SealingKeyInfo `json:"keys"`
}

// SealingKeyMeta names the organization of a SealingKey.
type SealingKeyMeta struct {
	Organization string `json:"organization"`
}

// SealingKeyInfo is one key of an organization.
type SealingKeyInfo struct {
	KeyID     string     `json:"keyId"`
	Recipient string     `json:"recipient"`
	CreatedAt time.Time  `json:"createdAt"`
	RetiredAt *time.Time `json:"retiredAt,omitempty"`
	Current   bool       `json:"current"`
}

// MaxResealValues bounds the values of one reseal request.
const MaxResealValues = 10000

// ResealRequest is the body of POST /v1/organizations/{org}/reseal: sealed
// values of the organization to encrypt again, to its current key. The
// platform decrypts and encrypts them; no value leaves it.
type ResealRequest struct {
	Values []string `json:"values"`
}

// ResealResult is the answer of reseal: the values in request order, each
// sealed to KeyID (a value already sealed to it is returned as it was).
type ResealResult struct {
	TypeMeta `json:",inline"`
	KeyID    string   `json:"keyId"`
	Values   []string `json:"values"`
}

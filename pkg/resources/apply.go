package resources

import (
	"fmt"
	"strings"
)

// Wire types of the manifest operations of the platform API:
// POST /v1/organizations/{org}/apply and POST /v1/organizations/{org}/delete.

// Kinds of the answers of apply and delete.
const (
	KindApplyResult  = "ApplyResult"
	KindDeleteResult = "DeleteResult"
)

// Actions reported per object by apply and delete.
const (
	ActionCreated    = "created"    // apply: the object did not exist
	ActionConfigured = "configured" // apply: the object changed
	// ActionUnchanged ("unchanged", shared with Plan): apply wrote nothing.
	ActionPruned   = "pruned"    // apply with prune: deleted
	ActionDeleted  = "deleted"   // delete: deleted
	ActionNotFound = "not found" // delete with ignoreNotFound: there was nothing to delete
	// ActionValidated is what apply --dry-run=client reports (in its lines
	// and its ApplyReport): the manifest is valid and its values resolve;
	// the platform was not asked.
	ActionValidated = "validated"
)

// ManagedByApply is the value of metadata.managedBy of an object whose last
// write came from apply. Objects written imperatively have no managedBy.
const ManagedByApply = "apply"

// MaxApplyRequestBytes bounds the body of an apply or delete request: it
// carries every object of one organization at once.
const MaxApplyRequestBytes = 16 << 20

// MaxApplyObjects bounds the number of objects of one apply or delete.
const MaxApplyObjects = 10000

// ApplyRequest is the body of POST /v1/organizations/{org}/apply. Every
// object of the request is applied, and the prune done, in one transaction:
// all of it or nothing.
//
// Each object becomes equal to its manifest: SecretSet keys not in
// spec.data are removed, labels are replaced. Objects are SecretSets with
// resolved literal spec.data and ImagePullSecrets with host and literal
// credentials (and encode), as in PUT. metadata.organization, when given,
// must be the organization of the path. metadata.resourceVersion, when
// given, is a precondition: the object must exist with that version (409
// otherwise).
//
// ApplySet names the apply set the objects are written under ("" = none):
// an object already in another (non-empty) apply set is a 409, so two sets
// never fight over an object. Prune deletes every object that apply wrote
// (not one written imperatively since) under exactly this ApplySet ("" only
// matches objects applied without a set), that matches Selector and that
// Objects does not name. Prune needs a Selector or an ApplySet.
//
// DryRun computes the same answer and writes nothing.
type ApplyRequest struct {
	Objects  []Object `json:"objects"`
	ApplySet string   `json:"applySet,omitempty"`
	Prune    bool     `json:"prune,omitempty"`
	Selector string   `json:"selector,omitempty"`
	DryRun   bool     `json:"dryRun,omitempty"`
}

// ApplyResultItem is what apply did (or, in a dry run, would do) to one
// object: its action, and per key and per field the change, never a value.
// Object is the object as it is after the apply (in a dry run: as it would
// be; for a pruned object: as it was), key names only.
type ApplyResultItem struct {
	Kind            string        `json:"kind"`
	Name            string        `json:"name"`
	Region          string        `json:"region"`
	Action          string        `json:"action"`
	ResourceVersion string        `json:"resourceVersion,omitempty"`
	Keys            []KeyChange   `json:"keys"`
	Fields          []FieldChange `json:"fields"`
	Object          *Object       `json:"object,omitempty"`
	// Deployment is, for an Agent whose spec the apply changed, the
	// deployment that rolls it out, made after the commit (rolling-out, or
	// failed when its image could not be resolved; botkit apply --wait
	// waits for it). Absent in a dry run and when the spec is unchanged.
	Deployment *Deployment `json:"deployment,omitempty"`
	// Message says, for an Agent whose spec the apply changed, why no
	// deployment could be made after the commit (the agent is written;
	// botkit deploy retries).
	Message string `json:"message,omitempty"`
}

// Ref returns "secretset/NAME", "imagepullsecret/NAME" or "agent/NAME".
func (it ApplyResultItem) Ref() string { return Ref(it.Kind, it.Name) }

// ApplyResult is the answer of apply: one item per object of the request,
// in request order, then one per pruned object, in name order.
type ApplyResult struct {
	TypeMeta `json:",inline"`
	DryRun   bool              `json:"dryRun"`
	ApplySet string            `json:"applySet,omitempty"`
	Items    []ApplyResultItem `json:"items"`
}

// ObjectRef names one object of a delete request. Region, when given, must
// be the object's region (409 otherwise), as Kind must be its kind.
type ObjectRef struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Region string `json:"region,omitempty"`
}

// Ref returns "secretset/NAME" or "imagepullsecret/NAME".
func (r ObjectRef) Ref() string { return Ref(r.Kind, r.Name) }

// DeleteRequest is the body of POST /v1/organizations/{org}/delete: the
// named objects are deleted in one transaction, all or none. A missing
// object is a 404 (and nothing is deleted) unless IgnoreNotFound.
type DeleteRequest struct {
	Objects        []ObjectRef `json:"objects"`
	IgnoreNotFound bool        `json:"ignoreNotFound,omitempty"`
	DryRun         bool        `json:"dryRun,omitempty"`
}

// DeleteResultItem is what delete did to one object (deleted, or not found
// with ignoreNotFound). Object is the deleted object as it was.
type DeleteResultItem struct {
	Kind   string  `json:"kind"`
	Name   string  `json:"name"`
	Region string  `json:"region,omitempty"`
	Action string  `json:"action"`
	Object *Object `json:"object,omitempty"`
}

// Ref returns "secretset/NAME" or "imagepullsecret/NAME".
func (it DeleteResultItem) Ref() string { return Ref(it.Kind, it.Name) }

// DeleteResult is the answer of delete, one item per requested object in
// request order.
type DeleteResult struct {
	TypeMeta `json:",inline"`
	DryRun   bool               `json:"dryRun"`
	Items    []DeleteResultItem `json:"items"`
}

// Ref is the kubectl-style name of an object: "secretset/NAME".
func Ref(kind, name string) string { return strings.ToLower(kind) + "/" + name }

// ValidateApplySet checks an apply set name: empty (none) or, like a label
// value, 1-63 letters, digits, '-', '_' or '.', starting and ending with a
// letter or digit.
func ValidateApplySet(s string) error {
	if s != "" && !isLabelName(s) {
		return fmt.Errorf("apply set %q: must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", printable(s))
	}
	return nil
}

// KindProjectConfig is the kind of a `botkit create -c` project config
// manifest. Apply skips it.
const KindProjectConfig = "ProjectConfig"

// OutputOnlyFields lists the fields of a SecretSet or ImagePullSecret (dot
// paths from the object's root) that the platform fills in: a manifest must
// not set them. metadata.resourceVersion is not among them: in a manifest it
// is a precondition.
func OutputOnlyFields() []string {
	return []string{
		"metadata.generation", "metadata.creationTimestamp", "metadata.updateTimestamp", "metadata.managedBy", "metadata.applySet",
		"spec.keys", "spec.username", "status",
	}
}

// RequiredFields lists the fields a manifest of kind must set (dot paths),
// to something other than null. A SecretSet's spec.data is required because
// apply makes the set equal its manifest: a manifest without it would wipe
// the set; an intentionally empty set says spec: {data: {}}.
func RequiredFields(kind string) []string {
	req := []string{"apiVersion", "kind", "metadata", "metadata.name"}
	switch kind {
	case KindImagePullSecret:
		req = append(req, "spec", "spec.host", "spec.credentials")
	case KindSecretSet:
		req = append(req, "spec", "spec.data")
	case KindAgent:
		req = append(req, "spec", "spec.image")
	}
	return req
}

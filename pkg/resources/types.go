package resources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// APIVersion is the apiVersion of every botkit object.
const APIVersion = "botkit.dev/v1"

// Kinds of objects.
const (
	KindSecretSet       = "SecretSet"
	KindImagePullSecret = "ImagePullSecret"
	KindList            = "List"
	KindPlan            = "Plan"
)

// States of an object's status.
const (
	StatePending = "pending"
	StateReady   = "ready"
	StateFailed  = "failed"
)

// TypeMeta identifies the schema of an object.
type TypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// ObjectMeta is the metadata of a SecretSet or ImagePullSecret.
// Organization and Region are optional on input (the current organization and
// its default region apply); ResourceVersion and the timestamps are output only.
type ObjectMeta struct {
	Name            string            `json:"name"`
	Organization    string            `json:"organization,omitempty"`
	Region          string            `json:"region,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
	// Generation is the version of the object's contents (output only):
	// every write of its keys, values, labels or registry credentials makes
	// the next one, kept in its history (botkit cloud secrets history).
	Generation        int64      `json:"generation,omitempty"`
	CreationTimestamp *time.Time `json:"creationTimestamp,omitempty"`
	UpdateTimestamp   *time.Time `json:"updateTimestamp,omitempty"`
	// ManagedBy is "apply" when the last write came from apply (output
	// only; absent after an imperative write such as `cloud secrets set`).
	ManagedBy string `json:"managedBy,omitempty"`
	// ApplySet is the apply set the last apply wrote the object under
	// (output only; absent when none).
	ApplySet string `json:"applySet,omitempty"`
}

// Status is the provisioning state of an object (output only).
type Status struct {
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
}

// ValueSource is where a secret value comes from. In JSON and YAML it is
// either a plain string (a literal) or an object with exactly one of
// fromEnv, fromFile or sealed. Request bodies sent to the platform carry
// literals and sealed values (which only the platform can decrypt,
// pkg/sealed); the client resolves fromEnv and fromFile.
//
// The literal is never printed: String and GoString redact it, and
// MarshalJSON emits it only because request bodies need it.
type ValueSource struct {
	Literal  *string `json:"-"`
	FromEnv  string  `json:"fromEnv,omitempty"`
	FromFile string  `json:"fromFile,omitempty"`
	Sealed   string  `json:"sealed,omitempty"`
}

// Literal returns a ValueSource holding the literal v.
func Literal(v string) ValueSource { return ValueSource{Literal: &v} }

// IsLiteral reports whether s is a literal value.
func (s ValueSource) IsLiteral() bool { return s.Literal != nil }

// String describes the source without revealing a literal.
func (s ValueSource) String() string {
	switch {
	case s.Literal != nil:
		return "<literal>"
	case s.FromEnv != "":
		return "fromEnv:" + s.FromEnv
	case s.FromFile != "":
		return "fromFile:" + s.FromFile
	case s.Sealed != "":
		return "<sealed>"
	}
	return "<empty>"
}

// GoString keeps %#v from printing a literal.
func (s ValueSource) GoString() string { return "resources.ValueSource(" + s.String() + ")" }

// MarshalJSON encodes a literal as a JSON string and other sources as objects.
func (s ValueSource) MarshalJSON() ([]byte, error) {
	if s.Literal != nil {
		return json.Marshal(*s.Literal)
	}
	type plain struct {
		FromEnv  string `json:"fromEnv,omitempty"`
		FromFile string `json:"fromFile,omitempty"`
		Sealed   string `json:"sealed,omitempty"`
	}
	return json.Marshal(plain{FromEnv: s.FromEnv, FromFile: s.FromFile, Sealed: s.Sealed})
}

// ErrValueSource is returned (wrapped) for a malformed value source.
var ErrValueSource = errors.New("a value must be a string or an object with exactly one of fromEnv, fromFile, sealed")

// UnmarshalJSON accepts a string or {fromEnv} / {fromFile} / {sealed}. Error messages
// never include the value.
func (s *ValueSource) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return ErrValueSource
		}
		*s = ValueSource{Literal: &v}
		return nil
	}
	if len(b) == 0 || b[0] != '{' {
		return ErrValueSource
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return ErrValueSource
	}
	if len(raw) != 1 {
		return ErrValueSource
	}
	var out ValueSource
	for k, v := range raw {
		var str string
		if err := json.Unmarshal(v, &str); err != nil || str == "" {
			return fmt.Errorf("%s must be a non-empty string", k)
		}
		switch k {
		case "fromEnv":
			out.FromEnv = str
		case "fromFile":
			out.FromFile = str
		case "sealed":
			out.Sealed = str
		default:
			return fmt.Errorf("unknown value source %q (want fromEnv, fromFile or sealed)", k)
		}
	}
	*s = out
	return nil
}

// SecretSetSpec is the spec of a SecretSet. Data is input only (key → value
// source); Keys is output only (the sorted key names).
type SecretSetSpec struct {
	Data map[string]ValueSource `json:"data,omitempty"`
	Keys []string               `json:"keys,omitempty"`
}

// SecretSet is a named set of environment variables for bots.
type SecretSet struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta    `json:"metadata"`
	Spec     SecretSetSpec `json:"spec"`
	Status   *Status       `json:"status,omitempty"`
}

// ImagePullSecretSpec is the spec of an ImagePullSecret. Credentials and
// Encode are input only; Username is output only.
//
// Credentials is "<username>:<password>"; with Encode false (default true) it
// is already base64-encoded and must decode to "<username>:<password>".
type ImagePullSecretSpec struct {
	Host        string       `json:"host"`
	Credentials *ValueSource `json:"credentials,omitempty"`
	Encode      *bool        `json:"encode,omitempty"`
	Username    string       `json:"username,omitempty"`
}

// ImagePullSecret holds the credentials a bot image is pulled with.
type ImagePullSecret struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta          `json:"metadata"`
	Spec     ImagePullSecretSpec `json:"spec"`
	Status   *Status             `json:"status,omitempty"`
}

// Object is any platform object as returned by the API: a SecretSet, an
// ImagePullSecret or (in apply, diff and delete -f) an Agent, decoded by
// kind. Exactly one of SecretSet, ImagePullSecret and Agent is set.
type Object struct {
	SecretSet       *SecretSet
	ImagePullSecret *ImagePullSecret
	Agent           *Agent
}

// Kind returns the kind of the object.
func (o Object) Kind() string {
	switch {
	case o.SecretSet != nil:
		return KindSecretSet
	case o.ImagePullSecret != nil:
		return KindImagePullSecret
	case o.Agent != nil:
		return KindAgent
	}
	return ""
}

// Meta returns the object's metadata (nil for an empty Object).
func (o Object) Meta() *ObjectMeta {
	switch {
	case o.SecretSet != nil:
		return &o.SecretSet.Metadata
	case o.ImagePullSecret != nil:
		return &o.ImagePullSecret.Metadata
	case o.Agent != nil:
		return &o.Agent.Metadata
	}
	return nil
}

// Status returns the object's status (nil when absent). An Agent's is its
// state (deploying, ready, degraded, failed, stopped) and message.
func (o Object) Status() *Status {
	switch {
	case o.SecretSet != nil:
		return o.SecretSet.Status
	case o.ImagePullSecret != nil:
		return o.ImagePullSecret.Status
	case o.Agent != nil && o.Agent.Status != nil:
		return &Status{State: o.Agent.Status.State, Message: o.Agent.Status.Message}
	}
	return nil
}

// MarshalJSON encodes the object it holds.
func (o Object) MarshalJSON() ([]byte, error) {
	switch {
	case o.SecretSet != nil:
		return json.Marshal(o.SecretSet)
	case o.ImagePullSecret != nil:
		return json.Marshal(o.ImagePullSecret)
	case o.Agent != nil:
		return json.Marshal(o.Agent)
	}
	return []byte("null"), nil
}

// objectWire holds any kind in one decode: the fields of every spec.
type objectWire struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Data        map[string]ValueSource `json:"data"`
		Keys        []string               `json:"keys"`
		Host        string                 `json:"host"`
		Credentials *ValueSource           `json:"credentials"`
		Encode      *bool                  `json:"encode"`
		Username    string                 `json:"username"`
		// An Agent's.
		Image           string        `json:"image"`
		ImagePullSecret string        `json:"imagePullSecret"`
		SecretSet       string        `json:"secretSet"`
		Scaling         *AgentScaling `json:"scaling"`
		Profile         string        `json:"profile"`
	} `json:"spec"`
	// Status holds any kind's: an Agent's has every field of a
	// SecretSet's (state, message) and more.
	Status *AgentStatus `json:"status"`
}

// plainStatus is a SecretSet's or an ImagePullSecret's status read as an
// Agent's.
func plainStatus(st *AgentStatus) *Status {
	if st == nil {
		return nil
	}
	return &Status{State: st.State, Message: st.Message}
}

// UnmarshalJSON decodes a SecretSet, ImagePullSecret or Agent by its kind,
// in one pass over b (a list of 10,000 objects decodes in half the time of
// a kind peek followed by a full decode). The other kinds' spec fields are
// ignored, as unknown fields are.
func (o *Object) UnmarshalJSON(b []byte) error {
	var w objectWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	obj, err := w.object()
	if err != nil {
		return err
	}
	*o = obj
	return nil
}

func (w *objectWire) object() (Object, error) {
	switch w.Kind {
	case KindSecretSet:
		return Object{SecretSet: &SecretSet{TypeMeta: w.TypeMeta, Metadata: w.Metadata, Status: plainStatus(w.Status),
			Spec: SecretSetSpec{Data: w.Spec.Data, Keys: w.Spec.Keys}}}, nil
	case KindImagePullSecret:
		return Object{ImagePullSecret: &ImagePullSecret{TypeMeta: w.TypeMeta, Metadata: w.Metadata, Status: plainStatus(w.Status),
			Spec: ImagePullSecretSpec{Host: w.Spec.Host, Credentials: w.Spec.Credentials, Encode: w.Spec.Encode, Username: w.Spec.Username}}}, nil
	case KindAgent:
		return Object{Agent: &Agent{TypeMeta: w.TypeMeta, Metadata: w.Metadata, Status: w.Status,
			Spec: AgentSpec{Image: w.Spec.Image, ImagePullSecret: w.Spec.ImagePullSecret, SecretSet: w.Spec.SecretSet, Scaling: w.Spec.Scaling, Profile: w.Spec.Profile}}}, nil
	}
	return Object{}, fmt.Errorf("unknown kind %q (want %s, %s or %s)", w.Kind, KindSecretSet, KindImagePullSecret, KindAgent)
}

// ListMeta carries the pagination cursor of a List.
type ListMeta struct {
	Continue string `json:"continue,omitempty"`
}

// List is several objects: {"apiVersion":"botkit.dev/v1","kind":"List","items":[...]}.
type List struct {
	TypeMeta `json:",inline"`
	Items    []Object `json:"items"`
	Metadata ListMeta `json:"metadata"`
}

// UnmarshalJSON decodes a List with its items in the same pass (no
// per-item re-scan through Object.UnmarshalJSON).
func (l *List) UnmarshalJSON(b []byte) error {
	var w struct {
		TypeMeta `json:",inline"`
		Items    []objectWire `json:"items"`
		Metadata ListMeta     `json:"metadata"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	items := make([]Object, len(w.Items))
	for i := range w.Items {
		o, err := w.Items[i].object()
		if err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
		items[i] = o
	}
	*l = List{TypeMeta: w.TypeMeta, Items: items, Metadata: w.Metadata}
	return nil
}

// NewList returns a List holding items (never a nil Items slice, so JSON shows []).
func NewList(items []Object) List {
	if items == nil {
		items = []Object{}
	}
	return List{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindList}, Items: items}
}

// Changes in a Plan.
const (
	ChangeAdded     = "added"
	ChangeChanged   = "changed"
	ChangeRemoved   = "removed"
	ChangeUnchanged = "unchanged"
)

// ChangeOf is the Change of something that was there before (had), is
// there after (has), and whose value before and after is the same (same).
func ChangeOf(had, has, same bool) string {
	switch {
	case !had && has:
		return ChangeAdded
	case had && !has:
		return ChangeRemoved
	case !same:
		return ChangeChanged
	}
	return ChangeUnchanged
}

// Plan actions.
const (
	ActionCreate    = "create"
	ActionUpdate    = "update"
	ActionUnchanged = "unchanged"
)

// KeyChange is what a replace would do to one key of a SecretSet.
type KeyChange struct {
	Key    string `json:"key"`
	Change string `json:"change"`
}

// FieldChange is what a replace would do to one other field: metadata.labels,
// spec.host, spec.username or spec.credentials; for an Agent, each field of
// its spec (spec.image, spec.scaling.minAgents, ...), with its value before
// (From) and after (To): an agent's spec holds no secret.
type FieldChange struct {
	Field  string `json:"field"`
	Change string `json:"change"`
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
}

// PlanMeta names the object a Plan is about.
type PlanMeta struct {
	Name            string `json:"name"`
	Organization    string `json:"organization"`
	Region          string `json:"region"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// Plan is the answer of a server-side dry run of a replace (PUT ?dryRun=true):
// what would change, key by key, without any value.
type Plan struct {
	TypeMeta   `json:",inline"`
	Metadata   PlanMeta      `json:"metadata"`
	ObjectKind string        `json:"objectKind"`
	Action     string        `json:"action"`
	Keys       []KeyChange   `json:"keys"`
	Fields     []FieldChange `json:"fields"`
}

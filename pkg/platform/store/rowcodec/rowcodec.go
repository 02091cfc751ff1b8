// Package rowcodec encodes the key list and labels of an object into the
// compact text columns both stores (SQLite and PostgreSQL) keep, so that
// their rows are identical and a data directory migrates column by column.
package rowcodec

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// EncodeKeys stores key names and value sizes as "KEY:size,KEY:size" in key
// order (key names are [A-Za-z0-9_], so the separators cannot clash); it is
// much cheaper to read back than JSON. A key with a digest is
// "KEY:size:digest", the digest in unpadded base64url (no separator either).
func EncodeKeys(m map[string]int, digests map[string][]byte) string {
	if len(m) == 0 {
		return ""
	}
	names := make([]string, 0, len(m))
	n := 0
	for k := range m {
		names = append(names, k)
		n += len(k) + 8
		if d, ok := digests[k]; ok {
			n += 1 + base64.RawURLEncoding.EncodedLen(len(d))
		}
	}
	slices.Sort(names)
	b := make([]byte, 0, n)
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, k...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(m[k]), 10)
		if d, ok := digests[k]; ok && len(d) > 0 {
			b = append(b, ':')
			b = base64.RawURLEncoding.AppendEncode(b, d)
		}
	}
	return string(b)
}

// DecodeKeys reads what EncodeKeys wrote: the sizes, and the digests (nil
// when no key has one).
func DecodeKeys(s string) (map[string]int, map[string][]byte, error) {
	if s == "" {
		return map[string]int{}, nil, nil
	}
	m := make(map[string]int, strings.Count(s, ",")+1)
	var digests map[string][]byte
	for item := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(item, ":")
		size, d, hasDigest := strings.Cut(v, ":")
		n, err := strconv.Atoi(size)
		if !ok || err != nil || k == "" {
			return nil, nil, fmt.Errorf("malformed key list")
		}
		m[k] = n
		if hasDigest {
			b, err := base64.RawURLEncoding.DecodeString(d)
			if err != nil || len(b) == 0 {
				return nil, nil, fmt.Errorf("malformed key list")
			}
			if digests == nil {
				digests = map[string][]byte{}
			}
			digests[k] = b
		}
	}
	return m, digests, nil
}

// EncodeLabels stores labels as "k=v,k=v" in key order when no key or value
// holds ',' or '=' (always true of valid labels), else as JSON.
func EncodeLabels(m map[string]string) (string, error) {
	if len(m) == 0 {
		return "", nil
	}
	names := make([]string, 0, len(m))
	for k, v := range m {
		if k == "" || strings.ContainsAny(k, ",={") || strings.ContainsAny(v, ",=") {
			return marshalMap(m)
		}
		names = append(names, k)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(m[k])
	}
	return b.String(), nil
}

func DecodeLabels(s string) (map[string]string, error) {
	if s == "" {
		return nil, nil
	}
	if s[0] == '{' {
		var m map[string]string
		err := json.Unmarshal([]byte(s), &m)
		return m, err
	}
	m := make(map[string]string, strings.Count(s, ",")+1)
	for item := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(item, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("malformed label list")
		}
		m[k] = v
	}
	return m, nil
}

func marshalMap[V any](m map[string]V) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// KeyNames appends the key names of an encoded key list (already sorted).
func KeyNames(dst []string, s string) ([]string, error) {
	if s == "" {
		return dst, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		k, _, ok := strings.Cut(item, ":")
		if !ok || k == "" {
			return dst, fmt.Errorf("malformed key list")
		}
		dst = append(dst, k)
	}
	return dst, nil
}

// LabelPairs appends the key, value pairs of encoded labels in key order.
func LabelPairs(dst []string, s string) ([]string, error) {
	if s == "" || s == "{}" {
		return dst, nil
	}
	if s[0] == '{' {
		m, err := DecodeLabels(s)
		if err != nil {
			return dst, err
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			dst = append(dst, k, m[k])
		}
		return dst, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(item, "=")
		if !ok || k == "" {
			return dst, fmt.Errorf("malformed label list")
		}
		dst = append(dst, k, v)
	}
	return dst, nil
}

// Scanner is a database row: *sql.Row, *sql.Rows, pgx.Row.
type Scanner interface{ Scan(dest ...any) error }

// ScanObject reads one object row: id, org_id, name, kind, region, labels,
// keys, host, username, version, generation, state, message, created_at,
// updated_at, managed, apply_set (both stores select these columns, with an
// empty string for labels and keys where a query leaves them out).
func ScanObject(sc Scanner) (store.Object, error) {
	var o store.Object
	var labels, keys string
	var created, updated int64
	err := sc.Scan(&o.ID, &o.OrgID, &o.Name, &o.Kind, &o.Region, &labels, &keys, &o.Host, &o.Username,
		&o.Version, &o.Generation, &o.State, &o.Message, &created, &updated, &o.Managed, &o.ApplySet)
	if err != nil {
		return o, err
	}
	if labels != "" && labels != "{}" {
		if o.Labels, err = DecodeLabels(labels); err != nil {
			return o, fmt.Errorf("object %d: labels: %w", o.ID, err)
		}
	}
	if keys != "" {
		if o.Keys, o.Digests, err = DecodeKeys(keys); err != nil {
			return o, fmt.Errorf("object %d: keys: %w", o.ID, err)
		}
	}
	o.CreatedAt, o.UpdatedAt = FromNanos(created), FromNanos(updated)
	return o, nil
}

// FromNanos is a stored timestamp (Unix nanoseconds) as UTC time.
func FromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// AuditColumns returns the stored form of an audit record's time (Unix
// nanoseconds; now when unset) and keys (a JSON array of the sorted key
// names, never null).
func AuditColumns(r store.AuditRecord) (at int64, keys string, err error) {
	kb, err := NameList(r.Keys)
	if err != nil {
		return 0, "", err
	}
	if r.At.IsZero() {
		r.At = time.Now().UTC()
	}
	return r.At.UnixNano(), kb, nil
}

// NameList is names sorted as a JSON array (never null), as json.Marshal
// writes it. Names of plain characters (key names are) are written
// directly: every write stores three or four such lists (its audit
// record's keys, its version's added, changed and removed keys).
func NameList(names []string) (string, error) {
	if len(names) == 0 {
		return "[]", nil
	}
	names = slices.Clone(names)
	slices.Sort(names)
	n := 1
	for _, k := range names {
		if !plainName(k) {
			b, err := json.Marshal(names)
			return string(b), err
		}
		n += len(k) + 3
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"')
	}
	return string(append(b, ']')), nil
}

// plainName reports whether json.Marshal writes s unchanged between its
// quotes, and so whether a JSON string's content s needs no decoding:
// letters, digits, '_', '-', '.' only.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// ListCols are the columns a listing selects, in ScanListItem's order.
const ListCols = `name, kind, region, labels, keys, host, username, version, generation, state, message, created_at, updated_at, managed, apply_set`

// ScanListItem reads one listing row (ListCols) into it, reusing its
// slices (see store.ListItem).
func ScanListItem(sc Scanner, it *store.ListItem) error {
	var labels, keys string
	var created, updated int64
	it.Object = store.Object{}
	err := sc.Scan(&it.Name, &it.Kind, &it.Region, &labels, &keys, &it.Host, &it.Username,
		&it.Version, &it.Generation, &it.State, &it.Message, &created, &updated, &it.Managed, &it.ApplySet)
	if err != nil {
		return err
	}
	it.CreatedAt, it.UpdatedAt = FromNanos(created), FromNanos(updated)
	if it.LabelPairs, err = LabelPairs(it.LabelPairs[:0], labels); err != nil {
		return fmt.Errorf("object %s: labels: %w", it.Name, err)
	}
	if it.KeyNames, err = KeyNames(it.KeyNames[:0], keys); err != nil {
		return fmt.Errorf("object %s: keys: %w", it.Name, err)
	}
	return nil
}

// VersionCols are a version's header columns, in ScanVersion's order.
const VersionCols = `object_id, version, created_at, actor, source, added, changed, removed, labels, keys, host, username`

// VersionRow is a version's header as stored: its key name lists as JSON
// arrays, labels and keys as objects store them.
type VersionRow struct {
	At                      int64
	Added, Changed, Removed string
	Labels, Keys            string
}

// VersionColumns encodes a version's header columns.
func VersionColumns(v store.Version) (VersionRow, error) {
	var r VersionRow
	var err error
	if r.Added, err = NameList(v.Added); err != nil {
		return r, err
	}
	if r.Changed, err = NameList(v.Changed); err != nil {
		return r, err
	}
	if r.Removed, err = NameList(v.Removed); err != nil {
		return r, err
	}
	if r.Labels, err = EncodeLabels(v.Labels); err != nil {
		return r, err
	}
	r.Keys = EncodeKeys(v.Keys, nil)
	if v.At.IsZero() {
		v.At = time.Now().UTC()
	}
	r.At = v.At.UnixNano()
	return r, nil
}

// decodeNames reads a version's list of key names as VersionColumns wrote
// it (a JSON array of strings) into what json.Unmarshal gives. Key names
// are environment variable names, which need no escaping: the common form
// ["A","B"] is split without encoding/json (a history of 100 versions reads
// 300 lists); anything else goes through json.Unmarshal.
func decodeNames(s string) ([]string, error) {
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		inner := s[1 : len(s)-1]
		if inner == "" {
			return []string{}, nil
		}
		out := make([]string, 0, strings.Count(inner, ",")+1)
		plain := true
		for item := range strings.SplitSeq(inner, ",") {
			if len(item) < 2 || item[0] != '"' || item[len(item)-1] != '"' || !plainName(item[1:len(item)-1]) {
				plain = false
				break
			}
			out = append(out, item[1:len(item)-1])
		}
		if plain {
			return out, nil
		}
	}
	var out []string
	err := json.Unmarshal([]byte(s), &out)
	return out, err
}

// ScanVersion reads one version header row (VersionCols).
func ScanVersion(sc Scanner) (store.Version, error) {
	var v store.Version
	var at int64
	var added, changed, removed, labels, keys string
	if err := sc.Scan(&v.ObjectID, &v.Version, &at, &v.Actor, &v.Source, &added, &changed, &removed, &labels, &keys, &v.Host, &v.Username); err != nil {
		return v, err
	}
	v.At = FromNanos(at)
	for _, f := range []struct {
		dst *[]string
		src string
	}{{&v.Added, added}, {&v.Changed, changed}, {&v.Removed, removed}} {
		var err error
		if *f.dst, err = decodeNames(f.src); err != nil {
			return v, fmt.Errorf("object %d version %d: key names: %w", v.ObjectID, v.Version, err)
		}
	}
	var err error
	if labels != "" && labels != "{}" {
		if v.Labels, err = DecodeLabels(labels); err != nil {
			return v, fmt.Errorf("object %d version %d: labels: %w", v.ObjectID, v.Version, err)
		}
	}
	if keys != "" {
		if v.Keys, _, err = DecodeKeys(keys); err != nil {
			return v, fmt.Errorf("object %d version %d: keys: %w", v.ObjectID, v.Version, err)
		}
	}
	return v, nil
}

// AgentCols are an agent's columns in ScanAgent's order, for a query over
// agents AS a joined with orgs AS o (o.name is the organization's name).
const AgentCols = `a.id, a.org_id, o.name, a.name, a.region, a.labels, a.spec, a.version, a.generation, a.serving, a.latest, a.managed, a.apply_set, a.created_at, a.updated_at`

// AgentFrom is the FROM clause AgentCols reads.
const AgentFrom = ` FROM agents a JOIN orgs o ON o.id = a.org_id`

// ScanAgent reads one agent row (AgentCols). The spec is stored as text
// (JSON, opaque to the stores).
func ScanAgent(sc Scanner) (store.Agent, error) {
	var a store.Agent
	var labels, spec string
	var created, updated int64
	err := sc.Scan(&a.ID, &a.OrgID, &a.OrgName, &a.Name, &a.Region, &labels, &spec, &a.Version, &a.Generation,
		&a.Serving, &a.Latest, &a.Managed, &a.ApplySet, &created, &updated)
	if err != nil {
		return a, err
	}
	if labels != "" && labels != "{}" {
		if a.Labels, err = DecodeLabels(labels); err != nil {
			return a, fmt.Errorf("agent %d: labels: %w", a.ID, err)
		}
	}
	a.Spec = []byte(spec)
	a.CreatedAt, a.UpdatedAt = FromNanos(created), FromNanos(updated)
	return a, nil
}

// DeploymentCols are a deployment's columns, in ScanDeployment's order and
// in the order of DeploymentArgs.
const DeploymentCols = `agent_id, number, at, actor, source, rollback_of, image, image_digest, image_pull_secret, secret_set, secret_set_version, profile, result, message, finished_at, secret_set_created`

// DeploymentArgs returns the stored form of d's columns (DeploymentCols):
// times as Unix nanoseconds (At: now when unset), FinishedAt NULL when nil.
func DeploymentArgs(d store.Deployment) []any {
	if d.At.IsZero() {
		d.At = time.Now().UTC()
	}
	return []any{d.AgentID, d.Number, d.At.UnixNano(), d.Actor, d.Source, d.RollbackOf, d.Image, d.ImageDigest,
		d.ImagePullSecret, d.SecretSetName, d.SecretSetVersion, d.Profile, d.Result, d.Message, nanos(d.FinishedAt), d.SecretSetCreated}
}

// ScanDeployment reads one deployment row (DeploymentCols).
func ScanDeployment(sc Scanner) (store.Deployment, error) {
	var d store.Deployment
	var at int64
	var finished *int64
	err := sc.Scan(&d.AgentID, &d.Number, &at, &d.Actor, &d.Source, &d.RollbackOf, &d.Image, &d.ImageDigest,
		&d.ImagePullSecret, &d.SecretSetName, &d.SecretSetVersion, &d.Profile, &d.Result, &d.Message, &finished, &d.SecretSetCreated)
	if err != nil {
		return d, err
	}
	d.At, d.FinishedAt = FromNanos(at), fromOptNanos(finished)
	return d, nil
}

// PublicKeyCols are a public key's columns (k: public_keys, o: orgs), in
// ScanPublicKey's order.
const PublicKeyCols = `k.id, k.org_id, o.name, o.default_region, k.name, k.hash, k.prefix, k.allowed_origins, k.created_at, k.created_by, k.deleted_at`

// PublicKeyArgs returns the stored form of a new key's columns, in the
// order id, org_id, name, hash, prefix, allowed_origins (a JSON array),
// created_at (now when unset), created_by.
func PublicKeyArgs(k store.PublicKey) ([]any, error) {
	if k.CreatedAt.IsZero() {
		k.CreatedAt = time.Now().UTC()
	}
	origins := k.AllowedOrigins
	if origins == nil {
		origins = []string{}
	}
	b, err := json.Marshal(origins)
	if err != nil {
		return nil, err
	}
	return []any{k.ID, k.OrgID, k.Name, k.Hash, k.Prefix, string(b), k.CreatedAt.UnixNano(), k.CreatedBy}, nil
}

// ScanPublicKey reads one public key row (PublicKeyCols).
func ScanPublicKey(sc Scanner) (store.PublicKey, error) {
	var k store.PublicKey
	var origins string
	var created int64
	var deleted *int64
	if err := sc.Scan(&k.ID, &k.OrgID, &k.OrgName, &k.OrgRegion, &k.Name, &k.Hash, &k.Prefix, &origins, &created, &k.CreatedBy, &deleted); err != nil {
		return k, err
	}
	if err := json.Unmarshal([]byte(origins), &k.AllowedOrigins); err != nil {
		return k, fmt.Errorf("public key %s: allowed origins: %w", k.ID, err)
	}
	k.CreatedAt, k.DeletedAt = FromNanos(created), fromOptNanos(deleted)
	return k, nil
}

// PublicKeySessionFrom is the FROM clause of a key (PublicKeyCols) and a
// session of its organization (SessionCols) read together: the key's
// hash and the session's ID are its two parameters.
const PublicKeySessionFrom = ` FROM public_keys k JOIN orgs o ON o.id = k.org_id JOIN sessions s ON s.org_id = k.org_id AND s.id = `

// ScanPublicKeySession reads one row of a key and a session
// (PublicKeyCols, then SessionCols).
func ScanPublicKeySession(sc Scanner) (store.PublicKey, store.Session, error) {
	var k store.PublicKey
	var s store.Session
	var origins string
	var keyCreated, created int64
	var deleted, started, ended *int64
	err := sc.Scan(&k.ID, &k.OrgID, &k.OrgName, &k.OrgRegion, &k.Name, &k.Hash, &k.Prefix, &origins, &keyCreated, &k.CreatedBy, &deleted,
		&s.ID, &s.OrgID, &s.OrgName, &s.AgentID, &s.Agent, &s.Region, &s.Deployment, &s.Container, &s.Transport,
		&s.State, &s.WSToken, &created, &started, &ended, &s.EndReason, &s.MaxSeconds)
	if err != nil {
		return k, s, err
	}
	if err := json.Unmarshal([]byte(origins), &k.AllowedOrigins); err != nil {
		return k, s, fmt.Errorf("public key %s: allowed origins: %w", k.ID, err)
	}
	k.CreatedAt, k.DeletedAt = FromNanos(keyCreated), fromOptNanos(deleted)
	s.CreatedAt = FromNanos(created)
	s.StartedAt, s.EndedAt = fromOptNanos(started), fromOptNanos(ended)
	return k, s, nil
}

// SessionCols are a session's columns (s: sessions, o: orgs), in
// ScanSession's order.
const SessionCols = `s.id, s.org_id, o.name, s.agent_id, s.agent, s.region, s.deployment, s.container, s.transport, s.state, s.ws_token, s.created_at, s.started_at, s.ended_at, s.end_reason, s.max_seconds`

// SessionFrom is the FROM clause SessionCols reads.
const SessionFrom = ` FROM sessions s JOIN orgs o ON o.id = s.org_id`

// SessionInsertCols are the columns SessionArgs gives, in its order.
const SessionInsertCols = `id, org_id, agent_id, agent, region, deployment, container, transport, state, ws_token, created_at, started_at, ended_at, end_reason, max_seconds`

// SessionArgs returns the stored form of a new session's columns
// (SessionInsertCols): times as Unix nanoseconds (CreatedAt: now when
// unset), StartedAt and EndedAt NULL when nil, WSToken NULL when nil.
func SessionArgs(s store.Session) []any {
	if s.CreatedAt.IsZero() {
		s.CreatedAt = time.Now().UTC()
	}
	return []any{s.ID, s.OrgID, s.AgentID, s.Agent, s.Region, s.Deployment, s.Container, s.Transport, s.State,
		wsToken(s.WSToken), s.CreatedAt.UnixNano(), nanos(s.StartedAt), nanos(s.EndedAt), s.EndReason, s.MaxSeconds}
}

// SessionUpdateArgs returns the stored form of what an update of a session
// writes, in the order container, state, ws_token, started_at, ended_at,
// end_reason, then the key: org_id, id.
func SessionUpdateArgs(s store.Session) []any {
	return []any{s.Container, s.State, wsToken(s.WSToken), nanos(s.StartedAt), nanos(s.EndedAt), s.EndReason, s.OrgID, s.ID}
}

// wsToken is a session's token column: NULL when there is none (a nil
// []byte would be stored as an empty value by some drivers).
func wsToken(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

// nanos is an optional time's column: Unix nanoseconds, or NULL.
func nanos(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	n := t.UnixNano()
	return &n
}

// fromOptNanos reads what nanos wrote.
func fromOptNanos(n *int64) *time.Time {
	if n == nil {
		return nil
	}
	t := FromNanos(*n)
	return &t
}

// ScanSession reads one session row (SessionCols).
func ScanSession(sc Scanner) (store.Session, error) {
	var s store.Session
	var created int64
	var started, ended *int64
	err := sc.Scan(&s.ID, &s.OrgID, &s.OrgName, &s.AgentID, &s.Agent, &s.Region, &s.Deployment, &s.Container, &s.Transport,
		&s.State, &s.WSToken, &created, &started, &ended, &s.EndReason, &s.MaxSeconds)
	if err != nil {
		return s, err
	}
	s.CreatedAt = FromNanos(created)
	s.StartedAt, s.EndedAt = fromOptNanos(started), fromOptNanos(ended)
	return s, nil
}

package service

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The sources of a version: the operation that wrote it.
const (
	SourceSet             = "set"               // PATCH that sets keys (or creates)
	SourceUnset           = "unset"             // a key removed (DELETE .../keys/KEY, or PATCH remove only)
	SourceImagePullSecret = "image-pull-secret" // PATCH of an image pull secret
	SourceReplace         = "replace"           // PUT
	SourceApply           = "apply"             // POST .../apply
	SourceRollback        = "rollback"          // POST .../versions/N/rollback
	SourceMigration       = "migration"         // botkit-platform migrate, or a database migration
)

// migrationActor is the actor of the versions a migration writes.
const migrationActor = "botkit-platform"

// History limits: how many versions an object keeps by default, and the
// range an organization may choose (botkit-platform orgs set
// --history-limit).
const (
	DefaultHistoryLimit = 10
	MinHistoryLimit     = 1
	MaxHistoryLimit     = 100
)

// history is what a write tells its version: who, through which
// operation, and the keys the object had before.
type history struct {
	p           Principal
	source      string
	before      map[string]int
	hostChanged bool
}

// putVersion records obj's contents after a write as its version
// obj.Generation and purges the versions past the organization's history
// limit, in the write's transaction. The store keeps the values the write
// put and the keys it removed; the version's other values are those of
// the version before it.
func putVersion(ctx context.Context, tx store.Tx, obj store.Object, h history, put []store.Value, removed []string, now time.Time) error {
	v := store.Version{ObjectID: obj.ID, Version: obj.Generation, At: now, Actor: h.p.actor(), Source: h.source,
		Labels: obj.Labels, Host: obj.Host, Username: obj.Username, Keys: versionKeys(obj), Values: put}
	for _, val := range put {
		if _, had := h.before[val.Key]; had {
			v.Changed = append(v.Changed, val.Key)
		} else {
			v.Added = append(v.Added, val.Key)
		}
	}
	for _, k := range removed {
		if _, had := h.before[k]; had {
			v.Removed = append(v.Removed, k)
		}
	}
	if h.hostChanged {
		v.Changed = append(v.Changed, "host")
	}
	if err := tx.PutVersion(ctx, v); err != nil {
		return err
	}
	return tx.PurgeVersions(ctx, obj.OrgID, obj.ID, obj.Generation)
}

// versionKeys are the key names and sizes a version of obj shows: an
// image pull secret's one value, a secret set's keys.
func versionKeys(obj store.Object) map[string]int {
	if obj.Kind == resources.KindImagePullSecret {
		return map[string]int{store.CredentialsKey: 0}
	}
	return obj.Keys
}

// toVersion is a stored version as the API shows it: key names, never a
// value.
func toVersion(v store.Version, withContents bool) resources.ObjectVersion {
	out := resources.ObjectVersion{Version: v.Version, Time: v.At, Actor: v.Actor, Source: v.Source,
		Added: nonNil(v.Added), Changed: nonNil(v.Changed), Removed: nonNil(v.Removed)}
	if withContents {
		out.Keys = slices.Sorted(maps.Keys(v.Keys))
		if out.Keys == nil {
			out.Keys = []string{}
		}
		out.Labels, out.Host, out.Username = v.Labels, v.Host, v.Username
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// MaxVersionsLimit is the largest page of a history.
const MaxVersionsLimit = 100

// Versions lists the versions of the object name, newest first: limit
// ("" = every kept one) per page, continue the token of the previous
// page's end.
func (s *Service) Versions(ctx context.Context, p Principal, name, limit, cont string) (resources.ObjectVersionList, error) {
	list := resources.ObjectVersionList{APIVersion: resources.APIVersion, Kind: resources.KindVersionList, Items: []resources.ObjectVersion{}}
	n := MaxVersionsLimit
	if limit != "" {
		v, err := strconv.Atoi(limit)
		if err != nil || v < 1 || v > MaxVersionsLimit {
			return list, errInvalid("limit: want a number from 1 to %d", MaxVersionsLimit)
		}
		n = v
	}
	var before int64
	if cont != "" {
		v, err := strconv.ParseInt(cont, 10, 64)
		if err != nil || v < 1 {
			return list, errInvalid("continue: not a token returned by a previous list")
		}
		before = v
	}
	o, err := s.Get(ctx, p, name)
	if err != nil {
		return list, err
	}
	vs, err := s.store.Versions(ctx, o.ID, before, n+1)
	if err != nil {
		return list, err
	}
	if len(vs) > n {
		vs = vs[:n]
		list.Metadata.Continue = strconv.FormatInt(vs[n-1].Version, 10)
	}
	for _, v := range vs {
		list.Items = append(list.Items, toVersion(v, false))
	}
	return list, nil
}

// Version returns one version of the object name: its metadata and key
// names.
func (s *Service) Version(ctx context.Context, p Principal, name, version string) (resources.ObjectVersion, error) {
	o, err := s.Get(ctx, p, name)
	if err != nil {
		return resources.ObjectVersion{}, err
	}
	n, err := parseVersion(version)
	if err != nil {
		return resources.ObjectVersion{}, err
	}
	v, err := s.store.Version(ctx, o.ID, n)
	if errors.Is(err, store.ErrNotFound) {
		return resources.ObjectVersion{}, errNoVersion(o, n)
	}
	if err != nil {
		return resources.ObjectVersion{}, err
	}
	return toVersion(v, true), nil
}

func parseVersion(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return 0, errInvalid("version: want a number from 1 (see the object's history)")
	}
	return n, nil
}

func errNoVersion(o store.Object, n int64) error {
	return errNotFound("%s has no version %d: it was purged (the history keeps the newest versions only) or never written", describe(o), n)
}

// Rollback writes the contents of version (its keys and values, labels,
// an image pull secret's host and credentials) as the object's next
// version, when its current resourceVersion matches ifMatch ("" = any).
func (s *Service) Rollback(ctx context.Context, p Principal, name, version, ifMatch string) (store.Object, error) {
	n, err := parseVersion(version)
	if err != nil {
		return store.Object{}, err
	}
	var result store.Object
	var wrote bool
	err = s.store.Update(store.WithObjects(ctx, store.ObjectKey{OrgID: p.org.ID, Name: name}), func(ctx context.Context, tx store.Tx) error {
		wrote = false
		cur, err := loadObject(ctx, tx, p.org.ID, name)
		if err != nil {
			return err
		}
		if err := (precondition{ifMatch: ifMatch}).check(name, true, cur); err != nil {
			return err
		}
		v, err := tx.Version(ctx, cur.ID, n)
		if errors.Is(err, store.ErrNotFound) {
			return errNoVersion(cur, n)
		}
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		obj := cur
		obj.Labels, obj.Host, obj.Username = v.Labels, v.Host, v.Username
		obj.Managed, obj.ApplySet = false, "" // an imperative write
		obj.Keys, obj.Digests = nil, nil
		if cur.Kind == resources.KindSecretSet {
			obj.Keys = maps.Clone(v.Keys)
			if obj.Keys == nil {
				obj.Keys = map[string]int{}
			}
		}
		var removed []string
		for k := range cur.Keys {
			if _, ok := v.Keys[k]; !ok {
				removed = append(removed, k)
			}
		}
		slices.Sort(removed)
		// The version's ciphertexts are bound to this object's organization,
		// region, name and key, which a rollback keeps: the values that
		// differ from the current ones go back as they are. Both are
		// decrypted here only to tell which differ.
		put, err := s.rollbackValues(ctx, tx, p, cur, &obj, v.Values)
		if err != nil {
			return err
		}
		if len(put) == 0 && len(removed) == 0 && labelsEqual(obj.Labels, cur.Labels) && obj.Host == cur.Host && obj.Username == cur.Username {
			// The object has the version's contents already: no new
			// version (nothing is written).
			result = cur
			return nil
		}
		if err := storeWrite(ctx, tx, &obj, removed, put, now, history{p: p, source: SourceRollback, before: valueSizes(cur), hostChanged: obj.Host != cur.Host}); err != nil {
			return err
		}
		result, wrote = obj, true
		return tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: "rollback", Kind: cur.Kind, Name: name, Region: cur.Region,
			Keys: slices.Sorted(maps.Keys(v.Keys))})
	})
	if err == nil && wrote {
		s.wake(result.Region)
	}
	return result, err
}

// rollbackValues returns the values of a version (vals) that differ from
// the object's current ones, and gives obj (the object after the rollback)
// the digests of the version's values.
func (s *Service) rollbackValues(ctx context.Context, tx store.Tx, p Principal, cur store.Object, obj *store.Object, vals []store.Value) ([]store.Value, error) {
	curPlain, err := s.decryptAll(ctx, tx, p.org.Name, cur)
	if err != nil {
		return nil, err
	}
	var put []store.Value
	for _, val := range vals {
		pt, err := s.sealer.Open(p.org.Name, cur.Region, cur.Name, val.Key, val.Ciphertext)
		if err != nil {
			return nil, resources.Errorf(resources.CodeInternal, "%s: %v", describe(cur), err)
		}
		if cur.Kind == resources.KindSecretSet {
			if obj.Digests == nil {
				obj.Digests = map[string][]byte{}
			}
			obj.Digests[val.Key] = s.sealer.Digest(p.org.Name, cur.Region, cur.Name, val.Key, pt)
		}
		if old, had := curPlain[val.Key]; !had || !equalSecret(old, pt) {
			put = append(put, val)
		}
	}
	return put, nil
}

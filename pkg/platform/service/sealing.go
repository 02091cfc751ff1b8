package service

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/encryption"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/sealed"
)

// Sealed values (docs/manifests.md, "Sealed values: secrets in git"): every organization has
// age X25519 key pairs; the private parts are stored encrypted under the
// master key, as values are, with the organization and key id as
// associated data. An organization gets its first key pair the first time
// it needs one (its certificate is read, a value is unsealed or resealed,
// its keys are exported), on every store and replica the same one.

// sealingKeyName is the "name" of a sealing key's private part in the
// associated data of its encryption under the master key.
const sealingKeyName = "sealing-key"

// newSealingKey makes key pair number seq of org, its private part
// encrypted under the master key.
func newSealingKey(sl *encryption.Sealer, org store.Org, seq int64) (store.SealingKey, error) {
	identity, recipient, err := sealed.GenerateKey()
	if err != nil {
		return store.SealingKey{}, err
	}
	return sealKeyPair(sl, org, seq, identity, recipient, time.Now().UTC())
}

func sealKeyPair(sl *encryption.Sealer, org store.Org, seq int64, identity, recipient string, at time.Time) (store.SealingKey, error) {
	id := sealed.KeyID(recipient)
	ct, err := sl.Seal(org.Name, "", sealingKeyName, id, []byte(identity))
	if err != nil {
		return store.SealingKey{}, err
	}
	return store.SealingKey{OrgID: org.ID, Seq: seq, ID: id, Recipient: recipient, Identity: ct, CreatedAt: at}, nil
}

// openKeyPair decrypts the private part of k.
func openKeyPair(sl *encryption.Sealer, org string, k store.SealingKey) (*sealed.Identity, error) {
	pt, err := sl.Open(org, "", sealingKeyName, k.ID, k.Identity)
	if err != nil {
		return nil, err
	}
	id, err := sealed.ParseIdentity(string(pt))
	if err != nil || id.ID != k.ID {
		return nil, fmt.Errorf("sealing key %s of organization %s is damaged", k.ID, org)
	}
	return id, nil
}

// sealingKeys returns the organization's key pairs, oldest first, making
// its first one when it has none.
func sealingKeys(ctx context.Context, st store.Store, sl *encryption.Sealer, org store.Org) ([]store.SealingKey, error) {
	keys, err := st.SealingKeys(ctx, org.ID)
	if err != nil || len(keys) > 0 {
		return keys, err
	}
	k, err := newSealingKey(sl, org, 1)
	if err != nil {
		return nil, err
	}
	err = st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		return tx.PutSealingKey(ctx, k)
	})
	if err != nil && !errors.Is(err, store.ErrExists) { // ErrExists: another process made it first
		return nil, err
	}
	return st.SealingKeys(ctx, org.ID)
}

// currentKey returns the newest key not retired.
func currentKey(keys []store.SealingKey) (store.SealingKey, bool) {
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i].RetiredAt == nil {
			return keys[i], true
		}
	}
	return store.SealingKey{}, false
}

func errNoCurrentKey(org string) *resources.Error {
	return errConflict("organization %s has no sealing key that is not retired; an operator adds one with botkit-platform orgs rotate-sealing-key %s", org, org)
}

// describeKeys lists key ids for a message: "3f9a… (retired), 77c2…".
func describeKeys(keys []store.SealingKey) string {
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		if k.RetiredAt != nil {
			ids = append(ids, k.ID+" (retired)")
		} else {
			ids = append(ids, k.ID)
		}
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// SealingKey implements GET /v1/organizations/{org}/sealing-key.
func (s *Service) SealingKey(ctx context.Context, p Principal) (resources.SealingKey, error) {
	keys, err := sealingKeys(ctx, s.store, s.sealer, p.org)
	if err != nil {
		return resources.SealingKey{}, err
	}
	cur, ok := currentKey(keys)
	if !ok {
		return resources.SealingKey{}, errNoCurrentKey(p.org.Name)
	}
	out := resources.SealingKey{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSealingKey},
		Metadata: resources.SealingKeyMeta{Organization: p.org.Name},
		KeyID:    cur.ID, Recipient: cur.Recipient, Keys: make([]resources.SealingKeyInfo, 0, len(keys)),
	}
	for _, k := range keys {
		out.Keys = append(out.Keys, resources.SealingKeyInfo{KeyID: k.ID, Recipient: k.Recipient, CreatedAt: k.CreatedAt, RetiredAt: k.RetiredAt, Current: k.ID == cur.ID})
	}
	return out, nil
}

// keyring opens the sealed values of one request: the organization's keys,
// read once, and their private parts, decrypted once per process.
type keyring struct {
	s    *Service
	org  store.Org
	once sync.Once
	keys []store.SealingKey
	err  error
}

func (s *Service) keyring(org store.Org) *keyring { return &keyring{s: s, org: org} }

func (r *keyring) load(ctx context.Context) error {
	r.once.Do(func() { r.keys, r.err = sealingKeys(ctx, r.s.store, r.s.sealer, r.org) })
	return r.err
}

// identity returns the private part of the key named id, and whether the
// key is retired; nil when the organization has no such key.
func (r *keyring) identity(id string) (*sealed.Identity, *store.SealingKey, error) {
	for i := range r.keys {
		k := &r.keys[i]
		if k.ID != id {
			continue
		}
		cacheKey := strconv.FormatInt(r.org.ID, 10) + "/" + k.ID
		if v, ok := r.s.identities.Load(cacheKey); ok {
			return v.(*sealed.Identity), k, nil
		}
		ident, err := openKeyPair(r.s.sealer, r.org.Name, *k)
		if err != nil {
			return nil, k, err
		}
		r.s.identities.Store(cacheKey, ident)
		return ident, k, nil
	}
	return nil, nil, nil
}

// open decrypts one sealed value used as key of set name. Its error is a
// *resources.Error on field, saying which key it tried and why it failed;
// it never holds the value.
func (r *keyring) open(ctx context.Context, field, name, key, s string) (string, error) {
	fail := func(format string, args ...any) (string, error) {
		e := errInvalid("%s: "+format, append([]any{field}, args...)...)
		e.Field = field
		return "", e
	}
	v, err := sealed.Parse(s)
	if err != nil {
		return fail("%v", err)
	}
	if err := r.load(ctx); err != nil {
		return "", err
	}
	ident, k, err := r.identity(v.KeyID)
	switch {
	case err != nil:
		return "", err
	case k == nil:
		return fail("sealed to key %s, which organization %s does not hold (its keys: %s): sealed for another organization or platform; %s",
			v.KeyID, r.org.Name, describeKeys(r.keys), foreignKeyHint(r.org.Name, name))
	case k.RetiredAt != nil:
		return fail("sealed to key %s, retired on %s (keys tried: %s): reseal the manifests (botkit seal --reseal) before retiring a key",
			v.KeyID, k.RetiredAt.Format(time.DateOnly), k.ID)
	}
	b, val, err := sealed.Open(v, ident)
	if err != nil {
		return fail("sealed value does not decrypt with key %s, the key it names (tampered or damaged; keys tried: %s)", v.KeyID, v.KeyID)
	}
	if err := b.Allows(r.org.Name, name, key); err != nil {
		return fail("sealed value %v", err)
	}
	return val, nil
}

// unseal replaces the sealed values of objs (SecretSet data) by the values
// they hold, in place, in parallel. errs[i] is the first problem of objs[i]
// (a *resources.Error naming its field), nil when none; err is a failure
// of the store.
func (s *Service) unseal(ctx context.Context, org store.Org, objs []*resources.Object) (errs []error, err error) {
	type job struct {
		obj  int
		key  string
		from string
	}
	var jobs []job
	for i, o := range objs {
		if o == nil || o.SecretSet == nil {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(o.SecretSet.Spec.Data)) { // in key order: an object's first problem is its first key's
			if src := o.SecretSet.Spec.Data[k]; src.Sealed != "" {
				jobs = append(jobs, job{i, k, src.Sealed})
			}
		}
	}
	errs = make([]error, len(objs))
	if len(jobs) == 0 {
		return errs, nil
	}
	r := s.keyring(org)
	if err := r.load(ctx); err != nil {
		return nil, err
	}
	vals := make([]string, len(jobs))
	jerrs := make([]error, len(jobs))
	workers := min(runtime.GOMAXPROCS(0), (len(jobs)+15)/16)
	var wg sync.WaitGroup
	next := make(chan int, len(jobs))
	for i := range jobs {
		next <- i
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for i := range next {
				j := jobs[i]
				vals[i], jerrs[i] = r.open(ctx, "spec.data."+j.key, objs[j.obj].Meta().Name, j.key, j.from)
			}
		})
	}
	wg.Wait()
	for i, j := range jobs {
		if jerrs[i] != nil {
			if _, ok := AsError(jerrs[i]); !ok {
				return nil, jerrs[i] // the store or the master key, not the value
			}
			if errs[j.obj] == nil {
				errs[j.obj] = jerrs[i]
			}
			continue
		}
		objs[j.obj].SecretSet.Spec.Data[j.key] = resources.Literal(vals[i])
	}
	return errs, nil
}

// Reseal implements POST /v1/organizations/{org}/reseal: every value is
// decrypted and encrypted again to the current key, binding unchanged.
// Values already sealed to the current key are returned as they are.
func (s *Service) Reseal(ctx context.Context, p Principal, req resources.ResealRequest) (resources.ResealResult, error) {
	res := resources.ResealResult{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindResealResult}}
	if len(req.Values) > resources.MaxResealValues {
		return res, errTooLarge("a reseal holds at most %d values; this one holds %d", resources.MaxResealValues, len(req.Values))
	}
	r := s.keyring(p.org)
	if err := r.load(ctx); err != nil {
		return res, err
	}
	cur, ok := currentKey(r.keys)
	if !ok {
		return res, errNoCurrentKey(p.org.Name)
	}
	rcp, err := sealed.ParseRecipient(cur.Recipient)
	if err != nil {
		return res, err
	}
	res.KeyID = cur.ID
	res.Values = make([]string, len(req.Values))
	errs := objectErrors{noun: "values"}
	bad := func(i int, format string, args ...any) { errs.add(i, "", "", errInvalid(format, args...)) }
	for i, in := range req.Values {
		v, err := sealed.Parse(in)
		if err != nil {
			bad(i, "%v", err)
			continue
		}
		if v.KeyID == cur.ID {
			res.Values[i] = in
			continue
		}
		ident, k, err := r.identity(v.KeyID)
		switch {
		case err != nil:
			return res, err
		case k == nil:
			bad(i, "sealed to key %s, which organization %s does not hold (its keys: %s): sealed for another organization or platform; %s",
				v.KeyID, p.org.Name, describeKeys(r.keys), foreignKeyHint(p.org.Name, "NAME"))
			continue
		case k.RetiredAt != nil:
			bad(i, "sealed to key %s, retired on %s: a retired key decrypts nothing; seal the value again with botkit seal", v.KeyID, k.RetiredAt.Format(time.DateOnly))
			continue
		}
		out, b, err := sealed.Reseal(v, ident, rcp)
		if err != nil {
			bad(i, "does not decrypt with key %s, the key it names (tampered or damaged)", v.KeyID)
			continue
		}
		if b.Organization != p.org.Name {
			bad(i, "sealed for organization %s, not %s", b.Organization, p.org.Name)
			continue
		}
		res.Values[i] = out
	}
	if err := errs.err("nothing was resealed"); err != nil {
		return res, err
	}
	return res, nil
}

// foreignKeyHint says what to do with a value sealed to a key org does not
// hold (another organization's, or another platform's): seal the values
// again for org, online or offline with its certificate. A reseal cannot
// help: it opens a value with the keys of the organization it is bound to
// and keeps that binding. set is the secret set's name ("NAME" when not
// known).
func foreignKeyHint(org, set string) string {
	return fmt.Sprintf("seal the values again for organization %[1]s: botkit seal %[2]s -f FILE.env --organization %[1]s, or offline: botkit seal --fetch-cert --organization %[1]s > %[1]s.pub, then botkit seal %[2]s -f FILE.env --cert %[1]s.pub (botkit seal --reseal keeps a value in the organization it was sealed for)", org, set)
}

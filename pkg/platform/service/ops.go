package service

import (
	"context"
	"crypto/hmac"
	"crypto/subtle"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/wire"
	"github.com/botkit-dev/botkit/pkg/resources"
)

func describe(o store.Object) string { return strings.ToLower(o.Kind) + "/" + o.Name }

func validateObjectName(name string) error {
	if err := resources.ValidateName(name); err != nil {
		return errInvalid("metadata.name: %v", err)
	}
	return nil
}

// limitError maps a limit violation to 413.
func limitError(err error) error { return errTooLarge("%v", err) }

func validateSetValues(set map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if err := resources.ValidateKey(k); err != nil {
			return errInvalid("%v", err)
		}
		v := set[k]
		if len(v) > resources.MaxValueBytes {
			return limitError(resources.ValidateValue(k, v))
		}
		if err := resources.ValidateValue(k, v); err != nil {
			return errInvalid("%v", err)
		}
	}
	return nil
}

func checkTotals(keys map[string]int) error {
	total := 0
	for k, n := range keys {
		total += resources.SetSize(k, n)
	}
	if err := resources.ValidateSetTotals(len(keys), total); err != nil {
		return limitError(err)
	}
	return nil
}

func kindConflict(cur store.Object, wantKind string) error {
	return errConflict("name %q is taken by %s in region %s; %s cannot share it", cur.Name, describe(cur), cur.Region, resources.WithArticle(wantKind))
}

func regionConflict(cur store.Object, want string) error {
	return errConflict("%s exists in region %s; its region cannot change to %s (delete it and create it again to move it)", describe(cur), cur.Region, want)
}

// ipsInput is a validated image pull secret input.
type ipsInput struct {
	host     string // normalized; "" = keep
	username string
	b64      string // "" = keep
}

func parseIPS(host string, creds *string, encode *bool) (ipsInput, error) {
	var in ipsInput
	if host != "" {
		h, err := resources.NormalizeRegistryHost(host)
		if err != nil {
			return in, errInvalid("%v", err)
		}
		in.host = h
	}
	if creds != nil {
		enc := true
		if encode != nil {
			enc = *encode
		}
		u, b, err := resources.ParseCredentials(*creds, !enc)
		if err != nil {
			return in, errInvalid("%v", err)
		}
		in.username, in.b64 = u, b
	}
	return in, nil
}

// precondition is a conditional request's If-Match / If-None-Match.
type precondition struct {
	ifMatch     string // If-Match's value: "*" or a list of ETags; "" = none
	ifNoneMatch string // "*" = must not exist; "" = none
	field       string // what messages call ifMatch (default If-Match)
}

// check applies the precondition to the object name (cur when exists).
func (pc precondition) check(name string, exists bool, cur store.Object) error {
	if pc.ifNoneMatch != "" && exists {
		return errConflict("If-None-Match: %s already exists (resourceVersion %d); read it again and retry", describe(cur), cur.Version)
	}
	if pc.ifMatch == "" {
		return nil
	}
	field := pc.field
	if field == "" {
		field = "If-Match"
	}
	switch {
	case !exists:
		return errConflict("%s: %s does not exist (it was deleted or never created)", field, name)
	case !ifMatches(pc.ifMatch, cur.Version):
		return errConflict("%s: %s changed since %s (now resourceVersion %d); read it again and retry", field, describe(cur), describeETags(pc.ifMatch), cur.Version)
	}
	return nil
}

// describeETags shows an If-Match value in a message: its entity tags as
// sent ("4", W/"4"; a bare number as the tag it names), or, when it is not
// a list of tags, the value quoted (escaped, shortened).
func describeETags(h string) string {
	var tags []string
	for tag := range strings.SplitSeq(h, ",") {
		tag = strings.TrimSpace(tag)
		opaque := strings.TrimPrefix(tag, "W/")
		switch {
		case tag == "*":
		case len(opaque) >= 2 && opaque[0] == '"' && opaque[len(opaque)-1] == '"' && isETagText(opaque[1:len(opaque)-1]):
		case tag != "" && isETagText(tag) && tag == opaque:
			tag = `"` + tag + `"`
		default:
			return wire.QuoteField(h)
		}
		tags = append(tags, tag)
	}
	if len(h) > 200 {
		return wire.QuoteField(h)
	}
	return strings.Join(tags, ", ")
}

// isETagText reports whether s is the inside of an entity tag (RFC 9110
// etagc: visible characters but the double quote).
func isETagText(s string) bool {
	for i := range len(s) {
		if c := s[i]; c <= 0x20 || c == '"' || c >= 0x7f {
			return false
		}
	}
	return true
}

// ifMatches reports whether an If-Match value matches an object at version
// (RFC 9110): "*" matches any existing object; otherwise a comma-separated
// list of entity tags, compared strongly — a weak tag (W/"7") never
// matches. A bare number is read as the tag it names.
func ifMatches(h string, version int64) bool {
	want := strconv.FormatInt(version, 10)
	for _, tag := range strings.Split(h, ",") {
		tag = strings.TrimSpace(tag)
		switch {
		case tag == "*":
			return true
		case strings.HasPrefix(tag, "W/"):
			continue
		case strings.Trim(tag, `"`) == want:
			return true
		}
	}
	return false
}

// merge implements PATCH in four steps: validate the patch (no store
// needed), then in one transaction resolve the object it applies to, apply
// the patch to a copy, and write it with its audit record — unless the merge
// changes nothing.
func (s *Service) merge(ctx context.Context, p Principal, name string, pt resources.Patch, pc precondition) (store.Object, bool, error) {
	ips, err := validatePatch(name, pt)
	if err != nil {
		return store.Object{}, false, err
	}
	var result store.Object
	var created bool
	err = s.store.Update(store.WithObjects(ctx, store.ObjectKey{OrgID: p.org.ID, Name: name}), func(ctx context.Context, tx store.Tx) error {
		t, err := resolveMerge(ctx, tx, p, name, pt, pc)
		if err != nil {
			return err
		}
		ch, err := s.applyPatch(ctx, tx, p, name, pt, ips, t)
		if err != nil {
			return err
		}
		if ch.empty(t, pt) {
			// An empty merge (nothing to set, nothing there to remove, the
			// same labels) writes nothing: no new version, not pending, no
			// audit record, the owner (apply or not) unchanged — but the
			// same credentials given to a pull secret whose check failed
			// have it checked again.
			result = t.cur
			if pt.Credentials != nil {
				return recheck(ctx, tx, &result)
			}
			return nil
		}
		if err := writeMerge(ctx, tx, p, t, &ch); err != nil {
			return err
		}
		result, created = ch.obj, !t.exists
		return nil
	})
	if err == nil {
		s.wake(result.Region)
	}
	return result, created, err
}

// validatePatch checks everything of a patch that needs no store.
func validatePatch(name string, pt resources.Patch) (ipsInput, error) {
	if err := validateObjectName(name); err != nil {
		return ipsInput{}, err
	}
	if pt.Kind != "" {
		if err := resources.ValidateKind(pt.Kind); err != nil {
			return ipsInput{}, errInvalid("kind: %v", err)
		}
	}
	if pt.Region != "" {
		if err := resources.ValidateRegion(pt.Region); err != nil {
			return ipsInput{}, errInvalid("region: %v", err)
		}
	}
	if err := resources.ValidateLabels(pt.Labels); err != nil {
		return ipsInput{}, errInvalid("labels: %v", err)
	}
	if err := validateSetValues(pt.Set); err != nil {
		return ipsInput{}, err
	}
	for _, k := range pt.Remove {
		if err := resources.ValidateKey(k); err != nil {
			return ipsInput{}, errInvalid("remove: %v", err)
		}
		if _, ok := pt.Set[k]; ok {
			return ipsInput{}, errInvalid("key %s is both set and removed", k)
		}
	}
	return parseIPS(pt.Host, pt.Credentials, pt.Encode)
}

// hasIPSFields reports whether a patch carries an image pull secret's
// fields.
func hasIPSFields(pt resources.Patch) bool {
	return pt.Host != "" || pt.Credentials != nil || pt.Encode != nil
}

// mergeTarget is the object a merge applies to: the current one, or a new
// one of the patch's kind in its region.
type mergeTarget struct {
	cur    store.Object
	exists bool
	kind   string
	obj    store.Object // the object to patch: cur, or a new one
	now    time.Time
}

// resolveMerge reads the object name and checks the patch against it: its
// kind, the precondition, its region.
func resolveMerge(ctx context.Context, tx store.Tx, p Principal, name string, pt resources.Patch, pc precondition) (mergeTarget, error) {
	var t mergeTarget
	cur, err := tx.Object(ctx, p.org.ID, name)
	t.cur, t.exists = cur, err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return t, err
	}
	t.kind = pt.Kind
	switch {
	case t.kind != "":
	case t.exists:
		t.kind = cur.Kind
	case hasIPSFields(pt):
		t.kind = resources.KindImagePullSecret
	default:
		t.kind = resources.KindSecretSet
	}
	if t.exists && cur.Kind != t.kind {
		return t, kindConflict(cur, t.kind)
	}
	if err := pc.check(name, t.exists, cur); err != nil {
		return t, err
	}
	t.now = time.Now().UTC()
	t.obj = cur
	if t.exists {
		if pt.Region != "" && pt.Region != cur.Region {
			return t, regionConflict(cur, pt.Region)
		}
	} else {
		region := pt.Region
		if region == "" {
			region = p.org.DefaultRegion
		}
		t.obj = store.Object{OrgID: p.org.ID, Name: name, Kind: t.kind, Region: region, CreatedAt: t.now}
	}
	return t, nil
}

// mergeChange is a patch applied: the object after it, the values to put
// (encrypted: only those whose value changes), the keys removed, and the
// keys the audit record names.
type mergeChange struct {
	obj              store.Object
	put              []store.Value
	removed, touched []string
}

// empty reports whether the change writes nothing.
func (ch mergeChange) empty(t mergeTarget, pt resources.Patch) bool {
	return t.exists && len(ch.put) == 0 && len(ch.removed) == 0 && ch.obj.Host == t.cur.Host &&
		(pt.Labels == nil || maps.Equal(pt.Labels, t.cur.Labels))
}

// applyPatch applies pt to a copy of the target's object. A value equal
// to the stored one is not written: a SecretSet's values are compared by
// their keyed digests (encryption.Sealer.Digest), kept with the key list,
// so the comparison reads nothing more; a value stored without a digest,
// and an image pull secret's credentials, are decrypted and compared in
// this transaction.
func (s *Service) applyPatch(ctx context.Context, tx store.Tx, p Principal, name string, pt resources.Patch, ips ipsInput, t mergeTarget) (mergeChange, error) {
	ch := mergeChange{obj: t.obj}
	ch.obj.Managed, ch.obj.ApplySet = false, "" // an imperative write
	if pt.Labels != nil {
		ch.obj.Labels = pt.Labels
	}
	var stored map[string][]byte // the current values, decrypted when first needed
	storedValue := func(key string) ([]byte, error) {
		if stored == nil {
			vals, err := s.decryptAll(ctx, tx, p.org.Name, t.cur)
			if err != nil {
				return nil, err
			}
			stored = vals
		}
		return stored[key], nil
	}
	switch t.kind {
	case resources.KindSecretSet:
		if hasIPSFields(pt) {
			return ch, errInvalid("host, credentials and encode apply to an ImagePullSecret; %s is a SecretSet", name)
		}
		keys := maps.Clone(ch.obj.Keys)
		if keys == nil {
			keys = map[string]int{}
		}
		digests := maps.Clone(ch.obj.Digests)
		if digests == nil {
			digests = map[string][]byte{}
		}
		for _, k := range pt.Remove {
			if _, ok := keys[k]; ok {
				delete(keys, k)
				delete(digests, k)
				ch.removed = append(ch.removed, k)
			}
		}
		var changed []string
		for _, k := range slices.Sorted(maps.Keys(pt.Set)) {
			v := []byte(pt.Set[k])
			d := s.sealer.Digest(p.org.Name, ch.obj.Region, name, k, v)
			if size, had := keys[k]; had && size == len(v) {
				same := false
				if old, ok := digests[k]; ok {
					same = hmac.Equal(old, d)
				} else {
					old, err := storedValue(k)
					if err != nil {
						return ch, err
					}
					same = equalSecret(old, v)
				}
				digests[k] = d
				if same {
					continue
				}
			}
			keys[k], digests[k] = len(v), d
			ct, err := s.sealer.Seal(p.org.Name, ch.obj.Region, name, k, v)
			if err != nil {
				return ch, err
			}
			ch.put = append(ch.put, store.Value{Key: k, Size: len(v), Ciphertext: ct})
			changed = append(changed, k)
		}
		if err := checkTotals(keys); err != nil {
			return ch, err
		}
		ch.obj.Keys = keys
		ch.obj.Digests = nil
		if len(digests) > 0 {
			ch.obj.Digests = digests
		}
		ch.touched = append(changed, ch.removed...)
	case resources.KindImagePullSecret:
		if len(pt.Set) > 0 || len(pt.Remove) > 0 {
			return ch, errInvalid("set and remove apply to a SecretSet; %s is an ImagePullSecret (send host and credentials)", name)
		}
		if !t.exists && (ips.host == "" || ips.b64 == "") {
			return ch, errInvalid("host and credentials are required to create image pull secret %s", name)
		}
		if ips.host != "" {
			ch.obj.Host = ips.host
		}
		if ips.b64 != "" {
			if t.exists {
				old, err := storedValue(store.CredentialsKey)
				if err != nil {
					return ch, err
				}
				if equalSecret(old, []byte(ips.b64)) {
					ch.obj.Keys = nil
					return ch, nil
				}
			}
			ch.obj.Username = ips.username
			ct, err := s.sealer.Seal(p.org.Name, ch.obj.Region, name, store.CredentialsKey, []byte(ips.b64))
			if err != nil {
				return ch, err
			}
			ch.put = append(ch.put, store.Value{Key: store.CredentialsKey, Size: len(ips.b64), Ciphertext: ct})
			ch.touched = append(ch.touched, store.CredentialsKey)
		}
		ch.obj.Keys = nil
	}
	return ch, nil
}

// writeMerge writes the change (a new version, pending) and its audit
// record; ch.obj gets the written version.
func writeMerge(ctx context.Context, tx store.Tx, p Principal, t mergeTarget, ch *mergeChange) error {
	source := SourceSet
	switch {
	case t.kind == resources.KindImagePullSecret:
		source = SourceImagePullSecret
	case t.exists && len(ch.put) == 0 && len(ch.removed) > 0:
		source = SourceUnset
	}
	if err := storeWrite(ctx, tx, &ch.obj, ch.removed, ch.put, t.now, history{p: p, source: source, before: valueSizes(t.cur), hostChanged: t.exists && ch.obj.Host != t.cur.Host}); err != nil {
		return err
	}
	action := "merge"
	if !t.exists {
		action = "create"
	}
	return tx.Audit(ctx, store.AuditRecord{At: t.now, Org: p.org.Name, Actor: p.actor(), Action: action, Kind: t.kind,
		Name: ch.obj.Name, Region: ch.obj.Region, Keys: ch.touched})
}

// desired is a validated replace input.
type desired struct {
	kind   string
	region string
	rv     string // metadata.resourceVersion: a precondition like If-Match
	labels map[string]string
	data   map[string]string // SecretSet values
	ips    ipsInput
}

func (s *Service) parseReplace(p Principal, name string, in resources.Object) (desired, error) {
	var d desired
	meta := in.Meta()
	if meta == nil {
		return d, errInvalid("kind: want %s or %s", resources.KindSecretSet, resources.KindImagePullSecret)
	}
	d.kind = in.Kind()
	apiVersion := ""
	if in.SecretSet != nil {
		apiVersion = in.SecretSet.APIVersion
	} else {
		apiVersion = in.ImagePullSecret.APIVersion
	}
	if apiVersion != "" && apiVersion != resources.APIVersion {
		return d, errInvalid("apiVersion %q: want %s", apiVersion, resources.APIVersion)
	}
	if meta.Name != "" && meta.Name != name {
		return d, errInvalid("metadata.name %q does not match the name %q in the URL", meta.Name, name)
	}
	if meta.Organization != "" && meta.Organization != p.org.Name {
		return d, errInvalid("metadata.organization %q does not match the organization %q in the URL", meta.Organization, p.org.Name)
	}
	if meta.Region != "" {
		if err := resources.ValidateRegion(meta.Region); err != nil {
			return d, errInvalid("metadata.region: %v", err)
		}
	}
	if err := resources.ValidateLabels(meta.Labels); err != nil {
		return d, errInvalid("metadata.labels: %v", err)
	}
	d.region, d.labels, d.rv = meta.Region, meta.Labels, meta.ResourceVersion
	switch {
	case in.SecretSet != nil:
		d.data = make(map[string]string, len(in.SecretSet.Spec.Data))
		for k, src := range in.SecretSet.Spec.Data {
			if !src.IsLiteral() {
				if err := resources.ValidateKey(k); err != nil {
					return d, errInvalid("spec.data: %v", err)
				}
				return d, errInvalid("spec.data.%s: fromEnv and fromFile must be resolved by the client; send the value (or a sealed value)", k)
			}
			d.data[k] = *src.Literal
		}
		if err := validateSetValues(d.data); err != nil {
			return d, err
		}
		sizes := make(map[string]int, len(d.data))
		for k, v := range d.data {
			sizes[k] = len(v)
		}
		if err := checkTotals(sizes); err != nil {
			return d, err
		}
	case in.ImagePullSecret != nil:
		sp := in.ImagePullSecret.Spec
		if sp.Host == "" || sp.Credentials == nil {
			return d, errInvalid("spec.host and spec.credentials are required")
		}
		if sp.Credentials.Sealed != "" {
			return d, errInvalid("spec.credentials: sealed values are for secret set data; give the credentials with fromEnv or fromFile")
		}
		if !sp.Credentials.IsLiteral() {
			return d, errInvalid("spec.credentials: fromEnv and fromFile must be resolved by the client; send the value")
		}
		ips, err := parseIPS(sp.Host, sp.Credentials.Literal, sp.Encode)
		if err != nil {
			return d, err
		}
		d.ips = ips
	}
	return d, nil
}

func labelsEqual(a, b map[string]string) bool { return maps.Equal(a, b) }

func equalSecret(a, b []byte) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare(a, b) == 1
}

// plan computes what replacing cur (with decrypted values) by d would do.
func plan(org string, exists bool, cur store.Object, curVals map[string][]byte, d desired, name, region string) resources.Plan {
	pl := resources.Plan{
		TypeMeta:   resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindPlan},
		Metadata:   resources.PlanMeta{Name: name, Organization: org, Region: region},
		ObjectKind: d.kind, Keys: []resources.KeyChange{}, Fields: []resources.FieldChange{},
	}
	changed := !exists
	if exists {
		pl.Metadata.ResourceVersion = strconv.FormatInt(cur.Version, 10)
	}
	field := func(f string, had, has, same bool) {
		c := resources.ChangeOf(had, has, same)
		if c != resources.ChangeUnchanged {
			changed = true
		}
		pl.Fields = append(pl.Fields, resources.FieldChange{Field: f, Change: c})
	}
	field("metadata.labels", exists && len(cur.Labels) > 0, len(d.labels) > 0, labelsEqual(cur.Labels, d.labels))
	switch d.kind {
	case resources.KindSecretSet:
		all := map[string]bool{}
		for k := range d.data {
			all[k] = true
		}
		if exists {
			for k := range cur.Keys {
				all[k] = true
			}
		}
		for _, k := range slices.Sorted(maps.Keys(all)) {
			nv, has := d.data[k]
			ov, had := curVals[k]
			c := resources.ChangeUnchanged
			switch {
			case has && !had:
				c = resources.ChangeAdded
			case had && !has:
				c = resources.ChangeRemoved
			case !equalSecret(ov, []byte(nv)):
				c = resources.ChangeChanged
			}
			if c != resources.ChangeUnchanged {
				changed = true
			}
			pl.Keys = append(pl.Keys, resources.KeyChange{Key: k, Change: c})
		}
	case resources.KindImagePullSecret:
		field("spec.host", exists, true, cur.Host == d.ips.host)
		field("spec.username", exists, true, cur.Username == d.ips.username)
		field("spec.credentials", exists, true, equalSecret(curVals[store.CredentialsKey], []byte(d.ips.b64)))
	}
	switch {
	case !exists:
		pl.Action = resources.ActionCreate
	case changed:
		pl.Action = resources.ActionUpdate
	default:
		pl.Action = resources.ActionUnchanged
	}
	return pl
}

// checkReplace applies the kind, region and If-Match rules; it returns the
// region the object will have.
func checkReplace(p Principal, name string, exists bool, cur store.Object, d desired, ifMatch string) (string, error) {
	if exists && cur.Kind != d.kind {
		return "", kindConflict(cur, d.kind)
	}
	region := d.region
	if exists {
		if region != "" && region != cur.Region {
			return "", regionConflict(cur, region)
		}
		region = cur.Region
	} else if region == "" {
		region = p.org.DefaultRegion
	}
	if err := (precondition{ifMatch: ifMatch}).check(name, exists, cur); err != nil {
		return "", err
	}
	if d.rv != "" {
		// As in Kubernetes, the body's resourceVersion is a precondition.
		if err := (precondition{ifMatch: strconv.Quote(d.rv), field: "metadata.resourceVersion"}).check(name, exists, cur); err != nil {
			return "", err
		}
	}
	return region, nil
}

type valueReader interface {
	Values(ctx context.Context, objectID int64) ([]store.Value, error)
}

func (s *Service) decryptAll(ctx context.Context, r valueReader, org string, o store.Object) (map[string][]byte, error) {
	vals, err := r.Values(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(vals))
	for _, v := range vals {
		pt, err := s.sealer.Open(org, o.Region, o.Name, v.Key, v.Ciphertext)
		if err != nil {
			return nil, resources.Errorf(resources.CodeInternal, "%s: %v", describe(o), err)
		}
		out[v.Key] = pt
	}
	return out, nil
}

// replace implements PUT. With dryRun it only returns the plan.
func (s *Service) replace(ctx context.Context, p Principal, name string, in resources.Object, ifMatch string, dryRun bool) (store.Object, resources.Plan, bool, error) {
	var zero store.Object
	var pl resources.Plan
	if err := validateObjectName(name); err != nil {
		return zero, pl, false, err
	}
	if in.SecretSet != nil && (in.SecretSet.Metadata.Name == "" || in.SecretSet.Metadata.Name == name) {
		meta := in.SecretSet.Metadata
		meta.Name = name
		named := resources.Object{SecretSet: &resources.SecretSet{Metadata: meta, Spec: in.SecretSet.Spec}}
		errs, err := s.unseal(ctx, p.org, []*resources.Object{&named})
		if err != nil {
			return zero, pl, false, err
		}
		if errs[0] != nil {
			return zero, pl, false, errs[0]
		}
	}
	d, err := s.parseReplace(p, name, in)
	if err != nil {
		return zero, pl, false, err
	}
	if dryRun {
		cur, err := s.store.Object(ctx, p.org.ID, name)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return zero, pl, false, err
		}
		region, err := checkReplace(p, name, exists, cur, d, ifMatch)
		if err != nil {
			return zero, pl, false, err
		}
		var vals map[string][]byte
		if exists {
			if vals, err = s.decryptAll(ctx, s.store, p.org.Name, cur); err != nil {
				return zero, pl, false, err
			}
		}
		return cur, plan(p.org.Name, exists, cur, vals, d, name, region), false, nil
	}
	var result store.Object
	var created, wrote bool
	err = s.store.Update(store.WithObjects(ctx, store.ObjectKey{OrgID: p.org.ID, Name: name}), func(ctx context.Context, tx store.Tx) error {
		cur, err := tx.Object(ctx, p.org.ID, name)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		region, err := checkReplace(p, name, exists, cur, d, ifMatch)
		if err != nil {
			return err
		}
		var vals map[string][]byte
		if exists {
			if vals, err = s.decryptAll(ctx, tx, p.org.Name, cur); err != nil {
				return err
			}
		}
		pl = plan(p.org.Name, exists, cur, vals, d, name, region)
		if pl.Action == resources.ActionUnchanged {
			result = cur
			return recheck(ctx, tx, &result)
		}
		now := time.Now().UTC()
		obj := replaced(p.org.ID, name, region, exists, cur, d, now)
		obj.Managed, obj.ApplySet = false, "" // an imperative write
		put, removed, touched, err := s.replaceValues(p.org.Name, &obj, d, pl)
		if err != nil {
			return err
		}
		if err := storeWrite(ctx, tx, &obj, removed, put, now, history{p: p, source: SourceReplace, before: valueSizes(cur), hostChanged: exists && obj.Host != cur.Host}); err != nil {
			return err
		}
		if err := tx.Audit(ctx, store.AuditRecord{At: now, Org: p.org.Name, Actor: p.actor(), Action: "replace", Kind: d.kind, Name: name, Region: region, Keys: touched}); err != nil {
			return err
		}
		result, created, wrote = obj, !exists, true
		return nil
	})
	if err == nil && (wrote || result.State == resources.StatePending) {
		s.wake(result.Region)
	}
	return result, pl, created, err
}

// replaced returns the row of an object after replacing cur (if exists) by
// d: labels, key names and sizes, host and username. The
// version, generation, state and ownership are left as they were.
func replaced(orgID int64, name, region string, exists bool, cur store.Object, d desired, now time.Time) store.Object {
	obj := cur
	if !exists {
		obj = store.Object{OrgID: orgID, Name: name, Kind: d.kind, Region: region, CreatedAt: now}
	}
	obj.Labels = d.labels
	switch d.kind {
	case resources.KindSecretSet:
		keys := make(map[string]int, len(d.data))
		for k, v := range d.data {
			keys[k] = len(v)
		}
		obj.Keys = keys
	case resources.KindImagePullSecret:
		obj.Host, obj.Username, obj.Keys = d.ips.host, d.ips.username, nil
	}
	return obj
}

// replaceValues seals the values a replace planned in pl writes (those
// that change), names the keys it removes and the keys it touches (for the
// audit record), and gives obj, the object after the replace, the digests
// of its values.
func (s *Service) replaceValues(org string, obj *store.Object, d desired, pl resources.Plan) (put []store.Value, removed, touched []string, err error) {
	switch d.kind {
	case resources.KindSecretSet:
		obj.Digests = nil
		if len(d.data) > 0 {
			obj.Digests = make(map[string][]byte, len(d.data))
		}
		for k, v := range d.data {
			obj.Digests[k] = s.sealer.Digest(org, obj.Region, obj.Name, k, []byte(v))
		}
		for _, kc := range pl.Keys {
			switch kc.Change {
			case resources.ChangeRemoved:
				removed = append(removed, kc.Key)
			case resources.ChangeAdded, resources.ChangeChanged:
				v := d.data[kc.Key]
				ct, err := s.sealer.Seal(org, obj.Region, obj.Name, kc.Key, []byte(v))
				if err != nil {
					return nil, nil, nil, err
				}
				put = append(put, store.Value{Key: kc.Key, Size: len(v), Ciphertext: ct})
			}
			if kc.Change != resources.ChangeUnchanged {
				touched = append(touched, kc.Key)
			}
		}
	case resources.KindImagePullSecret:
		if i := slices.IndexFunc(pl.Fields, func(f resources.FieldChange) bool { return f.Field == "spec.credentials" }); i >= 0 && pl.Fields[i].Change == resources.ChangeUnchanged {
			return nil, nil, nil, nil
		}
		ct, err := s.sealer.Seal(org, obj.Region, obj.Name, store.CredentialsKey, []byte(d.ips.b64))
		if err != nil {
			return nil, nil, nil, err
		}
		put = append(put, store.Value{Key: store.CredentialsKey, Size: len(d.ips.b64), Ciphertext: ct})
		touched = append(touched, store.CredentialsKey)
	}
	return put, removed, touched, nil
}

// valueSizes names the values an object holds (what a version lists as
// added, changed or removed): a SecretSet's keys, an image pull secret's
// credentials; none for an object that does not exist yet.
func valueSizes(o store.Object) map[string]int {
	if o.ID != 0 && o.Kind == resources.KindImagePullSecret {
		return map[string]int{store.CredentialsKey: 0}
	}
	return o.Keys
}

// deleteObject implements DELETE of an object.
func (s *Service) deleteObject(ctx context.Context, p Principal, name, ifMatch string) (store.Object, error) {
	if err := s.pinnedBy(ctx, p, name, nil); err != nil {
		return store.Object{}, err
	}
	var result store.Object
	err := s.store.Update(store.WithObjects(ctx, store.ObjectKey{OrgID: p.org.ID, Name: name}), func(ctx context.Context, tx store.Tx) error {
		cur, err := loadObject(ctx, tx, p.org.ID, name)
		if err != nil {
			return err
		}
		if err := (precondition{ifMatch: ifMatch}).check(name, true, cur); err != nil {
			return err
		}
		if err := tx.DeleteObject(ctx, cur.ID); err != nil {
			return err
		}
		result = cur
		return tx.Audit(ctx, store.AuditRecord{Org: p.org.Name, Actor: p.actor(), Action: "delete", Kind: cur.Kind, Name: name, Region: cur.Region, Keys: valueKeys(cur)})
	})
	return result, err
}

// deleteKey implements DELETE of one key of a secret set.
func (s *Service) deleteKey(ctx context.Context, p Principal, name, key string) (store.Object, error) {
	if err := resources.ValidateKey(key); err != nil {
		return store.Object{}, errInvalid("%v", err)
	}
	var result store.Object
	err := s.store.Update(store.WithObjects(ctx, store.ObjectKey{OrgID: p.org.ID, Name: name}), func(ctx context.Context, tx store.Tx) error {
		cur, err := loadObject(ctx, tx, p.org.ID, name)
		if err != nil {
			return err
		}
		if cur.Kind != resources.KindSecretSet {
			return errInvalid("%s has no keys (only a SecretSet does)", describe(cur))
		}
		if _, ok := cur.Keys[key]; !ok {
			return errNotFound("key %s not found in %s", key, describe(cur))
		}
		obj := cur
		obj.Keys = maps.Clone(cur.Keys)
		delete(obj.Keys, key)
		if obj.Digests != nil {
			obj.Digests = maps.Clone(cur.Digests)
			delete(obj.Digests, key)
		}
		obj.Managed, obj.ApplySet = false, "" // an imperative write
		if obj.Version, err = tx.NextVersion(ctx); err != nil {
			return err
		}
		obj.Generation++
		obj.State, obj.Message, obj.UpdatedAt = resources.StatePending, "", time.Now().UTC()
		if _, err := tx.PutObject(ctx, obj); err != nil {
			return err
		}
		if err := tx.DeleteValues(ctx, obj.ID, []string{key}); err != nil {
			return err
		}
		if err := putVersion(ctx, tx, obj, history{p: p, source: SourceUnset, before: valueSizes(cur)}, nil, []string{key}, obj.UpdatedAt); err != nil {
			return err
		}
		result = obj
		return tx.Audit(ctx, store.AuditRecord{Org: p.org.Name, Actor: p.actor(), Action: "delete-key", Kind: cur.Kind, Name: name, Region: cur.Region, Keys: []string{key}})
	})
	if err == nil {
		s.wake(result.Region)
	}
	return result, err
}

// storeWrite gives obj a new version and generation, marks it pending for
// the provisioner, and writes it with its removed and new values.
func storeWrite(ctx context.Context, tx store.Tx, obj *store.Object, removed []string, put []store.Value, now time.Time, h history) error {
	var err error
	if obj.Version, err = tx.NextVersion(ctx); err != nil {
		return err
	}
	obj.Generation++
	obj.State, obj.Message, obj.UpdatedAt = resources.StatePending, "", now
	if obj.ID, err = tx.PutObject(ctx, *obj); err != nil {
		return err
	}
	if err := tx.DeleteValues(ctx, obj.ID, removed); err != nil {
		return err
	}
	if err := tx.PutValues(ctx, obj.ID, put); err != nil {
		return err
	}
	return putVersion(ctx, tx, *obj, h, put, removed, now)
}

// loadObject reads an object for a write; a missing one is the API's 404.
func loadObject(ctx context.Context, tx store.Tx, orgID int64, name string) (store.Object, error) {
	cur, err := tx.Object(ctx, orgID, name)
	if errors.Is(err, store.ErrNotFound) {
		return cur, errObjectNotFound(name)
	}
	return cur, err
}

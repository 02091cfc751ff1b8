package agents

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// runtimeInput is what the engine gets to run a deployment: the pinned
// secret set version's values as environment and the pull secret's
// credentials, decrypted here only; masker hides those values.
type runtimeInput struct {
	env    map[string]string
	creds  *runtime.Credentials
	masker *masker
}

// DeploymentError is why a deployment's inputs cannot be had (its secret
// set or pull secret gone, the set's version no longer kept): it fails the
// deployment. Its message never holds a value.
type DeploymentError struct{ Message string }

func (e *DeploymentError) Error() string { return e.Message }

// load reads deployment d's inputs: the values of the version of the
// secret set it pinned (from the set's history; the set's current values
// when that version is the current one and has no history record) and the
// current credentials of its image pull secret.
func (r *Reconciler) load(ctx context.Context, a store.Agent, d store.Deployment) (*runtimeInput, error) {
	in := &runtimeInput{env: map[string]string{}, masker: &masker{}}
	err := r.st.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		if d.SecretSetName != "" {
			o, err := tx.Object(ctx, a.OrgID, d.SecretSetName)
			if de, err := pinnedSet(o, err, d); de != nil {
				return de
			} else if err != nil {
				return err
			}
			var vals []store.Value
			v, err := tx.Version(ctx, o.ID, d.SecretSetVersion)
			switch {
			case err == nil:
				vals = v.Values
			case errors.Is(err, store.ErrNotFound) && o.Generation == d.SecretSetVersion:
				if vals, err = tx.Values(ctx, o.ID); err != nil {
					return err
				}
			case errors.Is(err, store.ErrNotFound):
				return versionPurged(d)
			default:
				return err
			}
			for _, v := range vals {
				pt, err := r.opts.Sealer.Open(a.OrgName, o.Region, o.Name, v.Key, v.Ciphertext)
				if err != nil {
					return fmt.Errorf("secret set %s, key %s: %w", o.Name, v.Key, err)
				}
				in.env[v.Key] = string(pt)
				in.masker.add(string(pt))
			}
		}
		if d.ImagePullSecret != "" {
			o, err := tx.Object(ctx, a.OrgID, d.ImagePullSecret)
			if errors.Is(err, store.ErrNotFound) || err == nil && o.Kind != resources.KindImagePullSecret {
				return pullSecretDeleted(d)
			}
			if err != nil {
				return err
			}
			vals, err := tx.Values(ctx, o.ID)
			if err != nil {
				return err
			}
			for _, v := range vals {
				if v.Key != store.CredentialsKey {
					continue
				}
				pt, err := r.opts.Sealer.Open(a.OrgName, o.Region, o.Name, v.Key, v.Ciphertext)
				if err != nil {
					return fmt.Errorf("image pull secret %s: %w", o.Name, err)
				}
				userPass, err := base64.StdEncoding.DecodeString(string(pt))
				user, pass, ok := strings.Cut(string(userPass), ":")
				if err != nil || !ok {
					return &DeploymentError{fmt.Sprintf("image pull secret %s holds no user:password", o.Name)}
				}
				ref, err := resources.ParseImageRef(d.ImageDigest)
				if err != nil {
					return &DeploymentError{fmt.Sprintf("image %s: %v", d.ImageDigest, err)}
				}
				in.creds = &runtime.Credentials{Registry: ref.Registry, Username: user, Password: pass}
				in.masker.add(pass)
				in.masker.add(string(pt))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if r.opts.AgentEnv != nil {
		// The platform's own variables win over a value of the same name.
		for k, v := range r.opts.AgentEnv(a.OrgName, a.Name) {
			in.env[k] = v
			in.masker.add(v)
		}
	}
	return in, nil
}

// MinMaskedLen is the shortest value masked: a value of one to three
// bytes ("1", "x", "yes") is no secret anyone could keep (it is guessed in
// a few thousand tries), and masking it would mask every occurrence of the
// letter or word in every line.
const MinMaskedLen = 4

// masker replaces every secret value in a text with resources.MaskedValue.
type masker struct {
	values []string // longest first
}

func (m *masker) add(v string) {
	if len(v) < MinMaskedLen {
		return
	}
	m.values = append(m.values, v)
	// A value of several lines is also masked line by line: log lines
	// come one at a time.
	if strings.ContainsAny(v, "\r\n") {
		for _, l := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if len(strings.TrimSpace(l)) >= MinMaskedLen {
				m.values = append(m.values, l)
			}
		}
	}
	sort.SliceStable(m.values, func(i, j int) bool { return len(m.values[i]) > len(m.values[j]) })
}

func (m *masker) merge(o *masker) {
	if o == nil {
		return
	}
	for _, v := range o.values {
		m.add(v)
	}
}

// maskCut masks, at the end of a line cut short (s already masked), the
// start of a value the cut went through.
func (m *masker) maskCut(s string) string {
	for _, v := range m.values {
		for k := len(v) - 1; k > 0; k-- {
			if strings.HasSuffix(s, v[:k]) {
				return s[:len(s)-k] + resources.MaskedValue
			}
		}
	}
	return s
}

// mask returns s with every value masked (nil masks nothing); a line cut
// short (runtime.LogLine.CutMarker) has the start of a value the cut went
// through masked too.
func (m *masker) mask(s string) string {
	if m == nil {
		return s
	}
	s, marker := runtime.SplitCut(s)
	for _, v := range m.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, resources.MaskedValue)
		}
	}
	if marker != "" {
		s = m.maskCut(s) + marker
	}
	return s
}

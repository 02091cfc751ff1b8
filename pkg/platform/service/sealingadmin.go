package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"time"

	"filippo.io/age"
	"filippo.io/age/armor"

	"github.com/botkit-dev/botkit/pkg/platform/encryption"
	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/sealed"
)

// SealingKeys administers organizations' sealing keys: rotation, retirement,
// backup and restore. Unlike Admin it needs the master key (the private
// parts are encrypted under it).
type SealingKeys struct {
	store  store.Store
	sealer *encryption.Sealer
}

// NewSealingKeys returns the sealing key administration over st, whose
// values are encrypted with sealer.
func NewSealingKeys(st store.Store, sealer *encryption.Sealer) *SealingKeys {
	return &SealingKeys{store: st, sealer: sealer}
}

// KeyInfo is one sealing key as the administration reports it.
type KeyInfo struct {
	ID        string     `json:"keyId"`
	Recipient string     `json:"recipient"`
	CreatedAt time.Time  `json:"createdAt"`
	RetiredAt *time.Time `json:"retiredAt,omitempty"`
	Current   bool       `json:"current"`
}

func (k *SealingKeys) org(ctx context.Context, name string) (store.Org, error) {
	o, err := k.store.Org(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return o, errNotFound("organization %q not found", name)
	}
	return o, err
}

func infos(keys []store.SealingKey) []KeyInfo {
	cur, _ := currentKey(keys)
	out := make([]KeyInfo, 0, len(keys))
	for _, k := range keys {
		out = append(out, KeyInfo{ID: k.ID, Recipient: k.Recipient, CreatedAt: k.CreatedAt, RetiredAt: k.RetiredAt, Current: k.ID == cur.ID})
	}
	return out
}

// List returns the organization's keys, oldest first.
func (k *SealingKeys) List(ctx context.Context, orgName string) ([]KeyInfo, error) {
	org, err := k.org(ctx, orgName)
	if err != nil {
		return nil, err
	}
	keys, err := sealingKeys(ctx, k.store, k.sealer, org)
	return infos(keys), err
}

// Rotate adds a new key pair, which becomes the current one: values are
// sealed to it from now on; the older keys keep decrypting until retired.
func (k *SealingKeys) Rotate(ctx context.Context, orgName string) (KeyInfo, error) {
	org, err := k.org(ctx, orgName)
	if err != nil {
		return KeyInfo{}, err
	}
	if _, err := sealingKeys(ctx, k.store, k.sealer, org); err != nil {
		return KeyInfo{}, err
	}
	var added store.SealingKey
	err = k.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		keys, err := tx.SealingKeys(ctx, org.ID)
		if err != nil {
			return err
		}
		if added, err = newSealingKey(k.sealer, org, keys[len(keys)-1].Seq+1); err != nil {
			return err
		}
		return tx.PutSealingKey(ctx, added)
	})
	if errors.Is(err, store.ErrExists) {
		return KeyInfo{}, errConflict("another rotation of organization %s ran at the same time; list its keys and try again", orgName)
	}
	return KeyInfo{ID: added.ID, Recipient: added.Recipient, CreatedAt: added.CreatedAt, Current: true}, err
}

// Retire retires key id of the organization: values sealed to it stop
// applying. The current key can be retired only when a newer one exists
// (rotate first), so that the organization always has a key to seal to.
func (k *SealingKeys) Retire(ctx context.Context, orgName, id string) error {
	org, err := k.org(ctx, orgName)
	if err != nil {
		return err
	}
	return k.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		keys, err := tx.SealingKeys(ctx, org.ID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(keys, func(sk store.SealingKey) bool { return sk.ID == id })
		if i < 0 {
			return errNotFound("organization %s has no sealing key %s (its keys: %s)", orgName, id, describeKeys(keys))
		}
		if keys[i].RetiredAt != nil {
			return nil
		}
		if cur, _ := currentKey(keys); cur.ID == id {
			return errConflict("key %s is the current sealing key of organization %s: rotate first (botkit-platform orgs rotate-sealing-key %s), reseal, then retire it", id, orgName, orgName)
		}
		return tx.RetireSealingKey(ctx, org.ID, id, time.Now().UTC())
	})
}

// keyBackup is the plaintext of an export: the organization's key pairs,
// private parts in the clear (the whole is encrypted to the operator).
type keyBackup struct {
	Format       string      `json:"format"`
	Organization string      `json:"organization"`
	Keys         []backupKey `json:"keys"`
}

type backupKey struct {
	KeyID     string     `json:"keyId"`
	Recipient string     `json:"recipient"`
	Identity  string     `json:"identity"`
	CreatedAt time.Time  `json:"createdAt"`
	RetiredAt *time.Time `json:"retiredAt,omitempty"`
}

const backupFormat = "botkit.dev/v1/sealing-keys"

// Export writes the organization's key pairs, oldest first, encrypted to
// the operator's age recipient (ASCII armored): only the holder of its
// identity can read them back, with Import.
func (k *SealingKeys) Export(ctx context.Context, orgName, to string, w io.Writer) (int, error) {
	rcp, err := age.ParseX25519Recipient(to)
	if err != nil {
		return 0, errInvalid("--to-recipient: not an age X25519 recipient (age1...): %v", err)
	}
	org, err := k.org(ctx, orgName)
	if err != nil {
		return 0, err
	}
	keys, err := sealingKeys(ctx, k.store, k.sealer, org)
	if err != nil {
		return 0, err
	}
	b := keyBackup{Format: backupFormat, Organization: org.Name}
	for _, sk := range keys {
		id, err := openKeyPair(k.sealer, org.Name, sk)
		if err != nil {
			return 0, err
		}
		b.Keys = append(b.Keys, backupKey{KeyID: sk.ID, Recipient: sk.Recipient, Identity: id.Secret(), CreatedAt: sk.CreatedAt, RetiredAt: sk.RetiredAt})
	}
	pt, err := json.Marshal(b)
	if err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	aw := armor.NewWriter(&buf)
	ew, err := age.Encrypt(aw, rcp)
	if err != nil {
		return 0, err
	}
	if _, err := ew.Write(pt); err != nil {
		return 0, err
	}
	if err := ew.Close(); err != nil {
		return 0, err
	}
	if err := aw.Close(); err != nil {
		return 0, err
	}
	_, err = w.Write(buf.Bytes())
	return len(keys), err
}

// ImportResult says what Import did.
type ImportResult struct {
	Added, Present int
	Current        string // the current key after the import
}

// Import restores key pairs that Export wrote for orgName, decrypting the
// backup with the operator's identities (an age identity file's text). Keys
// the organization holds already are skipped; the others are added after
// its own keys in the backup's order, so the exported platform's current
// key is current here too.
func (k *SealingKeys) Import(ctx context.Context, orgName string, backup []byte, identities []byte) (ImportResult, error) {
	var res ImportResult
	ids, err := age.ParseIdentities(bytes.NewReader(identities))
	if err != nil {
		return res, errInvalid("--identity: not an age identity file: %v", err)
	}
	var src io.Reader = bytes.NewReader(backup)
	if bytes.HasPrefix(bytes.TrimSpace(backup), []byte(armor.Header)) {
		src = armor.NewReader(bytes.NewReader(bytes.TrimSpace(backup)))
	}
	r, err := age.Decrypt(src, ids...)
	if err != nil {
		return res, errInvalid("the backup does not decrypt with the identity given (%v)", err)
	}
	pt, err := io.ReadAll(io.LimitReader(r, 16<<20))
	if err != nil {
		return res, errInvalid("the backup is damaged: %v", err)
	}
	var b keyBackup
	if err := json.Unmarshal(pt, &b); err != nil || b.Format != backupFormat {
		return res, errInvalid("not a botkit sealing key backup")
	}
	if b.Organization != orgName {
		return res, errInvalid("the backup holds the keys of organization %s, not %s (the organization name is part of every sealed value)", b.Organization, orgName)
	}
	org, err := k.org(ctx, orgName)
	if err != nil {
		return res, err
	}
	err = k.store.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		res = ImportResult{}
		have, err := tx.SealingKeys(ctx, org.ID)
		if err != nil {
			return err
		}
		var seq int64
		if len(have) > 0 {
			seq = have[len(have)-1].Seq
		}
		for _, bk := range b.Keys {
			if slices.ContainsFunc(have, func(sk store.SealingKey) bool { return sk.ID == bk.KeyID }) {
				res.Present++
				continue
			}
			id, err := sealed.ParseIdentity(bk.Identity)
			if err != nil || id.ID != bk.KeyID || id.Recipient() != bk.Recipient {
				return errInvalid("key %s of the backup is damaged", bk.KeyID)
			}
			seq++
			sk, err := sealKeyPair(k.sealer, org, seq, bk.Identity, bk.Recipient, bk.CreatedAt)
			if err != nil {
				return err
			}
			sk.RetiredAt = bk.RetiredAt
			if err := tx.PutSealingKey(ctx, sk); err != nil {
				return err
			}
			res.Added++
		}
		all, err := tx.SealingKeys(ctx, org.ID)
		if err != nil {
			return err
		}
		cur, _ := currentKey(all)
		res.Current = cur.ID
		return nil
	})
	if errors.Is(err, store.ErrExists) {
		return res, errConflict("the organization's keys changed during the import; try again")
	}
	return res, err
}

package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/botkit-dev/botkit/pkg/platform/encryption"
	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// MigrateStats counts what Migrate copied.
type MigrateStats struct {
	Orgs, Tokens, Objects, Values, Audit, SealingKeys int
	PublicKeys                                        int
	Agents, Deployments                               int
}

// Migrate copies the platform of src (a SQLite data directory's store) into
// dst (an empty PostgreSQL database), in one transaction: organizations,
// tokens (hashes, revocations), sealing keys, public keys (hashes; the
// deleted ones stay behind), objects with their versions,
// generations and states, values, agents with their deployments (numbers,
// pinned digests and secret set versions, results) and the audit log.
// Values are copied as they are stored,
// encrypted: they are sealed with organization, region, name and key as
// associated data, none of which changes, so the replicas decrypt them with
// the master key of the source (pass it to them with --master-key-file).
// Sessions are not copied: they are calls in progress, served by the
// platform that started them. src is only read. The caller opens and closes both stores.
func Migrate(ctx context.Context, src, dst store.Store) (MigrateStats, error) {
	var st MigrateStats
	if orgs, err := dst.Orgs(ctx); err != nil {
		return st, err
	} else if len(orgs) > 0 {
		return st, errConflict("the database already holds %d organizations; migrate into an empty database", len(orgs))
	}
	orgs, err := src.Orgs(ctx)
	if err != nil {
		return st, err
	}
	// Read everything first: the copy is one write transaction.
	type objectCopy struct {
		obj  store.Object
		vals []store.Value
	}
	type agentCopy struct {
		agent       store.Agent
		deployments []store.Deployment // oldest first
	}
	type orgCopy struct {
		org     store.Org
		keys    []store.SealingKey
		tokens  []store.Token
		pubKeys []store.PublicKey
		objects []objectCopy
		agents  []agentCopy
		audit   []store.AuditRecord
	}
	var all []orgCopy
	var maxVersion int64
	for _, o := range orgs {
		oc := orgCopy{org: o}
		if oc.tokens, err = src.Tokens(ctx, o.ID); err != nil {
			return st, err
		}
		if oc.keys, err = src.SealingKeys(ctx, o.ID); err != nil {
			return st, err
		}
		if oc.pubKeys, err = src.PublicKeys(ctx, o.ID); err != nil {
			return st, err
		}
		var names []string
		if err := src.List(ctx, store.ListQuery{OrgID: o.ID}, func(it *store.ListItem) (bool, error) {
			names = append(names, it.Name)
			return true, nil
		}); err != nil {
			return st, err
		}
		for _, name := range names {
			obj, err := src.Object(ctx, o.ID, name)
			if err != nil {
				return st, err
			}
			vals, err := src.Values(ctx, obj.ID)
			if err != nil {
				return st, err
			}
			maxVersion = max(maxVersion, obj.Version)
			oc.objects = append(oc.objects, objectCopy{obj, vals})
		}
		agents, err := src.Agents(ctx, o.ID, "")
		if err != nil {
			return st, err
		}
		for _, a := range agents {
			ac := agentCopy{agent: a}
			for before := int64(0); ; {
				ds, err := src.Deployments(ctx, a.ID, before, 1000)
				if err != nil {
					return st, err
				}
				ac.deployments = append(ac.deployments, ds...)
				if len(ds) < 1000 {
					break
				}
				before = ds[len(ds)-1].Number
			}
			slices.Reverse(ac.deployments)
			maxVersion = max(maxVersion, a.Version)
			oc.agents = append(oc.agents, ac)
		}
		if oc.audit, err = src.Audit(ctx, o.Name, math.MaxInt32); err != nil {
			return st, err
		}
		slices.Reverse(oc.audit) // oldest first, so the copy keeps the order
		all = append(all, oc)
	}
	// The master key's check goes along, so that a replica started with
	// another key than the source's is refused.
	if check, err := src.Setting(ctx, encryption.SettingKeyCheck); err != nil {
		return st, err
	} else if check != nil {
		if got, err := dst.InitSetting(ctx, encryption.SettingKeyCheck, check); err != nil {
			return st, err
		} else if !bytes.Equal(got, check) {
			return st, errConflict("the database holds the check of another master key; migrate into an empty database")
		}
	}
	err = dst.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		st = MigrateStats{}
		for _, oc := range all {
			org, err := tx.CreateOrg(ctx, store.Org{Name: oc.org.Name, DefaultRegion: oc.org.DefaultRegion, CreatedAt: oc.org.CreatedAt})
			if err != nil {
				return fmt.Errorf("organization %s: %w", oc.org.Name, err)
			}
			st.Orgs++
			// Sealing keys are copied as stored: their private parts are
			// encrypted with the organization name and key id as associated
			// data, and the master key goes along.
			for _, k := range oc.keys {
				k.OrgID = org.ID
				if err := tx.PutSealingKey(ctx, k); err != nil {
					return fmt.Errorf("sealing key %s of organization %s: %w", k.ID, org.Name, err)
				}
				st.SealingKeys++
			}
			for _, t := range oc.tokens {
				t.OrgID = org.ID
				if err := tx.CreateToken(ctx, t); err != nil {
					return fmt.Errorf("token %s: %w", t.ID, err)
				}
				st.Tokens++
			}
			for _, k := range oc.pubKeys {
				k.OrgID = org.ID
				if err := tx.CreatePublicKey(ctx, k); err != nil {
					return fmt.Errorf("public key %s: %w", k.ID, err)
				}
				st.PublicKeys++
			}
			for _, c := range oc.objects {
				obj := c.obj
				obj.ID, obj.OrgID = 0, org.ID
				id, err := tx.PutObject(ctx, obj)
				if err != nil {
					return fmt.Errorf("%s of organization %s: %w", describe(obj), org.Name, err)
				}
				if err := tx.PutValues(ctx, id, c.vals); err != nil {
					return fmt.Errorf("%s of organization %s: %w", describe(obj), org.Name, err)
				}
				// The copy's history starts at its current contents (the
				// source's versions stay behind): the versions of its next
				// writes store only what they change, on top of this one.
				obj.ID = id
				if err := tx.PutVersion(ctx, store.Version{ObjectID: id, Version: obj.Generation, At: obj.UpdatedAt, Actor: migrationActor, Source: SourceMigration,
					Labels: obj.Labels, Keys: versionKeys(obj), Host: obj.Host, Username: obj.Username, Values: c.vals}); err != nil {
					return fmt.Errorf("%s of organization %s: %w", describe(obj), org.Name, err)
				}
				st.Objects++
				st.Values += len(c.vals)
			}
			for _, c := range oc.agents {
				a := c.agent
				a.ID, a.OrgID = 0, org.ID
				id, err := tx.PutAgent(ctx, a)
				if err != nil {
					return fmt.Errorf("agent/%s of organization %s: %w", a.Name, org.Name, err)
				}
				for _, d := range c.deployments {
					d.AgentID = id
					if err := tx.PutDeployment(ctx, d); err != nil {
						return fmt.Errorf("deployment %d of agent/%s of organization %s: %w", d.Number, a.Name, org.Name, err)
					}
					st.Deployments++
				}
				st.Agents++
			}
			for _, r := range oc.audit {
				if err := tx.Audit(ctx, r); err != nil {
					return err
				}
				st.Audit++
			}
		}
		return tx.AdvanceVersion(ctx, maxVersion)
	})
	if errors.Is(err, store.ErrExists) {
		return st, errConflict("--to: already exists (another migration ran at the same time?)")
	}
	return st, err
}

package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// testPublicKeys: a key is found by its hash through any store on the
// database with its organization, origins and times; a hash or an ID is
// taken once; a deleted key is found deleted and is no longer listed, and
// is deleted once, by its own organization only.
func testPublicKeys(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	a, b := newOrg(t, s1, "acme"), newOrg(t, s1, "other")
	if ks, err := s2.PublicKeys(ctx, a.ID); err != nil || len(ks) != 0 {
		t.Fatalf("keys of a new organization: %v, %v", ks, err)
	}
	at := time.Unix(1700000000, 123456789).UTC()
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		for _, k := range []store.PublicKey{
			{ID: "key_1", OrgID: a.ID, Name: "web", Hash: []byte("h1"), Prefix: "pk_aa", AllowedOrigins: []string{"https://a.example", "http://localhost:5173"}, CreatedAt: at, CreatedBy: "ann (tok_1)"},
			{ID: "key_2", OrgID: a.ID, Hash: []byte("h2"), Prefix: "pk_bb", CreatedAt: at.Add(time.Second), CreatedBy: "ann"},
			{ID: "key_3", OrgID: b.ID, Hash: []byte("h3"), Prefix: "pk_cc", CreatedBy: "bob"},
		} {
			if err := tx.CreatePublicKey(ctx, k); err != nil {
				return err
			}
		}
		return nil
	})
	for name, k := range map[string]store.PublicKey{
		"same ID":   {ID: "key_1", OrgID: b.ID, Hash: []byte("h9"), Prefix: "pk_x", CreatedBy: "x"},
		"same hash": {ID: "key_9", OrgID: b.ID, Hash: []byte("h1"), Prefix: "pk_x", CreatedBy: "x"},
	} {
		err := s2.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.CreatePublicKey(ctx, k) })
		if !errors.Is(err, store.ErrExists) {
			t.Errorf("CreatePublicKey with the %s: %v, want ErrExists", name, err)
		}
	}
	k, err := s2.PublicKeyByHash(ctx, []byte("h1"))
	if err != nil || k.ID != "key_1" || k.OrgID != a.ID || k.OrgName != "acme" || k.OrgRegion != "us-west" || k.Name != "web" ||
		string(k.Hash) != "h1" || k.Prefix != "pk_aa" || !slices.Equal(k.AllowedOrigins, []string{"https://a.example", "http://localhost:5173"}) ||
		!k.CreatedAt.Equal(at) || k.CreatedBy != "ann (tok_1)" || k.DeletedAt != nil {
		t.Errorf("PublicKeyByHash: %+v, %v", k, err)
	}
	if k, err := s2.PublicKeyByHash(ctx, []byte("h2")); err != nil || k.AllowedOrigins == nil || len(k.AllowedOrigins) != 0 || k.Name != "" {
		t.Errorf("a key without a name or origins: %+v, %v", k, err)
	}
	if _, err := s2.PublicKeyByHash(ctx, []byte("nope")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown hash: %v, want ErrNotFound", err)
	}
	ks, err := s2.PublicKeys(ctx, a.ID)
	if err != nil || len(ks) != 2 || ks[0].ID != "key_1" || ks[1].ID != "key_2" {
		t.Fatalf("PublicKeys: %+v, %v", ks, err)
	}

	// Another organization's key is not found for deletion.
	err = s1.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.DeletePublicKey(ctx, b.ID, "key_1", at) })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting another organization's key: %v, want ErrNotFound", err)
	}
	deleted := at.Add(time.Hour)
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.DeletePublicKey(ctx, a.ID, "key_1", deleted) })
	if k, err := s2.PublicKeyByHash(ctx, []byte("h1")); err != nil || k.DeletedAt == nil || !k.DeletedAt.Equal(deleted) {
		t.Errorf("a deleted key: %+v, %v", k, err)
	}
	for _, id := range []string{"key_1", "key_nope"} {
		err := s2.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.DeletePublicKey(ctx, a.ID, id, deleted) })
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleting %s: %v, want ErrNotFound", id, err)
		}
	}
	if ks, err := s2.PublicKeys(ctx, a.ID); err != nil || len(ks) != 1 || ks[0].ID != "key_2" {
		t.Errorf("PublicKeys after deleting key_1: %+v, %v", ks, err)
	}
	if ks, err := s1.PublicKeys(ctx, b.ID); err != nil || len(ks) != 1 || ks[0].ID != "key_3" || ks[0].CreatedAt.IsZero() {
		t.Errorf("the other organization's keys: %+v, %v", ks, err)
	}
}

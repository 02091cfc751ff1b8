package encryption

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/sqlite"
)

// racingStore is a real SQLite store in which another process (simulated:
// the interleaving is what the test needs, and it cannot be timed from
// outside) creates the master key and stores a value encrypted with it
// right after this process found no key file.
type racingStore struct {
	store.Store
	keyFile string
	raced   bool
}

func (s *racingStore) Setting(ctx context.Context, name string) ([]byte, error) {
	if !s.raced {
		s.raced = true
		key, err := CreateMasterKey(s.keyFile)
		if err != nil {
			return nil, err
		}
		sl, err := NewSealer(key)
		if err != nil {
			return nil, err
		}
		if _, err := s.Store.InitSetting(ctx, SettingKeyCheck, keyCheck(key)); err != nil {
			return nil, err
		}
		if _, err := sl.Seal("local", "us-west", "bot", "A", []byte("v")); err != nil {
			return nil, err
		}
	}
	return s.Store.Setting(ctx, name)
}

// Parallel commands on a fresh data directory: one finds no key, another
// creates it and writes before the first checks the database. The first
// uses the key that now exists instead of calling it missing.
func TestOpenMasterKeyRace(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.OpenDir(context.Background(), dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	keyFile := filepath.Join(dir, "master.key")
	rs := &racingStore{Store: st, keyFile: keyFile}
	if _, err := OpenMasterKey(context.Background(), rs, keyFile, true); err != nil {
		t.Fatalf("a key created by another process meanwhile: %v", err)
	}
	if !rs.raced {
		t.Fatal("the race did not happen")
	}
}

package encryption

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// SettingKeyCheck is the store setting that holds the master key's check
// value: an HMAC of a fixed text under the key. It tells whether a key is
// the one the store's values were encrypted with, without revealing the key.
const SettingKeyCheck = "master_key_check"

// keyCheck is the check value of key.
func keyCheck(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("botkit.dev/v1/master-key-check"))
	return m.Sum(nil)
}

// MasterKeyError is returned by OpenMasterKey (and platform.Open) when the master key is missing or is
// not the one the store's values were encrypted with. Nothing was written:
// a new key is made only for a store that never held a value. (A runtime
// failure, exit 1.)
type MasterKeyError struct {
	File    string // the key file
	Missing bool   // the file does not exist (else: it holds another key)
}

func (e *MasterKeyError) Error() string {
	if e.Missing {
		return fmt.Sprintf("master key %s is missing, but the platform's database holds values encrypted with a master key: "+
			"restore that file from your backup (a new key could never decrypt them); to start afresh instead, losing every stored value, "+
			"move the data directory (or database) away", e.File)
	}
	return fmt.Sprintf("master key %s is not the key the platform's values were encrypted with: "+
		"use the key file they were written with (restore it from your backup); nothing was changed", e.File)
}

// OpenMasterKey loads the master key of keyFile and checks it against
// st. A missing file is created (when create is true) only if st holds
// neither a key check nor a value. The key's check value is stored on first
// use; for a store written before checks existed, the key is first tried on
// one stored value.
func OpenMasterKey(ctx context.Context, st store.Store, keyFile string, create bool) (*Sealer, error) {
	key, err := LoadMasterKey(keyFile, false)
	if errors.Is(err, fs.ErrNotExist) && create {
		if nerr := requireNoEncryptedData(ctx, st, keyFile); nerr != nil {
			// Another process (a parallel CLI command on a fresh data
			// directory) may have created the key and written values
			// between the read above and this check: the key is missing
			// only if it is missing now.
			if key, err = LoadMasterKey(keyFile, false); errors.Is(err, fs.ErrNotExist) {
				return nil, nerr
			}
		} else {
			key, err = CreateMasterKey(keyFile)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MasterKeyError{File: keyFile, Missing: true}
	}
	if err != nil {
		return nil, err
	}
	sl, err := NewSealer(key)
	if err != nil {
		return nil, fmt.Errorf("master key %s: %w", keyFile, err)
	}
	want := keyCheck(key)
	got, err := st.Setting(ctx, SettingKeyCheck)
	if err != nil {
		return nil, err
	}
	if got == nil {
		if sv, ok, err := st.SampleValue(ctx); err != nil {
			return nil, err
		} else if ok {
			if _, err := sl.Open(sv.Org, sv.Region, sv.Name, sv.Value.Key, sv.Value.Ciphertext); err != nil {
				return nil, &MasterKeyError{File: keyFile}
			}
		}
		if got, err = st.InitSetting(ctx, SettingKeyCheck, want); err != nil {
			return nil, err
		}
	}
	if !hmac.Equal(got, want) {
		return nil, &MasterKeyError{File: keyFile}
	}
	return sl, nil
}

// requireNoEncryptedData refuses a new master key for a store that holds a
// key check or a value.
func requireNoEncryptedData(ctx context.Context, st store.Store, keyFile string) error {
	check, err := st.Setting(ctx, SettingKeyCheck)
	if err != nil {
		return err
	}
	_, holds, err := st.SampleValue(ctx)
	if err != nil {
		return err
	}
	if check != nil || holds {
		return &MasterKeyError{File: keyFile, Missing: true}
	}
	return nil
}

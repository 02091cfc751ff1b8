package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// Settings (the master key check) and the tokens epoch.

func (s *Store) Setting(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.rdb().QueryRowContext(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return v, err
}

func (s *Store) InitSetting(ctx context.Context, name string, value []byte) ([]byte, error) {
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.(*sqlTx).exec(ctx, `INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)`, name, value)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.Setting(ctx, name)
}

func (s *Store) SampleValue(ctx context.Context) (store.SampledValue, bool, error) {
	var v store.SampledValue
	err := s.rdb().QueryRowContext(ctx, `SELECT g.name, o.region, o.name, v.key, v.size, v.ciphertext
		FROM secret_values v JOIN objects o ON o.id = v.object_id JOIN orgs g ON g.id = o.org_id LIMIT 1`).
		Scan(&v.Org, &v.Region, &v.Name, &v.Value.Key, &v.Value.Size, &v.Value.Ciphertext)
	if errors.Is(err, sql.ErrNoRows) {
		return v, false, nil
	}
	return v, err == nil, err
}

func (s *Store) TokensEpoch(ctx context.Context) (int64, error) {
	var v int64
	err := s.rdb().QueryRowContext(ctx, `SELECT value FROM counters WHERE name = 'tokens_epoch'`).Scan(&v)
	return v, err
}

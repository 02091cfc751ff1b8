package platform

import (
	"context"
	"path/filepath"

	"github.com/botkit-dev/botkit/pkg/platform/encryption"
	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// OpenSealingKeys returns the administration of the organizations' sealing
// keys over st (botkit-platform orgs rotate-sealing-key, export and import):
// like Open it checks the data directory and the master key
// (masterKeyFile, default DATA_DIR/master.key), but never creates a key.
// Closing the result's store is the caller's.
func OpenSealingKeys(ctx context.Context, st store.Store, dataDir, masterKeyFile string) (*service.SealingKeys, error) {
	if dataDir == "" && masterKeyFile == "" {
		return nil, ErrMasterKeyRequired
	}
	if masterKeyFile == "" {
		masterKeyFile = filepath.Join(dataDir, MasterKeyFile)
	}
	if err := checkPermissions(dataDir, masterKeyFile); err != nil {
		return nil, err
	}
	sealer, err := encryption.OpenMasterKey(ctx, st, masterKeyFile, false)
	if err != nil {
		return nil, err
	}
	return service.NewSealingKeys(st, sealer), nil
}

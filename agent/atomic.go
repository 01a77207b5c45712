package agent

import (
	"os"
	"path/filepath"

	"github.com/bramble-edge/bramble/durable"
)

// writeFileAtomic replaces path with data so that a crash or power loss
// leaves either the old content or the new one, rename included.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	if err := durable.WriteFile(path, data, mode); err != nil {
		return err
	}
	return durable.SyncDir(filepath.Dir(path))
}

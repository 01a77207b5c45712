// Package durable writes files so that a crash or power loss leaves either
// the old content or the new one, never half: the file is written beside
// its destination, fsynced, and renamed over it; SyncDir then makes the
// rename itself durable. Agents on SD cards, the datastore's snapshots and
// every credential file go through it.
package durable

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data and mode through a synced temporary
// file in the same directory. Call SyncDir(filepath.Dir(path)) afterwards
// for the rename to survive a power cut (one call covers several files).
func WriteFile(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	if err := writeSynced(f, data, mode); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func writeSynced(f *os.File, data []byte, mode os.FileMode) error {
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}

// SyncDir makes the renames and removals done in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

package datastore

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"github.com/bramble-edge/bramble/durable"
)

// Snapshot writes a consistent copy of the store to w while it keeps
// serving: VACUUM INTO a temporary file beside the database (one read
// transaction, so one revision), then copy it out.
func (s *SQLite) Snapshot(ctx context.Context, w io.Writer) error {
	if s.closed.Load() {
		return ErrClosed
	}
	removeStaleSnapshotTemps(filepath.Dir(s.path), s.log)
	tmp, err := vacuumToTemp(ctx, s.path, filepath.Dir(s.path))
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", s.path, err)
	}
	defer os.Remove(tmp)
	f, err := os.Open(tmp)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", s.path, err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("snapshot %s: write: %w", s.path, err)
	}
	return nil
}

// SnapshotSave writes a consistent snapshot of the datastore at dbPath to
// outFile. It works from another process while the server is running and
// writing: it only reads the database. outFile appears complete or not at
// all (written beside it, fsynced, then renamed); what an earlier save
// killed on the way left beside it is removed first.
func SnapshotSave(ctx context.Context, dbPath, outFile string) error {
	if _, err := os.Stat(dbPath); err != nil {
		return fmt.Errorf("snapshot save: datastore %s: %w", dbPath, err)
	}
	dir := filepath.Dir(outFile)
	removeStaleSnapshotTemps(dir, slog.Default())
	tmp, err := vacuumToTemp(ctx, dbPath, dir)
	if err != nil {
		return fmt.Errorf("snapshot save %s: %w", dbPath, err)
	}
	defer os.Remove(tmp)
	if err := verifySnapshot(ctx, tmp); err != nil {
		return fmt.Errorf("snapshot save %s: %w", dbPath, err)
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("snapshot save %s: %w", outFile, err)
	}
	if err := os.Rename(tmp, outFile); err != nil {
		return fmt.Errorf("snapshot save: %w", err)
	}
	return durable.SyncDir(dir)
}

// vacuumToTemp copies the database at dbPath into a new file in dir with
// VACUUM INTO, on a read-only connection of its own.
func vacuumToTemp(ctx context.Context, dbPath, dir string) (string, error) {
	f, err := os.CreateTemp(dir, snapshotTempPattern())
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	f.Close() // VACUUM INTO accepts an existing empty file
	db, err := openDB(dbPath, url.Values{"mode": {"ro"}, "_busy_timeout": {"10000"}})
	if err == nil {
		err = checkSchema(ctx, db)
	}
	if err == nil {
		_, err = db.ExecContext(ctx, `VACUUM INTO ?`, tmp)
	}
	if db != nil {
		db.Close()
	}
	if err == nil {
		err = addLegacyIndexes(ctx, tmp)
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("vacuum into %s: %w", tmp, err)
	}
	return tmp, nil
}

// addLegacyIndexes gives a snapshot copy the indexes schema version 1
// first had (see legacyIndexes), so an older bramble that restores it (a
// rollback) lists at old revisions as fast as before; this code drops them
// again when it opens the restored file.
func addLegacyIndexes(ctx context.Context, path string) error {
	// No journal: a copy that fails half-way is removed, never used.
	db, err := openDB(path, url.Values{"_journal_mode": {"OFF"}, "_synchronous": {"OFF"}})
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, legacyIndexSQL); err != nil {
		return fmt.Errorf("add index: %w", err)
	}
	return db.Close()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	return f.Close()
}

package datastore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/bramble-edge/bramble/durable"

	"github.com/mattn/go-sqlite3"
)

// SnapshotRestore replaces the datastore at dbPath with the snapshot in
// inFile. Run it while the server is stopped: it refuses a database another
// process has open. The snapshot is copied beside dbPath, checked (SQLite
// integrity_check, bramble's application id and schema), its revision is
// moved past the replaced datastore's (snapshot_bump.go), and it is renamed
// into place after the old -wal and -shm files are removed, so a stale WAL
// can never be replayed over the restored data.
func SnapshotRestore(ctx context.Context, inFile, dbPath string) error {
	dir := filepath.Dir(dbPath)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("snapshot restore: %w", err)
	}
	tmp, err := copyToTemp(inFile, dir)
	if err != nil {
		return fmt.Errorf("snapshot restore from %s: %w", inFile, err)
	}
	defer os.Remove(tmp) // a no-op after the rename
	if err := verifySnapshot(ctx, tmp); err != nil {
		return fmt.Errorf("snapshot restore: %s: %w", inFile, err)
	}
	if err := ensureNotInUse(ctx, dbPath); err != nil {
		return fmt.Errorf("snapshot restore: %w", err)
	}
	if past, bump := bumpPlan(ctx, dbPath); bump { // see snapshot_bump.go
		if _, err := bumpRevision(ctx, tmp, past); err != nil {
			return fmt.Errorf("snapshot restore: move the revision past %d: %w", past, err)
		}
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(dbPath + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("snapshot restore: remove stale %s: %w", suffix, err)
		}
	}
	if err := os.Rename(tmp, dbPath); err != nil {
		return fmt.Errorf("snapshot restore: %w", err)
	}
	return durable.SyncDir(dir)
}

// copyToTemp copies src into a new 0600 file in dir and fsyncs it.
func copyToTemp(src, dir string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, ".bramble-restore-*.db")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		return "", fmt.Errorf("copy to %s: %w", out.Name(), err)
	}
	return out.Name(), nil
}

// verifySnapshot checks that path is an intact bramble datastore.
func verifySnapshot(ctx context.Context, path string) error {
	db, err := openDB(path, url.Values{"mode": {"ro"}, "immutable": {"1"}})
	if err != nil {
		return fmt.Errorf("not a readable SQLite database: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("not a readable SQLite database: %w", err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return fmt.Errorf("integrity check: %w", err)
		}
		problems = append(problems, line)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(problems) != 1 || problems[0] != "ok" {
		return fmt.Errorf("integrity check failed: %s (%v)", strings.Join(problems, "; "), err)
	}
	if err := checkSchema(ctx, db); err != nil {
		return err
	}
	if _, _, err := readRevisions(ctx, db); err != nil {
		return fmt.Errorf("missing bramble tables: %w", err)
	}
	return nil
}

// ensureNotInUse fails when another process has dbPath open: taking the
// database in exclusive locking mode needs every other connection gone. A
// file that is unreadable for any other reason is about to be replaced, so
// only "busy" or "locked" stops the restore.
func ensureNotInUse(ctx context.Context, dbPath string) error {
	if _, err := os.Stat(dbPath); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	db, err := openDB(dbPath, url.Values{"_locking_mode": {"EXCLUSIVE"}, "_busy_timeout": {"0"}})
	if err == nil {
		_, err = db.ExecContext(ctx, `BEGIN EXCLUSIVE; SELECT count(*) FROM sqlite_schema; COMMIT`)
		db.Close()
	}
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked) {
		return fmt.Errorf("datastore %s is in use (stop the server before restoring): %w", dbPath, err)
	}
	return nil
}

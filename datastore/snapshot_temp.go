package datastore

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// snapshotTempPrefix starts the name of a snapshot being written; the
// writer's process id follows (".bramble-snapshot-<pid>-<random>.db"), so
// a later save can tell a dead writer's leftover from a save under way.
const snapshotTempPrefix = ".bramble-snapshot-"

// legacyTempAge is how old a snapshot temp file without a process id (made
// before ids were in the name) must be before it is taken for a leftover.
const legacyTempAge = 10 * time.Minute

// snapshotTempPattern is the os.CreateTemp pattern of this process's
// snapshot temp files.
func snapshotTempPattern() string {
	return snapshotTempPrefix + strconv.Itoa(os.Getpid()) + "-*.db"
}

// removeStaleSnapshotTemps deletes the snapshot temp files in dir left by
// writers that died (kill -9, power loss) before renaming or removing
// them: those whose process is gone, and old ones that name none. Errors
// are logged, not returned: a leftover must not stop a save or a start.
func removeStaleSnapshotTemps(dir string, log *slog.Logger) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("look for leftover snapshot files", "dir", dir, "err", err)
		}
		return
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), snapshotTempPrefix) || !staleTemp(e) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Warn("remove leftover snapshot file", "path", path, "err", err)
			continue
		}
		log.Info("removed the leftover of an interrupted snapshot", "path", path)
	}
}

// staleTemp reports whether the snapshot temp file e belongs to no live
// writer.
func staleTemp(e fs.DirEntry) bool {
	rest := strings.TrimPrefix(e.Name(), snapshotTempPrefix)
	if pidText, _, ok := strings.Cut(rest, "-"); ok {
		if pid, err := strconv.Atoi(pidText); err == nil && pid > 0 {
			return !processAlive(pid)
		}
	}
	info, err := e.Info()
	return err == nil && time.Since(info.ModTime()) > legacyTempAge
}

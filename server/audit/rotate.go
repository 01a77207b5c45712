package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// backupLayout stamps a rotated file's name: audit-2026-11-27T00-13-12.345.log
// for audit.log, the UTC time of the rotation (as lumberjack, which
// kube-apiserver uses, names them).
const backupLayout = "2006-01-02T15-04-05.000"

// rotate writes out, fsyncs and closes the current file, renames it with
// a time stamp, opens a fresh one and prunes old backups. Callers hold mu.
func (w *File) rotate() error {
	if err := w.buf.Flush(); err != nil {
		return fmt.Errorf("audit log rotate: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("audit log rotate: %w", err)
	}
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("audit log rotate: %w", err)
	}
	w.f = nil
	if err := os.Rename(w.cfg.Path, w.backupName(w.cfg.Now())); err != nil {
		return fmt.Errorf("audit log rotate: %w", err)
	}
	if err := w.open(); err != nil {
		return err
	}
	w.buf.Reset(w.f)
	w.prune()
	return nil
}

// backupName is a name for a backup made at t that is not taken yet.
func (w *File) backupName(t time.Time) string {
	dir, base := filepath.Split(w.cfg.Path)
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	for {
		name := filepath.Join(dir, prefix+t.UTC().Format(backupLayout)+ext)
		if _, err := os.Lstat(name); os.IsNotExist(err) {
			return name
		}
		t = t.Add(time.Millisecond)
	}
}

// backups lists the rotated files of the log, newest first, with the time
// in their names.
func (w *File) backups() ([]backup, error) {
	dir, base := filepath.Split(w.cfg.Path)
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return nil, err
	}
	var out []backup
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ext) {
			continue
		}
		stamp := strings.TrimSuffix(strings.TrimPrefix(name, prefix), ext)
		t, err := time.Parse(backupLayout, stamp)
		if err != nil {
			continue // not one of ours
		}
		out = append(out, backup{path: filepath.Join(dir, name), at: t})
	}
	slices.SortFunc(out, func(a, b backup) int { return b.at.Compare(a.at) })
	return out, nil
}

type backup struct {
	path string
	at   time.Time
}

// prune removes backups past --audit-log-maxbackup and older than
// --audit-log-maxage; a failure is logged (the log itself goes on).
func (w *File) prune() {
	if w.cfg.MaxBackups == 0 && w.cfg.MaxAgeDays == 0 {
		return
	}
	list, err := w.backups()
	if err != nil {
		w.cfg.Log.Error("audit log: list old files", "path", w.cfg.Path, "err", err)
		return
	}
	cutoff := w.cfg.Now().Add(-time.Duration(w.cfg.MaxAgeDays) * 24 * time.Hour)
	for i, b := range list {
		tooMany := w.cfg.MaxBackups > 0 && i >= w.cfg.MaxBackups
		tooOld := w.cfg.MaxAgeDays > 0 && b.at.Before(cutoff)
		if !tooMany && !tooOld {
			continue
		}
		if err := os.Remove(b.path); err != nil && !os.IsNotExist(err) {
			w.cfg.Log.Error("audit log: remove old file", "path", b.path, "err", err)
		}
	}
}

package audit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/internal/periodic"
)

// FileConfig is the log file and its rotation (--audit-log-*).
type FileConfig struct {
	Path       string // --audit-log-path; "-" is standard output, not rotated
	MaxSizeMB  int    // --audit-log-maxsize: rotate past this size; 0 is 100 MB
	MaxBackups int    // --audit-log-maxbackup: old files kept; 0 keeps all
	MaxAgeDays int    // --audit-log-maxage: old files older are removed; 0 keeps them
	// FlushInterval and SyncInterval (defaults 100 ms and 1 s) bound what a
	// crash loses: a killed process the last FlushInterval of events, a
	// power cut the last SyncInterval.
	FlushInterval, SyncInterval time.Duration
	Log                         *slog.Logger
	Now                         func() time.Time
}

// File is the audit log: lines go into a 64 KiB buffer under a lock (the
// request pays a copy, not a system call); a background loop writes the
// buffer out every FlushInterval and fsyncs every SyncInterval, outside
// the lock; a full buffer is written at once; rotation and Close write and
// fsync at once.
type File struct {
	cfg  FileConfig
	mu   sync.Mutex
	f    *os.File
	buf  *bufio.Writer
	size int64 // bytes in the current file, buffered ones included
	// closed is set by Close; f is nil after a failed rotation as well.
	closed bool

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ Sink = (*File)(nil)

// OpenFile opens (appending) or creates cfg.Path, mode 0600, and starts
// the flush loop; Close stops it.
func OpenFile(cfg FileConfig) (*File, error) {
	cfg.setDefaults()
	if cfg.MaxSizeMB < 0 || cfg.MaxBackups < 0 || cfg.MaxAgeDays < 0 {
		return nil, errors.New("--audit-log-maxsize, --audit-log-maxbackup and --audit-log-maxage must not be negative")
	}
	w := &File{cfg: cfg}
	if cfg.Path == "-" {
		w.f, w.cfg.MaxSizeMB = os.Stdout, 0
	} else if err := w.open(); err != nil {
		return nil, err
	} else {
		w.prune()
	}
	w.buf = bufio.NewWriterSize(w.f, 64<<10)
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.wg.Add(1)
	go w.loop(ctx)
	return w, nil
}

func (c *FileConfig) setDefaults() {
	if c.FlushInterval <= 0 {
		c.FlushInterval = 100 * time.Millisecond
	}
	if c.SyncInterval <= 0 {
		c.SyncInterval = time.Second
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

func (w *File) open() error {
	if err := os.MkdirAll(filepath.Dir(w.cfg.Path), 0o700); err != nil {
		return fmt.Errorf("--audit-log-path %s: %w", w.cfg.Path, err)
	}
	f, err := os.OpenFile(w.cfg.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("--audit-log-path: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("--audit-log-path: %w", err)
	}
	w.f, w.size = f, st.Size()
	return nil
}

// WriteLine appends one event line, rotating first when it would pass the
// size limit.
func (w *File) WriteLine(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("audit log is closed")
	}
	if w.f == nil { // a rotation failed half way: start a file again
		if err := w.open(); err != nil {
			return err
		}
		w.buf.Reset(w.f)
	}
	if max := int64(w.cfg.MaxSizeMB) << 20; max > 0 && w.size > 0 && w.size+int64(len(line)) > max {
		if err := w.rotate(); err != nil {
			return err
		}
	}
	n, err := w.buf.Write(line)
	w.size += int64(n)
	return err
}

// loop flushes and syncs until ctx ends.
func (w *File) loop(ctx context.Context) {
	defer w.wg.Done()
	lastSync := time.Now()
	periodic.Every(ctx, w.cfg.FlushInterval, func() { lastSync = w.flushSync(lastSync) })
}

// flushSync writes out what is buffered, and fsyncs it if lastSync is
// SyncInterval old; it returns when the file was last synced.
func (w *File) flushSync(lastSync time.Time) time.Time {
	w.mu.Lock()
	f, err := w.f, error(nil)
	if f != nil {
		err = w.buf.Flush()
	}
	w.mu.Unlock()
	// fsync outside the lock: writers never wait for the disk. A file
	// rotation closed meanwhile was synced by the rotation.
	if f != nil && err == nil && time.Since(lastSync) >= w.cfg.SyncInterval && f != os.Stdout {
		if err, lastSync = f.Sync(), time.Now(); errors.Is(err, os.ErrClosed) {
			err = nil
		}
	}
	if err != nil {
		w.cfg.Log.Error("audit log: flush failed", "path", w.cfg.Path, "err", err)
	}
	return lastSync
}

// Close writes out and fsyncs what is buffered and closes the file.
func (w *File) Close() error {
	w.cancel()
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.f == nil {
		return nil
	}
	err := w.buf.Flush()
	if w.f != os.Stdout {
		err = errors.Join(err, w.f.Sync(), w.f.Close())
	}
	w.f = nil
	return err
}

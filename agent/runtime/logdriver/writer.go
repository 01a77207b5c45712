// Package logdriver writes a container's stdout and stderr to a log file as
// CRI lines ("<RFC3339Nano> stdout|stderr F|P <text>"), rotating it by size.
// containerd's shim runs it as a separate process per container (a binary://
// log URI), so logs keep flowing while the agent is down or restarting. It
// imports only the standard library, to stay small in memory.
package logdriver

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Writer appends CRI log lines to a file and rotates it: when a line would
// take the file past MaxBytes, path.1 becomes path.2 and so on, path becomes
// path.1, and a new path is started; MaxFiles files are kept, the live one
// included. Safe for concurrent use by the stdout and stderr copiers.
type Writer struct {
	mu       sync.Mutex
	path     string
	maxBytes int64
	maxFiles int
	f        *os.File
	size     int64
	buf      []byte
	now      func() time.Time
}

// OpenWriter opens (appending to) the log file at path, creating its
// directory when needed. When opening fails it still returns the writer
// with the error: each later line tries to open the file again.
func OpenWriter(path string, maxBytes int64, maxFiles int) (*Writer, error) {
	if maxBytes <= 0 || maxFiles < 1 {
		return nil, fmt.Errorf("log writer %s: maxBytes %d and maxFiles %d must be positive", path, maxBytes, maxFiles)
	}
	w := &Writer{path: path, maxBytes: maxBytes, maxFiles: maxFiles, now: time.Now}
	return w, w.open()
}

func (w *Writer) open() error {
	if err := os.MkdirAll(filepath.Dir(w.path), 0o755); err != nil {
		return fmt.Errorf("make log directory: %w", err)
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat log file: %w", err)
	}
	w.f, w.size = f, st.Size()
	return nil
}

// WriteLine writes one CRI line: the time, the stream name, "F" for a full
// line or "P" for a partial one, and text (without its newline).
func (w *Writer) WriteLine(stream string, partial bool, text []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	tag := " F "
	if partial {
		tag = " P "
	}
	b := w.now().UTC().AppendFormat(w.buf[:0], time.RFC3339Nano)
	b = append(b, ' ')
	b = append(b, stream...)
	b = append(b, tag...)
	b = append(b, text...)
	b = append(b, '\n')
	w.buf = b
	switch {
	case w.f == nil:
		if err := w.open(); err != nil {
			return err
		}
	case w.size > 0 && w.size+int64(len(b)) > w.maxBytes:
		if err := w.rotate(); err != nil {
			return err
		}
	}
	n, err := w.f.Write(b)
	w.size += int64(n)
	if err != nil {
		return fmt.Errorf("write log line: %w", err)
	}
	return nil
}

// rotate shifts the kept files up by one and starts an empty live file. A
// failure leaves no open file; the next line tries again.
func (w *Writer) rotate() error {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	if w.maxFiles == 1 {
		if err := os.Truncate(w.path, 0); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("truncate log file: %w", err)
		}
		return w.open()
	}
	for i := w.maxFiles - 2; i >= 1; i-- {
		err := os.Rename(w.path+"."+strconv.Itoa(i), w.path+"."+strconv.Itoa(i+1))
		if err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("rotate log file: %w", err)
		}
	}
	if err := os.Rename(w.path, w.path+".1"); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("rotate log file: %w", err)
	}
	return w.open()
}

// Close closes the live file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

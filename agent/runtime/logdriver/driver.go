package logdriver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Command is the first argument of a log driver invocation:
// `<binary> container-log <Config.Encode()>`.
const Command = "container-log"

// MaxLineBytes is the longest text one CRI line carries; longer output
// lines are split into "P" lines ending with an "F" line, as the kubelet does.
const MaxLineBytes = 16 << 10

// drainAfterTerm bounds how long the driver keeps copying after the shim's
// SIGTERM (sent when the task is deleted, after it closed the pipes).
const drainAfterTerm = 5 * time.Second

// Config is what one driver process needs, passed as its second argument.
type Config struct {
	Path     string `json:"path"`
	MaxBytes int64  `json:"maxBytes"`
	MaxFiles int    `json:"maxFiles"`
}

// Encode renders the config as the driver's argument.
func (c Config) Encode() string {
	b, _ := json.Marshal(c) // a struct of strings and ints always encodes
	return string(b)
}

// DecodeConfig parses and checks a driver argument.
func DecodeConfig(arg string) (Config, error) {
	var c Config
	if err := json.Unmarshal([]byte(arg), &c); err != nil {
		return c, fmt.Errorf("log driver config: %w", err)
	}
	switch {
	case !filepath.IsAbs(c.Path):
		return c, fmt.Errorf("log driver config: path %q is not absolute", c.Path)
	case c.MaxBytes < 1:
		return c, fmt.Errorf("log driver config: maxBytes %d is not positive", c.MaxBytes)
	case c.MaxFiles < 1:
		return c, fmt.Errorf("log driver config: maxFiles %d is not positive", c.MaxFiles)
	}
	return c, nil
}

// Run is the body of a driver process started by containerd's shim: the
// container's stdout is fd 3, its stderr fd 4, and closing fd 5 tells the
// shim the driver is ready. It returns when both streams end. Whatever goes
// wrong, it keeps draining both streams: a container writing to a pipe
// nobody reads would block, or die of SIGPIPE.
func Run(arg string) error {
	stdout, stderr := os.NewFile(3, "stdout"), os.NewFile(4, "stderr")
	ready := os.NewFile(5, "ready")
	cfg, err := DecodeConfig(arg)
	if err != nil {
		ready.Close()
		copyStreams(nil, stdout, stderr)
		return err
	}
	// A writer whose file will not open still drains, retrying per line.
	w, openErr := OpenWriter(cfg.Path, cfg.MaxBytes, cfg.MaxFiles)
	if w != nil {
		defer w.Close()
	}
	ready.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		copyStreams(w, stdout, stderr)
	}()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-done:
	case <-term:
		select {
		case <-done:
		case <-time.After(drainAfterTerm):
		}
	}
	return openErr
}

// copyStreams copies both streams to w, or discards them when w is nil.
func copyStreams(w *Writer, stdout, stderr io.Reader) {
	var wg sync.WaitGroup
	for _, s := range []struct {
		name string
		r    io.Reader
	}{{"stdout", stdout}, {"stderr", stderr}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w == nil {
				_, _ = io.Copy(io.Discard, s.r)
				return
			}
			_ = Copy(w, s.name, s.r)
		}()
	}
	wg.Wait()
}

// Copy turns r's output into CRI lines on w until r ends. It keeps reading
// when writing fails (a full disk), so the container never blocks on a
// full pipe; it returns the first write error.
func Copy(w *Writer, stream string, r io.Reader) error {
	br := bufio.NewReaderSize(r, MaxLineBytes)
	var firstErr error
	partial := false // the last line written was P: its logical line is open
	for {
		line, err := br.ReadSlice('\n')
		var werr error
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			werr = w.WriteLine(stream, true, line)
			partial = true
		case len(line) > 0, partial && err != nil:
			// At the end of the stream a line left open by a P line is
			// closed with an F line, even an empty one, so readers that
			// join P lines never wait for text that will not come.
			werr = w.WriteLine(stream, false, trimNewline(line))
			partial = false
		}
		if firstErr == nil {
			firstErr = werr
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return firstErr
		}
	}
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

package logs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// lineReader reads whole lines from a file that may still be growing: a
// line without its newline yet stays pending until the rest arrives.
type lineReader struct {
	f       *os.File
	br      *bufio.Reader
	pending []byte
	skip    bool // the pending line grew past maxEntry: drop until newline
}

func openLines(path string) (*lineReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &lineReader{f: f, br: bufio.NewReaderSize(f, 64<<10)}, nil
}

// next returns the next whole line without its newline; ok is false at
// the end of what is written so far. The line is valid until the next call.
func (r *lineReader) next() (line []byte, ok bool, err error) {
	for {
		frag, err := r.br.ReadSlice('\n')
		if !r.skip {
			r.pending = append(r.pending, frag...)
		}
		switch {
		case err == nil:
			line, skipped := r.pending, r.skip
			r.pending, r.skip = r.pending[:0], false
			if skipped {
				continue
			}
			return line[:len(line)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(r.pending) > maxEntry {
				r.pending, r.skip = r.pending[:0], true
			}
		case errors.Is(err, io.EOF):
			r.br.Reset(r.f) // later reads see what is appended
			return nil, false, nil
		default:
			return nil, false, fmt.Errorf("read %s: %w", r.f.Name(), err)
		}
	}
}

func (r *lineReader) close() { r.f.Close() }

// rotated lists path's rotated files, oldest first (path.N ... path.1).
func rotated(path string) ([]string, error) {
	matches, err := filepath.Glob(globEscape(path) + ".*")
	if err != nil {
		return nil, fmt.Errorf("list rotated logs of %s: %w", path, err)
	}
	type numbered struct {
		n    int
		path string
	}
	var files []numbered
	for _, m := range matches {
		n, err := strconv.Atoi(strings.TrimPrefix(m, path+"."))
		if err == nil && n > 0 {
			files = append(files, numbered{n, m})
		}
	}
	slices.SortFunc(files, func(a, b numbered) int { return b.n - a.n })
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out, nil
}

func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// sameFile reports whether path still names the file r reads.
func (r *lineReader) sameFile(path string) bool {
	a, err1 := r.f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

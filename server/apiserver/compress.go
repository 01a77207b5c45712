package apiserver

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// Discovery and OpenAPI documents are served gzip'd to clients that accept
// it (kubectl does, through Go's transport): the OpenAPI document of the
// core group is ~300 KB of JSON and ~55 KB gzip'd, which matters on the
// slow links edge clusters sit behind. Each is compressed once.

// minGzipBytes: smaller documents are not worth a Content-Encoding.
const minGzipBytes = 1024

// acceptsGzip reports whether Accept-Encoding allows gzip (q=0 refuses).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !ok {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// writeGzipped answers with a document kept gzip'd: as it is to a client
// that accepts gzip, inflated on the way out to one that does not.
func writeGzipped(w http.ResponseWriter, r *http.Request, contentType string, gz []byte) {
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(gz)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil { // our own compression: cannot happen
		http.Error(w, "corrupt document", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, zr)
}

// smallDoc is a document kept as it is, gzip'd on first demand.
type smallDoc struct {
	raw  []byte
	once sync.Once
	gz   []byte
}

func newSmallDoc(raw []byte) *smallDoc { return &smallDoc{raw: raw} }

func (d *smallDoc) write(w http.ResponseWriter, r *http.Request, contentType string) {
	if len(d.raw) < minGzipBytes || !acceptsGzip(r) {
		w.Header().Add("Vary", "Accept-Encoding")
		writeRaw(w, http.StatusOK, contentType, d.raw)
		return
	}
	d.once.Do(func() { d.gz = gzipBytes(d.raw) })
	writeGzipped(w, r, contentType, d.gz)
}

// lazyDoc is a document built on its first request and kept gzip'd only.
// hash names it in URLs and ETags; it is computed from what the document
// is built from, so that listing documents builds none of them.
type lazyDoc struct {
	hash  string
	build func() ([]byte, error)
	// prebuilt, when set, gives the document gzip'd as it was built with
	// the code (nil when it was not), sparing the build.
	prebuilt func() []byte
	once     sync.Once
	gz       []byte
	err      error
}

func (d *lazyDoc) get() ([]byte, error) {
	d.once.Do(func() {
		if d.prebuilt != nil {
			if d.gz = d.prebuilt(); d.gz != nil {
				d.build, d.prebuilt = nil, nil
				return
			}
		}
		raw, err := d.build()
		d.build = nil // release what the builder holds
		if err != nil {
			d.err = err
			return
		}
		d.gz = gzipBytes(raw)
		// Building took several times the document's size in short-lived
		// memory (16 MB for the v2 protobuf), once in the server's life.
		// An idle server would keep it from the OS until its next GC
		// cycles: give it back now, after the answer rather than before.
		go debug.FreeOSMemory()
	})
	return d.gz, d.err
}

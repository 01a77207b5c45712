package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/internal/periodic"
)

// ImageImporter loads image tarballs and lists what is present;
// *runtime.Containerd has it.
type ImageImporter interface {
	ImportImages(ctx context.Context, r io.Reader) ([]runtime.Image, error)
	ListImages(ctx context.Context) ([]runtime.Image, error)
}

// imageDir imports the airgap tarballs in <data-dir>/agent/images: each
// file once, and again when its size or modification time changes. Hidden
// files and names ending in .tmp or .part are skipped, so a tarball being
// copied in (cp to a temporary name, then mv) is not read half-written.
// What was imported is recorded in recordPath, so a restart does not read
// a Pi's SD card through every tarball again: a recorded file is imported
// only if it changed or one of its images is no longer in containerd.
type imageDir struct {
	dir        string
	recordPath string
	rt         ImageImporter
	logger     *slog.Logger
	seen       map[string]importRecord
	checked    bool // recorded images were compared with containerd's
}

// importRecord is what the record keeps per tarball.
type importRecord struct {
	Size   int64     `json:"size"`
	MTime  time.Time `json:"mtime"`
	Images []string  `json:"images,omitempty"`
}

func newImageDir(dir, recordPath string, rt ImageImporter, logger *slog.Logger) *imageDir {
	d := &imageDir{dir: dir, recordPath: recordPath, rt: rt, logger: logger, seen: map[string]importRecord{}}
	if b, err := os.ReadFile(recordPath); err == nil {
		if err := json.Unmarshal(b, &d.seen); err != nil {
			logger.Warn("imported images record unreadable, importing every tarball again", "file", recordPath, "err", err)
			d.seen = map[string]importRecord{}
		}
	}
	return d
}

// scan imports every new or changed tarball and returns how many it
// imported. Failures are logged and not retried until the file changes.
func (d *imageDir) scan(ctx context.Context) int {
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		if !os.IsNotExist(err) {
			d.logger.Warn("read images folder", "dir", d.dir, "err", err)
		}
		return 0
	}
	d.forgetMissingImages(ctx)
	n := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || skipImageFile(name) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		rec := importRecord{Size: info.Size(), MTime: info.ModTime().UTC()}
		if old, ok := d.seen[name]; ok && old.Size == rec.Size && old.MTime.Equal(rec.MTime) {
			continue
		}
		rec.Images, err = d.importFile(ctx, filepath.Join(d.dir, name))
		d.seen[name] = rec
		if err != nil {
			d.logger.Error("import image tarball", "file", name, "err", err)
			continue
		}
		n++
	}
	if n > 0 {
		d.save()
	}
	return n
}

// forgetMissingImages, once per start, drops the record of tarballs whose
// images containerd no longer has (removed by hand, or a new containerd).
func (d *imageDir) forgetMissingImages(ctx context.Context) {
	if d.checked || len(d.seen) == 0 {
		return
	}
	present, err := d.rt.ListImages(ctx)
	if err != nil {
		d.logger.Warn("list images", "err", err)
		return
	}
	d.checked = true
	have := make(map[string]bool, len(present))
	for _, im := range present {
		have[im.Name] = true
	}
	for name, rec := range d.seen {
		for _, im := range rec.Images {
			if !have[im] {
				delete(d.seen, name)
				break
			}
		}
	}
}

func (d *imageDir) save() {
	b, err := json.Marshal(d.seen)
	if err == nil {
		err = writeFileAtomic(d.recordPath, b, 0o600)
	}
	if err != nil {
		d.logger.Warn("record imported images", "file", d.recordPath, "err", err)
	}
}

func skipImageFile(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".tmp") || strings.HasSuffix(name, ".part")
}

func (d *imageDir) importFile(ctx context.Context, path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	imgs, err := d.rt.ImportImages(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	names := make([]string, 0, len(imgs))
	for _, im := range imgs {
		names = append(names, im.Name)
	}
	d.logger.Info("imported image tarball", "file", filepath.Base(path), "images", names)
	return names, nil
}

// watch scans every interval until ctx ends.
func (d *imageDir) watch(ctx context.Context, interval time.Duration) {
	periodic.Every(ctx, interval, func() { d.scan(ctx) })
}

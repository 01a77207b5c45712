package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// ImageImporter loads image tarballs; *runtime.Containerd has it.
type ImageImporter interface {
	ImportImages(ctx context.Context, r io.Reader) ([]runtime.Image, error)
}

// imageDir imports the airgap tarballs in <data-dir>/agent/images: each
// file once, and again when its size or modification time changes. Hidden
// files and names ending in .tmp or .part are skipped, so a tarball being
// copied in (cp to a temporary name, then mv) is not read half-written.
type imageDir struct {
	dir    string
	rt     ImageImporter
	logger *slog.Logger
	seen   map[string]fileStamp
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

func newImageDir(dir string, rt ImageImporter, logger *slog.Logger) *imageDir {
	return &imageDir{dir: dir, rt: rt, logger: logger, seen: map[string]fileStamp{}}
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
		stamp := fileStamp{size: info.Size(), mtime: info.ModTime()}
		if d.seen[name] == stamp {
			continue
		}
		d.seen[name] = stamp
		if err := d.importFile(ctx, filepath.Join(d.dir, name)); err != nil {
			d.logger.Error("import image tarball", "file", name, "err", err)
			continue
		}
		n++
	}
	return n
}

func skipImageFile(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".tmp") || strings.HasSuffix(name, ".part")
}

func (d *imageDir) importFile(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	imgs, err := d.rt.ImportImages(ctx, f)
	if err != nil {
		return fmt.Errorf("import %s: %w", path, err)
	}
	names := make([]string, 0, len(imgs))
	for _, im := range imgs {
		names = append(names, im.Name)
	}
	d.logger.Info("imported image tarball", "file", filepath.Base(path), "images", names)
	return nil
}

// watch scans every interval until ctx ends.
func (d *imageDir) watch(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			d.scan(ctx)
		}
	}
}

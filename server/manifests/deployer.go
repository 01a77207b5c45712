// Package manifests applies the YAML files of <data-dir>/server/manifests
// at start and whenever they change, as k3s's deploy controller does, so
// a machine image can ship its apps. See docs/MANIFESTS.md.
package manifests

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/server/registry"
)

// FieldManager owns what the deployer applies (server-side apply).
const FieldManager = "bramble-deploy"

// DefaultInterval is how often the folder is read for changes.
const DefaultInterval = 10 * time.Second

// Config of a Deployer; zero values get defaults.
type Config struct {
	Dir      string // the folder, <data-dir>/server/manifests
	Interval time.Duration
	Log      *slog.Logger
}

// Deployer watches one folder and applies it through the registry.
type Deployer struct {
	cfg    Config
	reg    *registry.Registry
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New makes a Deployer of cfg.Dir writing through reg.
func New(reg *registry.Registry, cfg Config) *Deployer {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	cfg.Log = cfg.Log.With("component", "manifests", "dir", cfg.Dir)
	return &Deployer{cfg: cfg, reg: reg}
}

// Start applies the folder now and then every Interval, until Stop.
func (d *Deployer) Start(ctx context.Context) {
	ctx, d.cancel = context.WithCancel(ctx)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		t := time.NewTicker(d.cfg.Interval)
		defer t.Stop()
		for {
			if err := d.Sync(ctx); err != nil && ctx.Err() == nil {
				d.cfg.Log.Error("manifests not applied", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// Stop ends the loop and waits for a pass under way.
func (d *Deployer) Stop() {
	if d.cancel != nil {
		d.cancel()
	}
	d.wg.Wait()
}

// Sync makes the cluster follow the folder once: new and changed files
// are applied, removed files delete the objects that opted in. A file
// with errors is tried again on every pass; its error is logged when it
// changes and kept in its record.
func (d *Deployer) Sync(ctx context.Context) error {
	files, skipped, err := readDir(d.cfg.Dir)
	if err != nil {
		return err
	}
	records, err := loadRecords(ctx, d.reg)
	if err != nil {
		return err
	}
	var changed []File
	present := map[string]bool{}
	for _, f := range files {
		present[f.Name] = true
		if rec, ok := records[f.Name]; !ok || rec.Hash != f.Hash {
			changed = append(changed, f)
		}
	}
	if err := d.applyFiles(ctx, changed, records); err != nil {
		return err
	}
	for name, rec := range records {
		if !present[name] && !skipped[name] {
			if err := d.removeFile(ctx, rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyFiles applies the documents of files in dependency order, prunes
// what left them, and records each file's outcome.
func (d *Deployer) applyFiles(ctx context.Context, files []File, records map[string]record) error {
	if len(files) == 0 {
		return nil
	}
	out := map[string]*outcome{}
	for _, f := range files {
		out[f.Name] = &outcome{}
	}
	for _, doc := range ordered(files) {
		r, err := d.apply(ctx, doc)
		out[doc.File].add(doc, r, err)
	}
	for _, f := range files {
		o, prev := out[f.Name], records[f.Name]
		if o.decodeOK() {
			o.errs = append(o.errs, d.prune(ctx, prev.Objects, o.wanted)...)
		}
		if err := d.finish(ctx, o.record(f, prev), prev); err != nil {
			return err
		}
	}
	return nil
}

// removeFile deletes the objects of a removed file that opted in, then
// its record.
func (d *Deployer) removeFile(ctx context.Context, rec record) error {
	errs := d.prune(ctx, rec.Objects, nil)
	if len(errs) > 0 {
		d.cfg.Log.Error("manifest removed: objects not deleted", "file", rec.File, "err", fmt.Sprint(errs))
		return nil // tried again on the next pass
	}
	d.cfg.Log.Info("manifest removed", "file", rec.File)
	return dropRecord(ctx, d.reg, rec.File)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

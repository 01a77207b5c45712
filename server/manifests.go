package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bramble-edge/bramble/server/manifests"
)

// ManifestsDir is where a server's auto-deploying manifests live.
func ManifestsDir(dataDir string) string { return filepath.Join(dataDir, "server", "manifests") }

// startManifests creates <data-dir>/server/manifests and applies it at
// start and on change, unless --disable-manifests.
func (s *Server) startManifests(bg context.Context, cfg Config) error {
	if cfg.DisableManifests {
		return nil
	}
	dir := ManifestsDir(cfg.DataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("manifests folder: %w", err)
	}
	d := manifests.New(s.Registry, manifests.Config{Dir: dir, Interval: cfg.ManifestsInterval, Log: s.log})
	d.Start(bg)
	s.stops = append(s.stops, d.Stop)
	return nil
}

package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/viewers"
)

// AdminKubeconfigPath is the admin kubeconfig the server also keeps in its
// data dir (as k3s keeps server/cred/admin.kubeconfig), for the commands
// run on the server that reach the API without being told where it is:
// `bramble mqtt credentials`.
func AdminKubeconfigPath(dataDir string) string {
	return filepath.Join(dataDir, "server", "cred", "admin.kubeconfig")
}

// writeAdminKubeconfig writes AdminKubeconfigPath, 0600.
func (s *Server) writeAdminKubeconfig(cfg Config) error {
	path := AdminKubeconfigPath(cfg.DataDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("admin kubeconfig: %w", err)
	}
	if err := s.PKI.WriteKubeconfig(path, 0o600, s.URL); err != nil {
		return fmt.Errorf("admin kubeconfig %s: %w", path, err)
	}
	return nil
}

// startViewerRecords follows the record of viewer credentials: the broker
// and the API accept a viewer certificate only while it is on record, and
// the broker drops a revoked viewer's sessions at once.
func (s *Server) startViewerRecords(bg context.Context, store datastore.Store, side *mqttSide) (*viewers.Registry, error) {
	reg := viewers.NewRegistry(store, side.revokeViewer, s.log.With("component", "viewer-credentials"))
	if err := reg.Start(bg); err != nil {
		return nil, fmt.Errorf("viewer credentials: %w", err)
	}
	s.stops = append(s.stops, reg.Stop)
	side.viewerCheck = reg.Check
	return reg, nil
}

// revokeViewer drops a revoked viewer's live sessions on the embedded
// broker.
func (m *mqttSide) revokeViewer(name string) {
	if b := m.broker.Load(); b != nil {
		b.RevokeViewer(name)
	}
}

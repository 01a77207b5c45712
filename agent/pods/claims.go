package pods

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// ClaimLookup finds the volume bound to the claim namespace/name: an
// error says why there is none to mount yet (missing, not bound, the
// volume not on this node), and the pod waits, retried every sync.
type ClaimLookup func(ctx context.Context, namespace, name string) (*corev1.PersistentVolume, error)

// claimVolume prepares a persistentVolumeClaim volume: the host directory
// of the volume bound to it, mounted by bind mount like a hostPath. A
// local-path directory is made here, on first use (the server never
// touches a node's disk), open to every user as k3s's provisioner makes
// it; a local volume's path must exist, as upstream's.
func (v *volumes) claimVolume(ctx context.Context, ns string, vol *corev1.Volume) error {
	src := vol.PersistentVolumeClaim
	v.apiRO[vol.Name] = src.ReadOnly
	if v.claims == nil {
		return fmt.Errorf("persistentVolumeClaim volumes are not supported by this agent")
	}
	pv, err := v.claims(ctx, ns, src.ClaimName)
	if err != nil {
		return err
	}
	switch s := &pv.Spec.PersistentVolumeSource; {
	case s.HostPath != nil && pv.Annotations[api.AnnotationProvisionedBy] == api.ProvisionerLocalPath:
		v.paths[vol.Name] = s.HostPath.Path
		return makeLocalPathDir(s.HostPath.Path)
	case s.HostPath != nil:
		v.paths[vol.Name] = s.HostPath.Path
		return checkHostPath(s.HostPath)
	case s.Local != nil:
		v.paths[vol.Name] = s.Local.Path
		if _, err := os.Stat(s.Local.Path); err != nil {
			return fmt.Errorf("local volume %s: %w", pv.Name, err)
		}
		return nil
	}
	return fmt.Errorf("persistent volume %s: only hostPath and local volumes can be mounted", pv.Name)
}

// makeLocalPathDir makes a missing local-path directory, mode 0777.
func makeLocalPathDir(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("local-path directory %q is not absolute", dir)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("make local-path directory: %w", err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		return fmt.Errorf("make local-path directory: %w", err)
	}
	return nil
}

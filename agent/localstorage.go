package agent

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt"
)

// localStorage is the node's side of the local-path provisioner
// (docs/STORAGE.md): the folder its volumes live in, reported on the Node
// with its filesystem's size so the scheduler does not place more claims
// than it holds, and the removal of a directory once the server has
// deleted its volume (reclaimPolicy Delete). The directories themselves
// are made when a pod first mounts them (agent/pods/claims.go).
type localStorage struct {
	base string
	node string
	log  *slog.Logger
}

// newLocalStorage makes the folder (0755) if it is missing.
func newLocalStorage(base, node string, log *slog.Logger) (*localStorage, error) {
	if !filepath.IsAbs(base) {
		return nil, fmt.Errorf("--default-local-storage-path: %q is not absolute", base)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("--default-local-storage-path: %w", err)
	}
	return &localStorage{base: filepath.Clean(base), node: node, log: log}, nil
}

// annotations are what the heartbeat puts on the Node: the folder and the
// size in bytes of its filesystem (left out when it cannot be read).
func (l *localStorage) annotations() map[string]string {
	out := map[string]string{api.AnnotationLocalStoragePath: l.base}
	var st unix.Statfs_t
	if err := unix.Statfs(l.base, &st); err == nil {
		out[api.AnnotationLocalStorageCapacity] = strconv.FormatUint(st.Blocks*uint64(st.Bsize), 10)
	}
	return out
}

// volumesGone removes the directories of the deleted volumes that were
// provisioned here with reclaimPolicy Delete; Retain keeps them, and so
// does anything that is not a directory right under the folder.
func (l *localStorage) volumesGone(gone []json.RawMessage) {
	for _, raw := range gone {
		var pv corev1.PersistentVolume
		if err := json.Unmarshal(raw, &pv); err != nil {
			l.log.Warn("deleted persistent volume: cannot decode; its directory is kept", "err", err)
			continue
		}
		dir, ok := l.reclaimable(&pv)
		if !ok {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			l.log.Warn("remove local-path directory", "volume", pv.Name, "dir", dir, "err", err)
			continue
		}
		l.log.Info("removed local-path directory of a deleted volume", "volume", pv.Name, "dir", dir)
	}
}

// reclaimable is the directory of pv to remove, if it is ours to remove.
func (l *localStorage) reclaimable(pv *corev1.PersistentVolume) (string, bool) {
	if pv.Annotations[api.AnnotationProvisionedBy] != api.ProvisionerLocalPath || api.LocalPathNode(pv) != l.node ||
		pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete || pv.Spec.HostPath == nil {
		return "", false
	}
	dir := filepath.Clean(pv.Spec.HostPath.Path)
	if filepath.Dir(dir) != l.base || !strings.HasPrefix(filepath.Base(dir), "pvc-") {
		l.log.Warn("deleted local-path volume outside the storage folder; its directory is kept", "volume", pv.Name, "dir", dir, "folder", l.base)
		return "", false
	}
	return dir, true
}

// volumesIn lists the volumes a store holds, for noticing which go.
func volumesIn(s *Store) map[mqtt.ObjectRef]json.RawMessage {
	return s.List(mqtt.ResourceVolumes)
}

// goneSince lists the volumes of before that s no longer holds.
func goneSince(s *Store, before map[mqtt.ObjectRef]json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for ref, raw := range before {
		if _, ok := s.Get(ref); !ok {
			out = append(out, raw)
		}
	}
	return out
}

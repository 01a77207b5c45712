package pods

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// podDir is where a pod's volumes and logs live.
func podDir(dataDir string, uid types.UID) string {
	return filepath.Join(dataDir, "agent", "pods", string(uid))
}

// volumes turns a pod's volumes into host directories under
// <pod dir>/volumes/<name> (hostPath volumes stay where they are).
type volumes struct {
	dir    string
	lookup Lookup
	paths  map[string]string
	tmpfs  map[string]bool
	apiRO  map[string]bool // configMap, secret, projected, downwardAPI: mounted read-only
	log    *slog.Logger
	nodeIP string      // for downward API files (status.podIP, status.hostIP)
	claims ClaimLookup // persistentVolumeClaim volumes (claims.go); nil: none
	tokens TokenSource // serviceAccountToken projections; nil refuses them
}

func newVolumes(dataDir string, uid types.UID, lookup Lookup) *volumes {
	return &volumes{dir: podDir(dataDir, uid), lookup: lookup, paths: map[string]string{}, tmpfs: map[string]bool{}, apiRO: map[string]bool{},
		log: slog.New(slog.DiscardHandler)}
}

// prepare makes every volume present; configMap and secret volumes are
// rewritten (atomically) when their object changed.
func (v *volumes) prepare(ctx context.Context, pod *corev1.Pod) error {
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		if err := v.prepareOne(ctx, pod, vol); err != nil {
			return fmt.Errorf("volume %s: %w", vol.Name, err)
		}
	}
	return nil
}

func (v *volumes) prepareOne(ctx context.Context, pod *corev1.Pod, vol *corev1.Volume) error {
	dir, ns := filepath.Join(v.dir, "volumes", vol.Name), pod.Namespace
	// As the kubelet does, API data volumes are always mounted read-only:
	// a container's writes would be lost at the next update.
	v.apiRO[vol.Name] = vol.ConfigMap != nil || vol.Secret != nil || vol.Projected != nil || vol.DownwardAPI != nil
	switch {
	case vol.HostPath != nil:
		v.paths[vol.Name] = vol.HostPath.Path
		return checkHostPath(vol.HostPath)
	case vol.EmptyDir != nil:
		v.paths[vol.Name] = dir
		return v.emptyDir(dir, vol.EmptyDir)
	case vol.ConfigMap != nil:
		v.paths[vol.Name] = dir
		s := vol.ConfigMap
		return v.objectVolume(ctx, dir, KindConfigMap, ns, s.Name, s.Items, s.DefaultMode, s.Optional, 0o644)
	case vol.Secret != nil:
		v.paths[vol.Name] = dir
		s := vol.Secret
		return v.objectVolume(ctx, dir, KindSecret, ns, s.SecretName, s.Items, s.DefaultMode, s.Optional, 0o600)
	case vol.Projected != nil:
		v.paths[vol.Name] = dir
		return v.projected(ctx, pod, dir, vol.Projected)
	case vol.DownwardAPI != nil:
		v.paths[vol.Name] = dir
		return v.downwardAPI(pod, dir, vol.DownwardAPI)
	case vol.PersistentVolumeClaim != nil:
		return v.claimVolume(ctx, ns, vol)
	}
	return fmt.Errorf("only hostPath, emptyDir, configMap, secret, projected, downwardAPI and persistentVolumeClaim volumes are supported")
}

// emptyDir makes the directory; medium Memory mounts a tmpfs when the
// agent may mount, and falls back to a plain directory otherwise.
func (v *volumes) emptyDir(dir string, src *corev1.EmptyDirVolumeSource) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("make emptyDir: %w", err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		return fmt.Errorf("chmod emptyDir: %w", err)
	}
	if src.Medium != corev1.StorageMediumMemory {
		return nil
	}
	opts := "mode=0777"
	if src.SizeLimit != nil && !src.SizeLimit.IsZero() {
		opts += fmt.Sprintf(",size=%d", src.SizeLimit.Value())
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		v.log.Warn("emptyDir medium Memory: cannot mount tmpfs, using a directory on disk", "dir", dir, "err", err)
		return nil
	}
	v.tmpfs[dir] = true
	return nil
}

// hostPathChecks test an existing path against a hostPath type.
var hostPathChecks = map[corev1.HostPathType]func(fs.FileMode) bool{
	corev1.HostPathDirectory: fs.FileMode.IsDir,
	corev1.HostPathFile:      fs.FileMode.IsRegular,
	corev1.HostPathSocket:    func(m fs.FileMode) bool { return m&fs.ModeSocket != 0 },
	corev1.HostPathCharDev:   func(m fs.FileMode) bool { return m&fs.ModeCharDevice != 0 },
	corev1.HostPathBlockDev:  func(m fs.FileMode) bool { return m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0 },
}

// checkHostPath applies the hostPath type: create or check the path.
func checkHostPath(h *corev1.HostPathVolumeSource) error {
	t := corev1.HostPathUnset
	if h.Type != nil {
		t = *h.Type
	}
	if !filepath.IsAbs(h.Path) {
		return fmt.Errorf("hostPath.path %q is not absolute", h.Path)
	}
	switch t {
	case corev1.HostPathDirectoryOrCreate, corev1.HostPathFileOrCreate:
		return createHostPath(h.Path, t == corev1.HostPathDirectoryOrCreate)
	case corev1.HostPathUnset:
		// As containerd's CRI does: a missing path becomes a directory.
		if _, err := os.Lstat(h.Path); errors.Is(err, fs.ErrNotExist) {
			return createHostPath(h.Path, true)
		}
		return nil
	}
	fi, err := os.Stat(h.Path)
	if err != nil {
		return fmt.Errorf("hostPath type %s: %w", t, err)
	}
	want := hostPathChecks[t]
	if want == nil {
		return fmt.Errorf("hostPath type %q is unknown", t)
	}
	if !want(fi.Mode()) {
		return fmt.Errorf("hostPath %s: is not a %s", h.Path, t)
	}
	return nil
}

// createHostPath makes a missing hostPath directory, or an empty file
// (with its parents).
func createHostPath(path string, dir bool) error {
	if dir {
		return os.MkdirAll(path, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("hostPath %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		return fmt.Errorf("hostPath %s: %w", path, err)
	}
	return f.Close()
}

// mounts maps a container's volumeMounts to host paths, subPath and
// subPathExpr (expanded from the container's env) included.
func (v *volumes) mounts(c *corev1.Container, env []runtime.EnvVar) ([]runtime.Mount, error) {
	var out []runtime.Mount
	for _, vm := range c.VolumeMounts {
		host, ok := v.paths[vm.Name]
		if !ok {
			return nil, fmt.Errorf("volumeMount %s: no volume of that name", vm.Name)
		}
		sub := vm.SubPath
		if vm.SubPathExpr != "" {
			sub = expandEnv(vm.SubPathExpr, env)
		}
		if sub != "" {
			p, err := subPath(host, sub)
			if err != nil {
				return nil, fmt.Errorf("volumeMount %s: %w", vm.Name, err)
			}
			host = p
		}
		out = append(out, runtime.Mount{HostPath: host, ContainerPath: vm.MountPath, ReadOnly: vm.ReadOnly || v.apiRO[vm.Name]})
	}
	return out, nil
}

// subPath resolves sub inside base, creating a missing directory, and
// refuses a path (or symlink) that leads out of base.
func subPath(base, sub string) (string, error) {
	if filepath.IsAbs(sub) || strings.HasPrefix(filepath.Clean(sub), "..") {
		return "", fmt.Errorf("subPath %q must be relative and stay inside the volume", sub)
	}
	p := filepath.Join(base, sub)
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return "", fmt.Errorf("make subPath: %w", err)
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("subPath %q: %w", sub, err)
	}
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return "", fmt.Errorf("volume of subPath %q: %w", sub, err)
	}
	if real != realBase && !strings.HasPrefix(real, realBase+string(filepath.Separator)) {
		return "", fmt.Errorf("subPath %q leads out of the volume", sub)
	}
	return real, nil
}

// cleanup unmounts tmpfs volumes and removes the pod's directory.
func (v *volumes) cleanup() error {
	// Unmount every volume dir that is a mount point (tmpfs), including
	// those a previous agent mounted; EINVAL means "not a mount point".
	entries, _ := os.ReadDir(filepath.Join(v.dir, "volumes"))
	for _, e := range entries {
		dir := filepath.Join(v.dir, "volumes", e.Name())
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
			return fmt.Errorf("unmount %s: %w", dir, err)
		}
	}
	if err := os.RemoveAll(v.dir); err != nil {
		return fmt.Errorf("remove pod dir: %w", err)
	}
	return nil
}

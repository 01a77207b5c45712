package pods

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	corev1 "k8s.io/api/core/v1"
)

// Permission bits the kubelet adds for fsGroup: group read-write (read
// only for configMap, secret, projected and downwardAPI volumes), and
// group search plus setgid on directories so new files keep the group.
const (
	fsGroupRW   fs.FileMode = 0o660
	fsGroupRO   fs.FileMode = 0o440
	fsGroupExec fs.FileMode = 0o110
)

// applyFSGroup gives the pod's volumes to its fsGroup, as the kubelet's
// SetVolumeOwnership: emptyDirs once (later files inherit the group through
// setgid), object volumes after every prepare since their files are
// rewritten; persistentVolumeClaim volumes once, as emptyDirs. hostPath
// volumes are left alone, as upstream.
func (w *worker) applyFSGroup(pod *corev1.Pod) error {
	psc := pod.Spec.SecurityContext
	if psc == nil || psc.FSGroup == nil {
		return nil
	}
	onMismatch := psc.FSGroupChangePolicy != nil && *psc.FSGroupChangePolicy == corev1.FSGroupChangeOnRootMismatch
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		readOnly, ok := fsGroupVolume(vol)
		dir := w.vols.paths[vol.Name]
		if !ok || dir == "" || (!readOnly && w.owned[vol.Name]) {
			continue
		}
		if err := setOwnership(dir, *psc.FSGroup, readOnly, onMismatch); err != nil {
			return fmt.Errorf("volume %s: fsGroup %d: %w", vol.Name, *psc.FSGroup, err)
		}
		if w.owned == nil {
			w.owned = map[string]bool{}
		}
		w.owned[vol.Name] = true
	}
	return nil
}

// fsGroupVolume says whether fsGroup applies to a volume and whether its
// files are given read-only.
func fsGroupVolume(vol *corev1.Volume) (readOnly, ok bool) {
	switch {
	case vol.EmptyDir != nil, vol.PersistentVolumeClaim != nil:
		return false, true
	case vol.ConfigMap != nil, vol.Secret != nil, vol.Projected != nil, vol.DownwardAPI != nil:
		return true, true
	}
	return false, false
}

// setOwnership walks dir giving every entry the group gid and the group
// bits; with onMismatch nothing happens when the root already has them.
func setOwnership(dir string, gid int64, readOnly, onMismatch bool) error {
	mask := fsGroupRW
	if readOnly {
		mask = fsGroupRO
	}
	if onMismatch && rootOwned(dir, gid, mask) {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return chownEntry(path, d, gid, mask)
	})
}

// chownEntry gives one entry the group (its owner kept) and the bits;
// symlinks get the group only.
func chownEntry(path string, d fs.DirEntry, gid int64, mask fs.FileMode) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no ownership information", path)
	}
	if err := os.Lchown(path, int(st.Uid), int(gid)); err != nil {
		return err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	if info.IsDir() {
		mask |= fsGroupExec | fs.ModeSetgid
	}
	return os.Chmod(path, info.Mode()|mask)
}

// rootOwned is the OnRootMismatch test: the root has the group, setgid
// and the group bits.
func rootOwned(dir string, gid int64, mask fs.FileMode) bool {
	info, err := os.Stat(dir)
	if err != nil {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	want := mask | fsGroupExec | fs.ModeSetgid
	return ok && int64(st.Gid) == gid && info.Mode()&want == want
}

package pods

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// volumeFile is one file of a configMap or secret volume.
type volumeFile struct {
	data []byte
	mode fs.FileMode
}

// objectVolume writes a ConfigMap's or Secret's keys (or the chosen items)
// as files into dir.
func (v *volumes) objectVolume(ctx context.Context, dir, kind, ns, name string, items []corev1.KeyToPath, defMode *int32, optional *bool, mode fs.FileMode) error {
	files, err := v.objectFiles(ctx, kind, ns, name, items, optional, modeOr(defMode, mode))
	if err != nil {
		return err
	}
	return writeAtomic(dir, files)
}

// objectFiles are the files of a ConfigMap's or Secret's keys (or items);
// none when the object is missing and optional.
func (v *volumes) objectFiles(ctx context.Context, kind, ns, name string, items []corev1.KeyToPath, optional *bool, mode fs.FileMode) (map[string]volumeFile, error) {
	data, err := v.lookup(ctx, kind, ns, name)
	if errors.Is(err, ErrNotFound) && deref(optional) {
		data, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s/%s: %w", kind, ns, name, err)
	}
	files, err := volumeFiles(data, items, mode, deref(optional))
	if err != nil {
		return nil, fmt.Errorf("%s %s/%s: %w", kind, ns, name, err)
	}
	return files, nil
}

// modeOr is a volume's defaultMode, or def when it sets none.
func modeOr(m *int32, def fs.FileMode) fs.FileMode {
	if m == nil {
		return def
	}
	return fs.FileMode(*m) & fs.ModePerm
}

// volumeFiles picks the files: every key, or only the items given.
func volumeFiles(data map[string][]byte, items []corev1.KeyToPath, mode fs.FileMode, optional bool) (map[string]volumeFile, error) {
	files := map[string]volumeFile{}
	if len(items) == 0 {
		for k, b := range data {
			files[k] = volumeFile{b, mode}
		}
		return files, nil
	}
	for _, it := range items {
		b, ok := data[it.Key]
		if !ok {
			if optional {
				continue
			}
			return nil, fmt.Errorf("items: no key %q", it.Key)
		}
		p, err := itemPath(it.Path)
		if err != nil {
			return nil, err
		}
		files[p] = volumeFile{b, modeOr(it.Mode, mode)}
	}
	return files, nil
}

// itemPath checks an item's path: relative, inside the volume.
func itemPath(path string) (string, error) {
	p := filepath.Clean(path)
	if filepath.IsAbs(p) || p == "." || strings.HasPrefix(p, "..") {
		return "", fmt.Errorf("items: path %q must be relative, without '..'", path)
	}
	return p, nil
}

// writeAtomic publishes files in dir the way the kubelet does: a new
// "..<hash>" directory holds them, the "..data" symlink is swapped to it
// with one rename, and each top-level name is a symlink through "..data",
// so a container never sees half an update.
func writeAtomic(dir string, files map[string]volumeFile) error {
	gen := "..v" + filesHash(files)
	if cur, _ := os.Readlink(filepath.Join(dir, "..data")); cur == gen {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make volume dir: %w", err)
	}
	if err := writeGeneration(filepath.Join(dir, gen), files); err != nil {
		return err
	}
	old, _ := os.Readlink(filepath.Join(dir, "..data"))
	tmp := filepath.Join(dir, "..data_tmp")
	os.Remove(tmp)
	if err := os.Symlink(gen, tmp); err != nil {
		return fmt.Errorf("link volume data: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		return fmt.Errorf("publish volume data: %w", err)
	}
	if err := relinkTop(dir, files); err != nil {
		return err
	}
	if old != "" && old != gen {
		os.RemoveAll(filepath.Join(dir, old))
	}
	return nil
}

func writeGeneration(dir string, files map[string]volumeFile) error {
	os.RemoveAll(dir)
	for p, f := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("make volume dir: %w", err)
		}
		if err := os.WriteFile(full, f.data, f.mode); err != nil {
			return fmt.Errorf("write volume file %s: %w", p, err)
		}
		if err := os.Chmod(full, f.mode); err != nil { // past the umask
			return fmt.Errorf("chmod volume file %s: %w", p, err)
		}
	}
	return os.MkdirAll(dir, 0o755)
}

// relinkTop makes "name -> ..data/name" for each top-level name and drops
// links for names gone.
func relinkTop(dir string, files map[string]volumeFile) error {
	want := map[string]bool{}
	for p := range files {
		want[strings.SplitN(p, string(filepath.Separator), 2)[0]] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read volume dir: %w", err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "..") && !want[e.Name()] {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	for name := range want {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
			return fmt.Errorf("link volume file %s: %w", name, err)
		}
	}
	return nil
}

func filesHash(files map[string]volumeFile) string {
	h := sha256.New()
	for _, k := range sortedKeys(files) {
		fmt.Fprintf(h, "%s\x00%o\x00%d\x00", k, files[k].mode, len(files[k].data))
		h.Write(files[k].data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

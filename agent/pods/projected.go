package pods

import (
	"context"
	"fmt"
	"io/fs"
	"maps"

	corev1 "k8s.io/api/core/v1"
)

// projected writes every source of a projected volume into one directory,
// published atomically like a configMap volume (mode 0644 unless
// defaultMode, as upstream).
func (v *volumes) projected(ctx context.Context, pod *corev1.Pod, dir string, src *corev1.ProjectedVolumeSource) error {
	mode := modeOr(src.DefaultMode, 0o644)
	all := map[string]volumeFile{}
	for i := range src.Sources {
		files, err := v.projection(ctx, pod, dir, &src.Sources[i], mode)
		if err != nil {
			return fmt.Errorf("projected sources[%d]: %w", i, err)
		}
		maps.Copy(all, files)
	}
	return writeAtomic(dir, all)
}

func (v *volumes) projection(ctx context.Context, pod *corev1.Pod, dir string, s *corev1.VolumeProjection, mode fs.FileMode) (map[string]volumeFile, error) {
	switch {
	case s.ConfigMap != nil:
		c := s.ConfigMap
		return v.objectFiles(ctx, KindConfigMap, pod.Namespace, c.Name, c.Items, c.Optional, mode)
	case s.Secret != nil:
		c := s.Secret
		return v.objectFiles(ctx, KindSecret, pod.Namespace, c.Name, c.Items, c.Optional, mode)
	case s.DownwardAPI != nil:
		return downwardFiles(pod, s.DownwardAPI.Items, mode, v.nodeIP)
	case s.ServiceAccountToken != nil:
		return v.tokenFile(ctx, pod, dir, s.ServiceAccountToken, mode)
	case s.ClusterTrustBundle != nil:
		return nil, fmt.Errorf("clusterTrustBundle (path %q) is not supported", s.ClusterTrustBundle.Path)
	}
	return nil, fmt.Errorf("a source needs one of configMap, secret, downwardAPI or serviceAccountToken")
}

// downwardAPI writes a downwardAPI volume's items (mode 0644 unless
// defaultMode). Labels and annotations are rewritten when they change.
func (v *volumes) downwardAPI(pod *corev1.Pod, dir string, src *corev1.DownwardAPIVolumeSource) error {
	files, err := downwardFiles(pod, src.Items, modeOr(src.DefaultMode, 0o644), v.nodeIP)
	if err != nil {
		return err
	}
	return writeAtomic(dir, files)
}

// downwardFiles resolves downward API items into files.
func downwardFiles(pod *corev1.Pod, items []corev1.DownwardAPIVolumeFile, mode fs.FileMode, nodeIP string) (map[string]volumeFile, error) {
	files := map[string]volumeFile{}
	for _, it := range items {
		p, err := itemPath(it.Path)
		if err != nil {
			return nil, err
		}
		var val string
		switch {
		case it.FieldRef != nil:
			val, err = fieldRef(pod, it.FieldRef.FieldPath, nodeIP)
		case it.ResourceFieldRef != nil:
			val, err = resourceField(pod, it.ResourceFieldRef.ContainerName, it.ResourceFieldRef)
		default:
			err = fmt.Errorf("needs fieldRef or resourceFieldRef")
		}
		if err != nil {
			return nil, fmt.Errorf("items %s: %w", it.Path, err)
		}
		files[p] = volumeFile{[]byte(val), modeOr(it.Mode, mode)}
	}
	return files, nil
}

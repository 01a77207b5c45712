package pods

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
)

// TokenSource gives a pod the ServiceAccount token a serviceAccountToken
// projection asks for (the agent requests it from the API and renews it
// before 80 % of its life; see agent/satokens.go).
type TokenSource interface {
	Token(ctx context.Context, pod *corev1.Pod, p *corev1.ServiceAccountTokenProjection) ([]byte, error)
}

// tokenFile is the file of a serviceAccountToken projection. When no
// fresh token can be had (the server is unreachable, as after a reboot
// offline) the token the volume already holds is kept, so the pod still
// starts; without one the volume fails and is tried again.
func (v *volumes) tokenFile(ctx context.Context, pod *corev1.Pod, dir string, p *corev1.ServiceAccountTokenProjection, mode fs.FileMode) (map[string]volumeFile, error) {
	path, err := itemPath(p.Path)
	if err != nil {
		return nil, fmt.Errorf("serviceAccountToken: %w", err)
	}
	if v.tokens == nil {
		return nil, fmt.Errorf("serviceAccountToken (path %q): this agent has no token source", p.Path)
	}
	token, err := v.tokens.Token(ctx, pod, p)
	if err != nil {
		old, rerr := os.ReadFile(filepath.Join(dir, path))
		if rerr != nil || len(old) == 0 {
			return nil, fmt.Errorf("serviceAccountToken (path %q): %w", p.Path, err)
		}
		v.log.Warn("service account token not renewed; keeping the one the volume holds", "path", p.Path, "err", err)
		token = old
	}
	return map[string]volumeFile{path: {token, mode}}, nil
}

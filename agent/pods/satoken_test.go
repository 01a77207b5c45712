package pods

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// tokens is a TokenSource answering token, or err when set.
type tokens struct {
	token string
	err   error
}

func (s *tokens) Token(context.Context, *corev1.Pod, *corev1.ServiceAccountTokenProjection) ([]byte, error) {
	return []byte(s.token), s.err
}

// TestProjectedTokenKeptWhenServerUnreachable: the token is written into
// the projected volume; when no new one can be had the one held stays (a
// pod restarted offline starts), and a volume that never had one fails.
func TestProjectedTokenKeptWhenServerUnreachable(t *testing.T) {
	dir := t.TempDir()
	src := &tokens{token: "jwt-1"}
	v := newVolumes(dir, "uid-1", (&fakeStore{}).lookup)
	v.tokens = src
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Volumes = []corev1.Volume{{Name: "kube-api-access-x", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}}}
	file := filepath.Join(podDir(dir, "uid-1"), "volumes", "kube-api-access-x", "token")
	read := func() string {
		t.Helper()
		if err := v.prepare(context.Background(), pod); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read(); got != "jwt-1" {
		t.Fatalf("token file %q, want jwt-1", got)
	}
	src.token, src.err = "", errors.New("server unreachable")
	if got := read(); got != "jwt-1" {
		t.Fatalf("offline: token file %q, want the held jwt-1", got)
	}
	fresh := newVolumes(t.TempDir(), "uid-2", (&fakeStore{}).lookup)
	fresh.tokens = src
	if err := fresh.prepare(context.Background(), pod); err == nil {
		t.Fatal("a token volume with no token and no server was prepared")
	}
}

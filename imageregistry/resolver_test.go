package imageregistry

import (
	"strings"
	"testing"
)

func TestNormalizeRef(t *testing.T) {
	for in, want := range map[string]string{
		"busybox":                     "docker.io/library/busybox:latest",
		"busybox:1.36":                "docker.io/library/busybox:1.36",
		"me/app":                      "docker.io/me/app:latest",
		"registry.lan:5000/app:v1":    "registry.lan:5000/app:v1",
		"docker.io/library/busybox:t": "docker.io/library/busybox:t",
		"busybox@sha256:" + strings.Repeat("a", 64): "docker.io/library/busybox@sha256:" + strings.Repeat("a", 64),
	} {
		got, err := NormalizeRef(in)
		if err != nil || got != want {
			t.Errorf("NormalizeRef(%q): got %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "repo/UPPER", "a b"} {
		if _, err := NormalizeRef(bad); err == nil {
			t.Errorf("NormalizeRef(%q): got nil error, want one", bad)
		}
	}
}

// testWriter sends a logger's lines to the test's log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

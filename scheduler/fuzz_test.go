package scheduler

import (
	"strings"
	"testing"
)

// The bramble.io/image-platforms annotation comes from agents over the
// network; whatever it holds must not crash the scheduler, and what it
// yields must be normalized.
func FuzzParsePlatformAnnotation(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `{"nginx": ["linux/amd64", "linux/arm/v7"]}`, `{"a": []}`, `{"": ["linux/arm64"]}`,
		`{"x": ["linux"]}`, `{"x": ["linux/arm/v7/extra", "/arm64"]}`, `not json`, `{"x": "linux/amd64"}`, `[1,2]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		out, ok := parsePlatformAnnotation(value)
		if !ok && out != nil {
			t.Fatalf("malformed annotation: got %v, want nothing", out)
		}
		for img, list := range out {
			if img == "" || img != normalizeImage(img) {
				t.Fatalf("image %q is not normalized", img)
			}
			for _, p := range list {
				if p.os == "" || p.arch == "" || strings.Contains(p.arch, "/") {
					t.Fatalf("platform %+v of %q is malformed", p, img)
				}
			}
		}
	})
}

// Image references come from pod specs and node status.
func FuzzNormalizeImage(f *testing.F) {
	for _, seed := range []string{"nginx", "nginx:1.27", "localhost:5000/a", "ghcr.io/x/y@sha256:00", "a/b/c:d", "", ":", "/", "@"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		n := normalizeImage(ref)
		if n != normalizeImage(n) {
			t.Fatalf("normalizeImage(%q) = %q is not stable: %q", ref, n, normalizeImage(n))
		}
	})
}

package runtime

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/containerd/platforms"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
)

func TestImportAndListImages(t *testing.T) {
	rt := newRuntime(t, "")
	a, err := runtimetest.Busybox("docker.io/library/busybox:a", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runtimetest.Busybox("example.com/tools/box:b", map[string]string{"v": "b"})
	if err != nil {
		t.Fatal(err)
	}
	tarball, err := runtimetest.OCIArchive(a, b)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	imported, err := rt.ImportImages(ctx, bytes.NewReader(tarball))
	if err != nil {
		t.Fatalf("ImportImages: %v", err)
	}
	if len(imported) != 2 {
		t.Fatalf("ImportImages: got %d images, want 2", len(imported))
	}
	list, err := rt.ListImages(ctx)
	if err != nil {
		t.Fatalf("ListImages: %v", err)
	}
	byName := map[string]Image{}
	for _, img := range list {
		byName[img.Name] = img
	}
	for _, want := range []*runtimetest.Image{a, b} {
		got, ok := byName[want.Name]
		if !ok {
			t.Errorf("ListImages: %s missing from %+v", want.Name, list)
			continue
		}
		if wantSize := int64(len(want.Manifest) + len(want.Config) + len(want.Layer)); got.Size != wantSize {
			t.Errorf("%s size: got %d, want %d", want.Name, got.Size, wantSize)
		}
		if got.Digest != want.ManifestDescriptor().Digest.String() || got.CreatedAt.IsZero() || !got.LastUsed.IsZero() {
			t.Errorf("%s: got %+v, want digest %s, a creation time, never used", want.Name, got, want.ManifestDescriptor().Digest)
		}
		if len(got.Platforms) != 1 || got.Platforms[0] != platforms.DefaultString() {
			t.Errorf("%s platforms: got %v, want [%s]", want.Name, got.Platforms, platforms.DefaultString())
		}
	}
	if _, err := rt.ImportImages(ctx, strings.NewReader("not a tarball")); err == nil {
		t.Errorf("ImportImages of garbage: got nil error, want one")
	}
}

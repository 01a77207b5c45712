package runtimetest

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/containerd/platforms"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// BusyboxPath is where Debian's busybox-static puts its binary.
const BusyboxPath = "/bin/busybox"

// applets are linked to busybox in every image, enough for the tests'
// shells, sleepers, exec probes and web servers.
var applets = []string{
	"sh", "sleep", "echo", "cat", "httpd", "ls", "env", "pwd", "dd", "id",
	"true", "false", "kill", "head", "wc", "seq", "printf", "test", "mkdir",
	"touch", "rm", "grep", "nc", "wget", "hostname", "ps", "yes", "tr",
	"tar", "sha256sum", "stty", // kubectl cp, checksums, terminal sizes
}

// Image is a one-layer OCI image for the host's platform: the blobs and the
// name it is known by. Build it with Busybox; write it with OCIArchive or
// push the blobs to a registry.
type Image struct {
	Name     string
	Layer    []byte
	Config   []byte
	Manifest []byte
}

// Busybox builds an image holding the host's static busybox and its applet
// links. Distinct labels give distinct image digests over a shared layer.
func Busybox(name string, labels map[string]string) (*Image, error) {
	return BusyboxWith(name, labels, nil)
}

// BusyboxWith is Busybox with more files in its layer: path (relative,
// like "bin/tool") to an executable's content.
func BusyboxWith(name string, labels map[string]string, files map[string][]byte) (*Image, error) {
	layer, err := busyboxLayer(files)
	if err != nil {
		return nil, err
	}
	p := platforms.DefaultSpec()
	cfg := ocispec.Image{
		Platform: ocispec.Platform{Architecture: p.Architecture, OS: p.OS, Variant: p.Variant},
		Config: ocispec.ImageConfig{
			Env:    []string{"PATH=/bin", "FROM_IMAGE=yes"},
			Cmd:    []string{"sh"},
			Labels: labels,
		},
		RootFS: ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{digest.FromBytes(layer)}},
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode image config: %w", err)
	}
	man := ocispec.Manifest{
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    descriptor(ocispec.MediaTypeImageConfig, cfgJSON),
		Layers:    []ocispec.Descriptor{descriptor(ocispec.MediaTypeImageLayer, layer)},
	}
	man.SchemaVersion = 2
	manJSON, err := json.Marshal(man)
	if err != nil {
		return nil, fmt.Errorf("encode image manifest: %w", err)
	}
	return &Image{Name: name, Layer: layer, Config: cfgJSON, Manifest: manJSON}, nil
}

func descriptor(mediaType string, b []byte) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
}

// ManifestDescriptor describes the image's manifest, for an index or a push.
func (im *Image) ManifestDescriptor() ocispec.Descriptor {
	return descriptor(ocispec.MediaTypeImageManifest, im.Manifest)
}

// busyboxLayer is an uncompressed layer tar with a fixed timestamp, so every
// image built here shares one layer digest.
func busyboxLayer(files map[string][]byte) ([]byte, error) {
	bin, err := os.ReadFile(BusyboxPath)
	if err != nil {
		return nil, fmt.Errorf("read %s (Debian: apt-get install busybox-static): %w", BusyboxPath, err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mtime := time.Unix(1700000000, 0)
	for _, d := range []string{"bin/", "etc/", "proc/", "sys/", "dev/", "data/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: mtime}); err != nil {
			return nil, err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: mtime}); err != nil {
		return nil, err
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: int64(len(bin)), ModTime: mtime}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	for _, a := range applets {
		h := &tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777, ModTime: mtime}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: 0o755, Size: int64(len(files[p])), ModTime: mtime}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(files[p]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("write busybox layer: %w", err)
	}
	return buf.Bytes(), nil
}

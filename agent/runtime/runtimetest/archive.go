package runtimetest

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

type archiveFile struct {
	name string
	data []byte
}

// OCIArchive writes the images as one OCI image layout tar (oci-layout,
// index.json, blobs/sha256/...), each manifest annotated with its full name
// the way containerd's import reads it.
func OCIArchive(imgs ...*Image) ([]byte, error) {
	files, err := layoutFiles(imgs)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: time.Unix(1700000000, 0)}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("write %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close archive: %w", err)
	}
	return buf.Bytes(), nil
}

// layoutFiles lists the files of the image layout, each blob once.
func layoutFiles(imgs []*Image) ([]archiveFile, error) {
	idx := ocispec.Index{MediaType: ocispec.MediaTypeImageIndex}
	idx.SchemaVersion = 2
	var blobs []archiveFile
	seen := map[digest.Digest]bool{}
	for _, im := range imgs {
		for _, b := range [][]byte{im.Layer, im.Config, im.Manifest} {
			if d := digest.FromBytes(b); !seen[d] {
				seen[d] = true
				blobs = append(blobs, archiveFile{"blobs/sha256/" + d.Encoded(), b})
			}
		}
		desc := im.ManifestDescriptor()
		desc.Annotations = map[string]string{"io.containerd.image.name": im.Name, ocispec.AnnotationRefName: im.Name}
		idx.Manifests = append(idx.Manifests, desc)
	}
	idxJSON, err := json.Marshal(idx)
	if err != nil {
		return nil, fmt.Errorf("encode index: %w", err)
	}
	layout := archiveFile{ocispec.ImageLayoutFile, []byte(`{"imageLayoutVersion":"1.0.0"}`)}
	return append([]archiveFile{layout, {"index.json", idxJSON}}, blobs...), nil
}

// WriteOCIArchive writes OCIArchive(imgs...) to path, for tests that drop a
// tarball into an agent's images folder.
func WriteOCIArchive(path string, imgs ...*Image) error {
	b, err := OCIArchive(imgs...)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("make %s: %w", filepath.Dir(path), err)
	}
	return os.WriteFile(path, b, 0o644)
}

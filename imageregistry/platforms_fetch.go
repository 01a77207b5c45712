package imageregistry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/containerd/containerd/images"
	"github.com/containerd/containerd/remotes"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// maxManifestBytes bounds a manifest, index or config read from a registry.
const maxManifestBytes = 4 << 20

// fetchPlatforms resolves ref with the registries settings pulls use and
// reads its platforms: an index's (manifest list's) entries, or a single
// manifest's config.
func (c *PlatformCache) fetchPlatforms(ctx context.Context, ref string) ([]string, error) {
	ctx = WithClientLog(ctx, c.log)
	resolver, release := NewResolver(c.cfg.Registries, nil)
	defer release()
	name, desc, err := resolver.Resolve(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", ref, err)
	}
	fetcher, err := resolver.Fetcher(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("fetcher for %s: %w", ref, err)
	}
	body, err := fetchBlob(ctx, fetcher, desc)
	if err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", ref, err)
	}
	list, config, err := parseManifestPlatforms(desc.MediaType, body)
	if err != nil || config == nil {
		return list, wrapRef(ref, err)
	}
	body, err = fetchBlob(ctx, fetcher, *config)
	if err != nil {
		return nil, fmt.Errorf("config of %s: %w", ref, err)
	}
	p, err := parseConfigPlatform(body)
	if err != nil {
		return nil, fmt.Errorf("config of %s: %w", ref, err)
	}
	return []string{p}, nil
}

func wrapRef(ref string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("manifest of %s: %w", ref, err)
}

// fetchBlob reads a manifest or config, at most maxManifestBytes, and
// checks it against its digest.
func fetchBlob(ctx context.Context, f remotes.Fetcher, desc ocispec.Descriptor) ([]byte, error) {
	if desc.Size > maxManifestBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d read", desc.Digest, desc.Size, maxManifestBytes)
	}
	rc, err := f.Fetch(ctx, desc)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	body, err := io.ReadAll(io.LimitReader(rc, maxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", desc.Digest, err)
	}
	if len(body) > maxManifestBytes {
		return nil, fmt.Errorf("%s is more than %d bytes", desc.Digest, maxManifestBytes)
	}
	if desc.Digest != "" && desc.Digest.Validate() == nil && desc.Digest.Algorithm().FromBytes(body) != desc.Digest {
		return nil, fmt.Errorf("%s: content does not match its digest", desc.Digest)
	}
	return body, nil
}

// manifestShape holds the fields of an index and of a manifest that tell
// them apart when the registry's media type says nothing useful.
type manifestShape struct {
	MediaType string               `json:"mediaType"`
	Manifests []ocispec.Descriptor `json:"manifests"`
	Config    *ocispec.Descriptor  `json:"config"`
}

// parseManifestPlatforms reads a manifest fetched from a registry. For an
// index it returns the entries' platforms (attestations and entries
// without a platform left out); for a single manifest, the descriptor of
// the config that holds its platform.
func parseManifestPlatforms(mediaType string, body []byte) ([]string, *ocispec.Descriptor, error) {
	var m manifestShape
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, nil, fmt.Errorf("decode: %w", err)
	}
	if !images.IsIndexType(mediaType) && !images.IsManifestType(mediaType) {
		mediaType = m.MediaType // a registry that sends a generic content type
	}
	switch {
	case images.IsIndexType(mediaType) || (mediaType == "" && m.Manifests != nil):
		return indexPlatforms(m.Manifests)
	case images.IsManifestType(mediaType) || (mediaType == "" && m.Config != nil):
		if m.Config == nil || m.Config.Digest == "" {
			return nil, nil, errors.New("manifest has no config")
		}
		return nil, m.Config, nil
	}
	return nil, nil, fmt.Errorf("media type %q is neither an image index nor a manifest", mediaType)
}

// indexPlatforms lists the platforms of an index's entries, each once.
func indexPlatforms(entries []ocispec.Descriptor) ([]string, *ocispec.Descriptor, error) {
	var out []string
	for _, d := range entries {
		if d.Platform == nil || d.Annotations["vnd.docker.reference.type"] == "attestation-manifest" {
			continue
		}
		p, ok := formatPlatform(*d.Platform)
		if ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, nil, errors.New("index lists no platform")
	}
	return out, nil, nil
}

// parseConfigPlatform reads os, architecture and variant from an image
// config.
func parseConfigPlatform(body []byte) (string, error) {
	var cfg ocispec.Platform
	if err := json.Unmarshal(body, &cfg); err != nil {
		return "", fmt.Errorf("decode: %w", err)
	}
	p, ok := formatPlatform(cfg)
	if !ok {
		return "", fmt.Errorf("no os and architecture (got os %q, architecture %q)", cfg.OS, cfg.Architecture)
	}
	return p, nil
}

// formatPlatform writes "os/architecture[/variant]", lower case; false
// for a platform that names no real os or architecture ("unknown/unknown"
// marks attestations) or holds a "/".
func formatPlatform(p ocispec.Platform) (string, bool) {
	osName, arch, variant := strings.ToLower(p.OS), strings.ToLower(p.Architecture), strings.ToLower(p.Variant)
	if osName == "" || arch == "" || osName == "unknown" || arch == "unknown" ||
		strings.Contains(osName+arch+variant, "/") {
		return "", false
	}
	if variant != "" {
		return osName + "/" + arch + "/" + variant, true
	}
	return osName + "/" + arch, true
}
